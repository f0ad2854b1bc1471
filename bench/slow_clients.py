#!/usr/bin/env python3
"""Measures how a kraken HTTP server answers its probe while slow clients attack it.

    bench/slow_clients.py --port 7070 --clients 70 --mode head --probe /health

Modes: "head" (slowloris: a request head sent one header line per second, never ended),
"body" (a whole head with Content-Length, then the body one byte per second), "sse"
(streams of /api/v1/live held open and never read). Prints the probe's latency while the
attack runs, as min/median/max over --probes probes (each with a 30 s timeout).
"""
import argparse
import http.client
import socket
import statistics
import threading
import time


def attacker(args: argparse.Namespace, stop: threading.Event, opened: list) -> None:
    """Opens one slow connection and dribbles bytes until `stop`."""
    try:
        sock = socket.create_connection((args.host, args.port), timeout=5)
    except OSError:
        return
    opened.append(sock)
    try:
        if args.mode == "head":
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            while not stop.wait(1.0):
                sock.sendall(b"X-Slow: 1\r\n")
        elif args.mode == "body":
            sock.sendall(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100000\r\n\r\n" % args.body_path.encode())
            while not stop.wait(1.0):
                sock.sendall(b" ")
        else:
            sock.sendall(b"GET /api/v1/live HTTP/1.1\r\nHost: x\r\n\r\n")
            stop.wait()
    except OSError:
        pass  # the server closed it: that is the defence working


def probe(args: argparse.Namespace) -> float:
    """Seconds one probe request takes (30 s when it fails or times out)."""
    start = time.monotonic()
    try:
        conn = http.client.HTTPConnection(args.host, args.port, timeout=30)
        conn.request("GET", args.probe)
        conn.getresponse().read()
        conn.close()
    except OSError:
        return 30.0
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--clients", type=int, default=70)
    parser.add_argument("--mode", choices=["head", "body", "sse"], default="head")
    parser.add_argument("--probe", default="/health")
    parser.add_argument("--body-path", default="/api/v1/pack")
    parser.add_argument("--probes", type=int, default=10)
    args = parser.parse_args()
    stop = threading.Event()
    opened: list = []
    threads = [threading.Thread(target=attacker, args=(args, stop, opened), daemon=True)
               for _ in range(args.clients)]
    for t in threads:
        t.start()
    time.sleep(2.0)  # every attacker connected and holding its connection
    latencies = []
    for _ in range(args.probes):
        latencies.append(probe(args))
        time.sleep(0.5)
    stop.set()
    print(f"{args.mode} x{args.clients} {args.probe}: min {min(latencies):.3f} s, "
          f"median {statistics.median(latencies):.3f} s, max {max(latencies):.3f} s "
          f"({len(opened)} attackers connected)")
    for sock in opened:
        sock.close()


if __name__ == "__main__":
    main()

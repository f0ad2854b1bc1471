#!/usr/bin/env python3
"""Measurement windows over long-lived workload workers (workloads.py --serve).

    windows.py colocation --workloads gemm,elementwise,... --mode timeslice|mps --out DIR
                          [--seconds 5] [--deadline UNIX_S] [--kraken BIN] [--stand-in]
    windows.py agent-overhead --workload gemm --kraken BIN --out DIR [--seconds 4] [--deadline UNIX_S]

Each worker builds and warms its workload once; then windows run on command: a workload
alone ("solo"), two at once ("pair": both get `run` within a millisecond), or alone while
`kraken agent` samples the node (agent-overhead). Start-up is paid once per worker instead
of once per window, so one short GPU session measures every pair.

With --kraken, every member of a co-location window is also followed by `kraken profile
--pid PID --duration S` (NVML, 100 ms): the kraken profile of each solo run, and what
NVML attributes to each process while two share the GPU.

Windows that cannot finish before --deadline are skipped (and listed so). DIR/windows.json
indexes everything: workers, each window's status, result files and profiles.
`--stand-in` runs every worker as workloads.py's cpu-spin (the replay rehearsal without
a GPU): the plumbing is exercised, the figures mean nothing and say `stand_in`.
"""
from __future__ import annotations

import argparse
import json
import os
import select
import signal
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

# A sibling module: the folder is sys.path[0] when this file runs as a script.
from window_agent import Agent

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS_PY = os.path.join(HERE, "workloads.py")
#: Pairs in the order they are measured (the most informative first: compute + memory,
#: the two real models, then the rest).
PAIR_ORDER = [("gemm", "elementwise"), ("resnet50-train", "bert-infer"), ("gemm", "resnet50-train"),
              ("elementwise", "bert-infer"), ("gemm", "bert-infer"), ("elementwise", "resnet50-train")]
#: Time a window may overrun its length (the last step, writing the result).
GRACE_S = 20.0
#: Rest between two windows on a GPU (clocks and memory settle); --pause (the rehearsals
#: of the tests, which run no GPU, take 0.05).
PAUSE_S = 0.5


def pairs_of(workloads: Sequence[str]) -> List[Tuple[str, str]]:
    """Every pair of distinct workloads, PAIR_ORDER first, then the rest in input order."""
    chosen = [p for p in PAIR_ORDER if p[0] in workloads and p[1] in workloads]
    for i, a in enumerate(workloads):
        for b in workloads[i + 1:]:
            if (a, b) not in chosen and (b, a) not in chosen:
                chosen.append((a, b))
    return chosen


class LineReader:
    """Lines from a pipe with a timeout (select on the raw descriptor, own buffer)."""

    def __init__(self, stream: Any) -> None:
        self.fd = stream.fileno()
        self.buffer = b""
        self.eof = False

    def readline(self, timeout_s: float) -> Optional[str]:
        """The next line without its newline; None on timeout or end of file."""
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self.eof = True
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace")


class Worker:
    """One workloads.py --serve process."""

    def __init__(self, label: str, workload: str, out_dir: str, env: Dict[str, str],
                 extra_args: Sequence[str] = ()) -> None:
        self.label = label
        self.workload = workload
        self.log_path = os.path.join(out_dir, f"worker-{label}.log")
        self.argv = [sys.executable, WORKLOADS_PY, "--workload", workload, "--serve", *extra_args]
        self.env = env
        self.process: Optional[subprocess.Popen] = None
        self.reader: Optional[LineReader] = None
        self.ready: Optional[Dict[str, Any]] = None
        self.started = 0.0
        self.ready_s: Optional[float] = None
        self.error = ""

    def start(self) -> None:
        """Starts the process (it builds and warms its workload, then says ready)."""
        self.started = time.monotonic()
        with open(self.log_path, "w", encoding="utf-8") as log:
            self.process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                            env=self.env)
        self.reader = LineReader(self.process.stdout)

    @property
    def pid(self) -> int:
        return self.process.pid if self.process else -1

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None and not self.error

    def wait_ready(self, timeout_s: float) -> bool:
        """Waits for the `ready` line; False (with the reason in .error) otherwise."""
        line = self._wait_for_line(lambda text: text.startswith("ready "), timeout_s, "was not ready")
        if line is None:
            return False
        self.ready = json.loads(line[len("ready "):])
        self.ready_s = time.monotonic() - self.started
        return True

    def send(self, line: str) -> bool:
        """Writes one command line; False when the worker is gone."""
        try:
            assert self.process is not None and self.process.stdin is not None
            self.process.stdin.write((line + "\n").encode())
            self.process.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            self.error = self._why("could not be sent a command", 0)
            return False

    def wait_done(self, tag: str, timeout_s: float) -> bool:
        """Waits for `done TAG`; False (reason in .error) on timeout or exit."""
        return self._wait_for_line(lambda text: text == f"done {tag}", timeout_s,
                                   f"did not finish window {tag}") is not None

    def _wait_for_line(self, wanted: Callable[[str], bool], timeout_s: float, failure: str) -> Optional[str]:
        """The first line the worker prints that `wanted` accepts, within `timeout_s`; None
        (with .error saying the worker `failure`) on timeout or exit."""
        assert self.reader is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            line = self.reader.readline(deadline - time.monotonic())
            if line is None:
                break
            if wanted(line):
                return line
        self.error = self._why(failure, timeout_s)
        return None

    def stop(self) -> None:
        """Asks the worker to quit, then kills it if it does not; closes its pipes."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.send("quit")
            try:
                self.process.stdin.close()  # type: ignore[union-attr]
                self.process.wait(timeout=10)
            except (subprocess.TimeoutExpired, OSError):
                self.process.kill()
                self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass

    def _why(self, what: str, timeout_s: float) -> str:
        code = None
        if self.process is not None:
            try:  # its output ended: it is exiting, give it a moment to be reaped
                code = self.process.wait(timeout=5) if self.reader and self.reader.eof else self.process.poll()
            except subprocess.TimeoutExpired:
                code = None
        state = f"exited with code {code}" if code is not None else f"no answer within {timeout_s:.0f} s"
        return f"worker {self.label} ({self.workload}) {what}: {state} (log {os.path.basename(self.log_path)})"


def start_profile(kraken: str, pid: int, seconds: float, base: str) -> subprocess.Popen:
    """`kraken profile --pid PID` for one window: NVML every 100 ms, export to BASE.profile.json,
    the --json summary to BASE.summary.json (the child keeps the files open, not we)."""
    with open(base + ".summary.json", "w", encoding="utf-8") as out, \
            open(base + ".profile.log", "w", encoding="utf-8") as err:
        return subprocess.Popen([kraken, "profile", "--pid", str(pid), "--duration", f"{seconds:g}s", "--interval",
                                 "100ms", "--out", base + ".profile.json", "--json"], stdout=out, stderr=err)


def run_window(tag: str, members: Sequence[Worker], seconds: float, out_dir: str,
               kraken: Optional[str]) -> Dict[str, Any]:
    """One window: every member measures `seconds` at once; returns its index entry."""
    entry: Dict[str, Any] = {"tag": tag, "members": [w.label for w in members], "seconds": seconds,
                             "results": {}, "profiles": {}, "status": "ok", "reason": ""}
    profilers = []
    if kraken:
        for w in members:
            base = os.path.join(out_dir, f"{tag}.{w.label}")
            profilers.append(start_profile(kraken, w.pid, seconds, base))
            entry["profiles"][w.label] = os.path.basename(base) + ".summary.json"
    entry["started_unix"] = time.time()
    for w in members:
        path = os.path.join(out_dir, f"{tag}.{w.label}.json")
        if w.send(f"run {tag} {seconds:g} {path}"):
            entry["results"][w.label] = os.path.basename(path)
    for w in members:
        if not w.wait_done(tag, seconds + GRACE_S):
            entry["status"], entry["reason"] = "failed", w.error
            entry["results"].pop(w.label, None)
    for p in profilers:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGINT)
            p.wait(timeout=10)
    return entry


def time_left(deadline: Optional[float]) -> float:
    return float("inf") if deadline is None else deadline - time.time()


def write_index(out_dir: str, index: Dict[str, Any]) -> None:
    tmp = os.path.join(out_dir, "windows.json.tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        json.dump(index, out, indent=1)
    os.replace(tmp, os.path.join(out_dir, "windows.json"))


def start_workers(specs: Sequence[Tuple[str, str]], out_dir: str, stand_in: bool, ready_timeout_s: float,
                  index: Dict[str, Any]) -> Dict[str, Worker]:
    """Starts every worker at once and waits for them; returns those that are ready."""
    env = dict(os.environ)
    workers = {}
    for label, workload in specs:
        w = Worker(label, "cpu-spin" if stand_in else workload, out_dir, env)
        w.start()
        workers[label] = w
    ready = {}
    for label, w in workers.items():
        ok = w.wait_ready(ready_timeout_s)
        index["workers"][label] = {"workload": w.workload, "pid": w.pid, "ready_s": w.ready_s,
                                   "facts": (w.ready or {}).get("facts"), "error": w.error}
        if ok:
            ready[label] = w
        else:
            w.stop()
    write_index(out_dir, index)
    return ready


def print_skipped(index: Dict[str, Any]) -> None:
    """One line per skipped window, with why (the step's log, the summary's tail)."""
    for skipped in index["skipped"]:
        print(f"window {skipped['tag']}: skipped: {skipped['reason']}", flush=True)


def colocation(args: argparse.Namespace) -> int:
    """Solo windows of each workload, then pair windows, then the solos again (drift)."""
    os.makedirs(args.out, exist_ok=True)
    names = [n for n in args.workloads.split(",") if n]
    index: Dict[str, Any] = {"kind": "colocation", "mode": args.mode, "stand_in": args.stand_in,
                             "seconds": args.seconds, "workers": {}, "windows": [], "skipped": []}
    workers = start_workers([(n, n) for n in names], args.out, args.stand_in, args.ready_timeout, index)
    plan: List[Tuple[str, List[str]]] = [(f"solo-{n}", [n]) for n in names]
    plan += [(f"{a}+{b}", [a, b]) for a, b in pairs_of(names)]
    plan += [(f"solo2-{n}", [n]) for n in names]
    try:
        for tag, labels in plan:
            missing = [label for label in labels if label not in workers or not workers[label].alive()]
            if missing:
                index["skipped"].append({"tag": tag, "reason": "worker not running: " + ", ".join(missing)})
            elif time_left(args.deadline) < args.seconds + GRACE_S / 2:
                index["skipped"].append({"tag": tag, "reason": "no time left before the deadline"})
            else:
                entry = run_window(tag, [workers[label] for label in labels], args.seconds, args.out, args.kraken)
                index["windows"].append(entry)
                print(f"window {tag}: {entry['status']} {entry['reason']}", flush=True)
                time.sleep(args.pause)
            write_index(args.out, index)
    finally:
        for w in workers.values():
            w.stop()
        write_index(args.out, index)
    measured = sum(1 for e in index["windows"] if e["status"] == "ok")
    print_skipped(index)
    print(f"{measured} windows measured, {len(index['skipped'])} skipped", flush=True)
    return 0 if measured else 1


def agent_overhead(args: argparse.Namespace) -> int:
    """One worker: alone, with the agent at 100 ms, at 10 ms, alone again."""
    os.makedirs(args.out, exist_ok=True)
    index: Dict[str, Any] = {"kind": "agent-overhead", "stand_in": args.stand_in, "seconds": args.seconds,
                             "workers": {}, "windows": [], "skipped": []}
    workers = start_workers([(args.workload, args.workload)], args.out, args.stand_in, args.ready_timeout, index)
    plan = [("alone-1", None), ("agent-100ms", "100ms"), ("agent-10ms", "10ms"), ("alone-2", None)]
    try:
        for tag, interval in plan:
            w = workers.get(args.workload)
            if w is None or not w.alive():
                index["skipped"].append({"tag": tag, "reason": "worker not running"})
                continue
            if time_left(args.deadline) < args.seconds + GRACE_S:
                index["skipped"].append({"tag": tag, "reason": "no time left before the deadline"})
                continue
            agent = Agent(args.kraken, interval, args.out) if interval else None
            why = agent.start() if agent else ""
            if why:
                agent.stop()
                index["skipped"].append({"tag": tag, "reason": why})
                continue
            entry = run_window(tag, [w], args.seconds, args.out, None)
            if agent:
                entry["agent"] = {"interval": interval, "exit_code": agent.stop(), "scrapes": agent.scrapes,
                                  "log": os.path.basename(agent.log_path)}
            index["windows"].append(entry)
            print(f"window {tag}: {entry['status']} {entry['reason']}", flush=True)
            write_index(args.out, index)
            time.sleep(args.pause)
    finally:
        for w in workers.values():
            w.stop()
        write_index(args.out, index)
    print_skipped(index)
    return 0 if any(e["status"] == "ok" for e in index["windows"]) else 1


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="windows.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="plan", required=True)
    for name in ("colocation", "agent-overhead"):
        p = sub.add_parser(name)
        p.add_argument("--out", required=True)
        p.add_argument("--seconds", type=float, default=5.0 if name == "colocation" else 4.0)
        p.add_argument("--deadline", type=float, default=None, help="Unix time by which every window must end")
        p.add_argument("--stand-in", action="store_true", help="cpu-spin workers (no GPU, replay rehearsal)")
        p.add_argument("--ready-timeout", type=float, default=120.0, help="seconds a worker may take to start")
        p.add_argument("--pause", type=float, default=PAUSE_S, help="seconds between two windows")
    coloc = sub.choices["colocation"]
    coloc.add_argument("--workloads", default="gemm,elementwise,resnet50-train,bert-infer")
    coloc.add_argument("--mode", default="timeslice", help="label of the sharing mode (timeslice, mps)")
    coloc.add_argument("--kraken", default=None, help="kraken binary: profile each member of each window")
    overhead = sub.choices["agent-overhead"]
    overhead.add_argument("--workload", default="gemm")
    overhead.add_argument("--kraken", required=True, help="kraken binary whose agent is measured")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    return colocation(args) if args.plan == "colocation" else agent_overhead(args)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Scale benchmark of kraken's Prometheus path (issue 18, section 5); prints figures.

Fills a real Prometheus with NODES x GPUS DCGM series over DAYS, derived from the real
captures of ../shared/data by prometheus_scale_data.py (its --help gives the recipe),
then measures what a user waits for:

  1. GET /api/v1/cluster (`kraken serve --prometheus`): the cluster page, range 1d;
  2. GET /api/v1/cluster?range=7d: the pooling candidates over 7 days;
  3. `kraken analyze --prometheus --range 7d` of every namespace (the whole cluster):
     wall time and peak RSS from /usr/bin/time -v;
  4. the first GET /api/v1/live event read from Prometheus.

Generation streams: one UTC day at a time is written as OpenMetrics, loaded with
`promtool tsdb create-blocks-from openmetrics` (one 24 h block) while the next day is
written, and deleted, so the disk holds two days of text at most (~5 GB at full size).
Not a test: it asserts nothing and is never run by ctest.

The TSDB can be built once and measured later: --generate-only --work-dir D, then
--measure-only --work-dir D (the data's end time is kept in D/scale.json).

Example (quick): nice -n 19 bench/prometheus_scale.py --nodes 20 --kraken build/src/cli/kraken
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import prometheus_scale_data as data

DAY_S = 86400
NAMESPACES = ("training",) + data.T4_NAMESPACES


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def backfill(args: argparse.Namespace, work: str, start_s: int, end_s: int) -> tuple[int, float, float]:
    """Writes and loads [start_s, end_s) a UTC day at a time; returns samples, gen s, wall s.

    promtool loads day k while day k + 1 is written (two cores), so at most two days of
    text are on disk at once.
    """
    gpus = data.build_gpus(args.data_dir, args.nodes, args.gpus_per_node)
    tsdb = os.path.join(work, "data")
    samples, gen_s, began = 0, 0.0, time.monotonic()
    loading: tuple[subprocess.Popen, str] | None = None
    day = start_s - start_s % DAY_S
    while day < end_s:
        lo, hi = max(day, start_s), min(day + DAY_S, end_s)
        text = os.path.join(work, f"day-{day}.om")
        t0 = time.monotonic()
        with open(text, "w", encoding="utf-8", buffering=1 << 20) as out:
            samples += data.write_openmetrics(out, gpus, lo, hi, args.step)
        gen_s += time.monotonic() - t0
        finish_load(loading)
        loading = (subprocess.Popen(["promtool", "tsdb", "create-blocks-from", "openmetrics",
                                     "--max-block-duration=24h", text, tsdb], stdout=subprocess.DEVNULL), text)
        print(f"  day {time.strftime('%Y-%m-%d', time.gmtime(day))}: {samples} samples so far", flush=True)
        day += DAY_S
    finish_load(loading)
    return samples, gen_s, time.monotonic() - began


def finish_load(loading: tuple[subprocess.Popen, str] | None) -> None:
    """Waits for one day's promtool and deletes its text."""
    if loading is None:
        return
    proc, text = loading
    if proc.wait() != 0:
        sys.exit(f"prometheus_scale: promtool failed on {text}")
    os.remove(text)


def wait_ready(url: str, proc: subprocess.Popen, what: str, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"prometheus_scale: {what} exited ({proc.returncode})")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    sys.exit(f"prometheus_scale: {what} not ready after {timeout_s} s")


def timed_get(url: str) -> tuple[float, bytes]:
    t0 = time.monotonic()
    with urllib.request.urlopen(url, timeout=600) as r:
        body = r.read()
    return time.monotonic() - t0, body


def cluster_figures(base: str, query: str, runs: int) -> str:
    times, body = [], b""
    for _ in range(runs):
        elapsed, body = timed_get(base + "/api/v1/cluster" + query)
        times.append(elapsed)
    doc = json.loads(body)
    return (f"median {statistics.median(times):.2f} s, max {max(times):.2f} s over {runs} runs; "
            f"{len(body) / 1e6:.1f} MB, {len(doc['gpus'])} GPU rows, {len(doc['pods'])} pods, "
            f"{len(doc['pooling_candidates'])} pooling candidates, step {doc['prometheus']['step_s']} s, "
            f"{doc['prometheus']['windows']} windows")


def live_figures(base: str) -> str:
    t0 = time.monotonic()
    with urllib.request.urlopen(base + "/api/v1/live", timeout=600) as r:
        buf = b""
        while b"\n\n" not in buf:
            buf += r.read1(1 << 16)
    elapsed = time.monotonic() - t0
    event = json.loads(buf.split(b"\n\n")[0].split(b"data: ", 1)[1])
    return (f"{elapsed:.2f} s to the first event; {len(event['samples'])} samples"
            f"{' (truncated)' if event.get('truncated') else ''}{', error: ' + event['error'] if 'error' in event else ''}")


def time_v(stderr: str, field: str) -> float:
    """One figure of /usr/bin/time -v's report."""
    m = re.search(re.escape(field) + r": ([0-9.]+)", stderr)
    return float(m.group(1)) if m else 0.0


def analyze_figures(args: argparse.Namespace, url: str, end_s: int, step: str) -> None:
    total_wall, total_cpu, peak_kb = 0.0, 0.0, 0.0
    for ns in NAMESPACES:
        cmd = ["/usr/bin/time", "-v", args.kraken, "analyze", "--prometheus", url, "--namespace", ns, "--range",
               f"{args.days}d", "--end", str(end_s), "--json", "--timeout", "600", "--step", step]
        t0 = time.monotonic()
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.monotonic() - t0
        kb = time_v(run.stderr, "Maximum resident set size (kbytes)")
        cpu = time_v(run.stderr, "User time (seconds)") + time_v(run.stderr, "System time (seconds)")
        doc = json.loads(run.stdout) if run.returncode == 0 else {}
        source = doc.get("source", {})
        note = "" if run.returncode == 0 else f" FAILED ({run.returncode}): {run.stderr.splitlines()[0][:200]}"
        print(f"  analyze --namespace {ns} --step {step}: {wall:.1f} s wall ({cpu:.1f} s CPU in kraken), peak RSS "
              f"{kb / 1024:.0f} MiB, {len(doc.get('pods', []))} pod GPUs, {source.get('points', 0)} points"
              f"{note}", flush=True)
        total_wall, total_cpu, peak_kb = total_wall + wall, total_cpu + cpu, max(peak_kb, kb)
    print(f"analyze --step {step}, whole cluster ({len(NAMESPACES)} namespaces, one after another): "
          f"{total_wall:.1f} s wall ({total_cpu:.1f} s CPU in kraken), peak RSS {peak_kb / 1024:.0f} MiB", flush=True)


def measure(args: argparse.Namespace, work: str, end_s: int) -> None:
    prom_port, api_port = free_port(), free_port()
    with open(os.path.join(work, "prometheus.yml"), "w", encoding="utf-8") as f:
        f.write("global:\n  scrape_interval: 15s\n")
    prom_log = open(os.path.join(work, "prometheus.log"), "w", encoding="utf-8")
    prom = subprocess.Popen(["prometheus", f"--config.file={work}/prometheus.yml", f"--storage.tsdb.path={work}/data",
                             f"--web.listen-address=127.0.0.1:{prom_port}", "--storage.tsdb.retention.time=30d"],
                            stdout=prom_log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{prom_port}"
    api = None
    try:
        t0 = time.monotonic()
        wait_ready(url + "/-/ready", prom, "prometheus")
        print(f"prometheus ready in {time.monotonic() - t0:.1f} s", flush=True)
        serve_log = open(os.path.join(work, "serve.log"), "w", encoding="utf-8")
        api = subprocess.Popen([args.kraken, "serve", "--host", "127.0.0.1", "--port", str(api_port), "--db",
                                f"{work}/api.db", "--prometheus", url],
                               stdout=serve_log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{api_port}"
        wait_ready(base + "/health", api, "kraken serve", 60)
        print("cluster page (GET /api/v1/cluster, range 1d): " + cluster_figures(base, f"?end={end_s}", args.runs),
              flush=True)
        print(f"pooling candidates over {args.days} days (GET /api/v1/cluster?range={args.days}d): " +
              cluster_figures(base, f"?range={args.days}d&end={end_s}", args.runs), flush=True)
        print("live view (GET /api/v1/live from Prometheus): " + live_figures(base), flush=True)
        for step in args.analyze_step.split(","):
            analyze_figures(args, url, end_s, step)
    finally:
        for proc in (api, prom):
            if proc is not None:
                proc.send_signal(signal.SIGTERM)
                proc.wait()


def tsdb_megabytes(work: str) -> float:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(work + "/data") for f in fs) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__ + "\n\nThe data:\n" + (data.__doc__ or ""),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=1000, help="nodes (default 1000; 20 for a quick run)")
    parser.add_argument("--gpus-per-node", type=int, default=8)
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--step", type=int, default=300,
                        help="seconds between samples (default 300: 1000 x 8 GPUs x 7 days is then 72.6 M samples, "
                             "about 17 GB of OpenMetrics text streamed a day at a time; see docs/prometheus-scale.md)")
    parser.add_argument("--kraken", default="build/src/cli/kraken")
    parser.add_argument("--data-dir", default=os.environ.get("KRAKEN_DATA_DIR", "../shared/data"))
    parser.add_argument("--work-dir", help="keep the TSDB here (default: a temporary folder, removed)")
    parser.add_argument("--runs", type=int, default=3, help="requests per cluster-page figure")
    parser.add_argument("--analyze-step", default="auto,5m",
                        help="comma-separated --step values for kraken analyze, each a run over every namespace "
                             "(default auto,5m: kraken's auto step, 60 s for 7 days, and the data's own 300 s)")
    parser.add_argument("--generate-only", action="store_true", help="backfill --work-dir, measure nothing")
    parser.add_argument("--measure-only", action="store_true",
                        help="measure the TSDB an earlier --generate-only left in --work-dir")
    args = parser.parse_args()
    if (args.generate_only or args.measure_only) and not args.work_dir:
        parser.error("--generate-only and --measure-only need --work-dir")
    args.kraken = os.path.abspath(args.kraken)
    end_s = int(time.time()) // args.step * args.step
    work = args.work_dir or tempfile.mkdtemp(prefix="kraken_prometheus_scale_")
    os.makedirs(work, exist_ok=True)
    try:
        print(f"{args.nodes} nodes x {args.gpus_per_node} GPUs x {args.days} days, a sample every {args.step} s, "
              f"in {work}", flush=True)
        state = os.path.join(work, "scale.json")
        if args.measure_only:
            with open(state, encoding="utf-8") as f:
                end_s = json.load(f)["end_s"]
        else:
            samples, gen_s, wall_s = backfill(args, work, end_s - args.days * DAY_S, end_s + 1)
            with open(state, "w", encoding="utf-8") as f:
                json.dump({"end_s": end_s, "nodes": args.nodes, "days": args.days, "step": args.step}, f)
            print(f"backfill: {samples} samples in {wall_s:.0f} s (generation {gen_s:.0f} s of it, promtool "
                  f"alongside); TSDB {tsdb_megabytes(work):.0f} MB", flush=True)
        if not args.generate_only:
            measure(args, work, end_s)
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The GPU validation run's workloads: one CLI, throughput and per-step latencies.

    workloads.py --workload resnet50-train|bert-infer|elementwise|gemm|small-kernels|short-kernels|cpu-spin
                 [--seconds N | --steps N] [--warmup-steps K] [--out FILE]
                 [--profiler none|torch|kraken|torch+kraken|nvtx|torch-cuda-noexport] [--trace FILE]
                 [--kraken-dir DIR]
    workloads.py --workload W --serve       (a worker: windows run on command, see below)

Every step ends with a device synchronization, so a step's wall time is its latency (a
training step, an inference request, a batch of elementwise or GEMM kernels). The result
(stdout, and --out as JSON) is the throughput over the measured window and the step-time
percentiles (p50/p90/p99, linear interpolation as numpy's default).

Profilers (scripts/gpu-validate.sh phases 1 and 2), each around `--steps` steps after the
warm-up: `torch`: torch.profiler (CPU + CUDA, memory) with a schedule recording every
step, so that the trace has each step as a ProfilerStep#N range (torch.profiler marks
steps only when given a schedule), written to --trace once (gzipped when it ends in .gz);
the run fails when the trace lacks a step; `kraken`: kraken.WorkloadProfiler with the
kernel timeline (report JSON and HTML into --kraken-dir); `torch+kraken`: both, one after the other, in one
process; `nvtx`: each step inside an NVTX range named ProfilerStep#i, as torch.profiler
numbers its steps, so that a CUPTI trace of this run compares step for step with the
torch.profiler trace of another run (docs/kernel-capture.md "Comparing with torch.profiler");
`torch-cuda-noexport` (overhead breakdown, scripts/gpu-validate.sh phase 7): the
--seconds window measured inside torch.profiler with CUDA activities only; nothing is
exported and the process exits without stopping the profiler, so only its recording
cost is measured, not its post-processing.

`--serve` (co-location and overhead windows, scripts/gpu_validate/windows.py): the worker
builds and warms its workload once, prints `ready {json}`, then reads commands on stdin:
`run TAG SECONDS FILE` measures a window and writes its result to FILE, answering
`done TAG`; `quit` or end of input exits. One process then serves several windows, so the
windows of a pair start within a millisecond of each other and no window pays the start-up.

`small-kernels` launches 200 in-place adds on 1024 fp32 elements per step (launch-bound:
the CPU is the bottleneck); `short-kernels` the same loop on 4Mi elements (kernels of
about 10 us: the GPU is). `cpu-spin` is a stand-in without torch (a fixed amount of
Python work per step) for the replay rehearsal of the script on machines without a GPU;
its results say `stand_in`.

Argument parsing and reporting need neither torch nor a GPU (tests: workloads_test.py).
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import re
import shutil
import sys
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

# A sibling module: found both when this file runs as a script (its folder is sys.path[0])
# and when imported with that folder on sys.path (the tests, windows.py's workers).
from workload_builders import Workload, build_workload

#: Workload name -> (what one item is, items per step, needs torch).
WORKLOADS: Dict[str, Dict[str, Any]] = {
    "resnet50-train": {"unit": "images", "torch": True},
    "bert-infer": {"unit": "sequences", "torch": True},
    "elementwise": {"unit": "GB", "torch": True},
    "gemm": {"unit": "TFLOP", "torch": True},
    "small-kernels": {"unit": "kernels", "torch": True},
    "short-kernels": {"unit": "kernels", "torch": True},
    "graph-kernels": {"unit": "kernels", "torch": True},
    "threads-kernels": {"unit": "kernels", "torch": True},
    "cpu-spin": {"unit": "spins", "torch": False},
}
PROFILERS = ("none", "torch", "kraken", "torch+kraken", "nvtx", "torch-cuda-noexport")
#: Profilers measured over a --seconds window like a plain run (the others over --steps).
WINDOW_PROFILERS = ("none", "torch-cuda-noexport")
#: Profilers never stopped (torch-cuda-noexport): the command line exits without their teardown.
PROFILERS_LEFT_RUNNING: List[Any] = []
#: Step times kept in a result file; the percentiles always use every step.
MAX_STEP_TIMES_KEPT = 5000


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """The command line; errors exit with code 2 (argparse) naming the bad option."""
    parser = argparse.ArgumentParser(prog="workloads.py", description=__doc__.splitlines()[0])
    parser.add_argument("--workload", required=True, choices=sorted(WORKLOADS))
    parser.add_argument("--seconds", type=float, default=None, help="measure for this long (default 10)")
    parser.add_argument("--steps", type=int, default=None, help="measure this many steps (profilers: default 20)")
    parser.add_argument("--warmup-steps", type=int, default=5, help="steps run before measuring (default 5)")
    parser.add_argument("--batch", type=int, default=None, help="items per step (default per workload)")
    parser.add_argument("--out", default=None, help="write the result as JSON to this file")
    parser.add_argument("--profiler", default="none", choices=PROFILERS)
    parser.add_argument("--trace", default=None, help="torch.profiler trace file (--profiler torch)")
    parser.add_argument("--kraken-dir", default=None, help="folder for WorkloadProfiler's report and profile")
    parser.add_argument("--kraken-db", default=None, help="kraken store for WorkloadProfiler (default: the CLI's)")
    parser.add_argument("--serve", action="store_true", help="serve measurement windows on stdin")
    parser.add_argument("--device", default="cuda", help="torch device (default cuda)")
    parser.add_argument("--quiet", action="store_true",
                        help="no report on stdout (under `kraken profile --json`, stdout is kraken's document)")
    args = parser.parse_args(argv)
    if args.seconds is not None and args.seconds <= 0:
        parser.error("--seconds must be positive")
    if args.steps is not None and args.steps < 1:
        parser.error("--steps must be at least 1")
    if args.warmup_steps < 0:
        parser.error("--warmup-steps must not be negative")
    if args.batch is not None and args.batch < 1:
        parser.error("--batch must be at least 1")
    if args.profiler in ("torch", "torch+kraken") and not args.trace:
        parser.error(f"--profiler {args.profiler} needs --trace FILE")
    if args.profiler in ("kraken", "torch+kraken") and not args.kraken_dir:
        parser.error(f"--profiler {args.profiler} needs --kraken-dir DIR")
    if args.serve and args.profiler != "none":
        parser.error("--serve measures windows only; it takes no --profiler")
    if args.profiler not in WINDOW_PROFILERS and args.steps is None:
        args.steps = 20
    if args.steps is None and args.seconds is None:
        args.seconds = 10.0
    return args


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) with linear interpolation between order statistics
    (numpy.percentile's default); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = int(math.floor(rank))
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summarize_steps(step_seconds: Sequence[float], items_per_step: float, unit: str,
                    wall_seconds: float) -> Dict[str, Any]:
    """Throughput and step-time statistics of one measured window.

    Throughput is items over the window's wall time (steps back to back, so it includes
    the host time between steps); step times are in milliseconds."""
    steps = len(step_seconds)
    ms = [s * 1e3 for s in step_seconds]
    result: Dict[str, Any] = {
        "steps": steps,
        "wall_s": round(wall_seconds, 6),
        "unit": unit,
        "items_per_step": items_per_step,
        "steps_per_s": steps / wall_seconds if wall_seconds > 0 else None,
        "throughput_per_s": steps * items_per_step / wall_seconds if wall_seconds > 0 else None,
        "step_ms": None,
    }
    if ms:
        result["step_ms"] = {
            "p50": percentile(ms, 50), "p90": percentile(ms, 90), "p99": percentile(ms, 99),
            "mean": sum(ms) / steps, "min": min(ms), "max": max(ms),
        }
    result["step_times_ms"] = [round(v, 4) for v in ms[:MAX_STEP_TIMES_KEPT]]
    return result


def format_report(result: Dict[str, Any]) -> str:
    """Two lines: `throughput: X UNIT/s` (the form `kraken trial --throughput-regex`
    reads) and the step-time percentiles."""
    throughput = result.get("throughput_per_s")
    lines = [f"throughput: {throughput:.6g} {result.get('unit', 'items')}/s" if throughput is not None
             else "throughput: none (no step finished)"]
    step = result.get("step_ms")
    if step:
        lines.append(f"{result.get('workload', '?')}: {result['steps']} steps in {result['wall_s']:.3f} s, step p50 "
                     f"{step['p50']:.3f} ms, p90 {step['p90']:.3f} ms, p99 {step['p99']:.3f} ms")
    return "\n".join(lines)


def write_json(path: str, document: Dict[str, Any]) -> None:
    """Writes atomically (a reader never sees half a file)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1, sort_keys=True)
        out.write("\n")
    os.replace(tmp, path)


def measure(workload: Workload, seconds: Optional[float], steps: Optional[int],
            on_step: Optional[Callable[[int], None]] = None) -> Dict[str, Any]:
    """Runs steps back to back until `steps` are done or `seconds` have passed (whichever
    comes first), timing each; `on_step(i)` runs after step i (profiler step marks)."""
    durations: List[float] = []
    start_unix = time.time()
    start = time.perf_counter()
    deadline = start + seconds if seconds is not None else math.inf
    while (steps is None or len(durations) < steps) and time.perf_counter() < deadline:
        t0 = time.perf_counter()
        workload.step()
        durations.append(time.perf_counter() - t0)
        if on_step is not None:
            on_step(len(durations) - 1)
    wall = time.perf_counter() - start
    result = summarize_steps(durations, workload.items_per_step, workload.unit, wall)
    result.update(workload=workload.name, start_unix=start_unix, end_unix=start_unix + wall, pid=os.getpid(),
                  stand_in=workload.stand_in, facts=workload.facts)
    return result


def gzip_file(path: str) -> str:
    """Compresses `path` into `path`.gz and removes the original."""
    with open(path, "rb") as src, gzip.open(path + ".gz", "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(path)
    return path + ".gz"


def profiler_steps_in_trace(path: str) -> int:
    """How many distinct ProfilerStep#N ranges a Chrome trace (plain or gzipped) holds."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        return len(set(re.findall(r'"name":\s*"ProfilerStep#(\d+)"', f.read())))


def run_torch_profiler(workload: Workload, steps: int, trace: str) -> Dict[str, Any]:
    """`steps` steps under torch.profiler, each a ProfilerStep#N range; the Chrome trace
    goes to `trace`, exported exactly once."""
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    plain = trace[:-3] if trace.endswith(".gz") else trace
    os.makedirs(os.path.dirname(os.path.abspath(plain)), exist_ok=True)
    ready: List[int] = []
    # Without a schedule torch.profiler records no ProfilerStep ranges (run 1's traces had
    # none, so nothing could be compared step for step). One cycle whose `steps` steps are
    # all active; prof.step() between steps only, so the last step ends at the exit, which
    # stops the trace (its post-processing outside the measured window) and calls
    # on_trace_ready once. No profiler warm-up step: the workload warmed up before, and
    # every measured step must be in the trace.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "won't be using warmup": intended, see above
        every_step = schedule(wait=0, warmup=0, active=steps, repeat=1)
    with profile(activities=activities, profile_memory=True, schedule=every_step,
                 on_trace_ready=lambda p: ready.append(p.step_num)) as prof:
        result = measure(workload, None, steps, on_step=lambda i: prof.step() if i + 1 < steps else None)
    prof.export_chrome_trace(plain)  # once, the trace being stopped
    result["trace_ready_calls"] = len(ready)
    if not os.path.exists(plain) or os.path.getsize(plain) == 0:
        raise RuntimeError(f"torch.profiler wrote no trace to {plain}")
    result["trace_profiler_steps"] = profiler_steps_in_trace(plain)
    result["trace"] = gzip_file(plain) if trace.endswith(".gz") else plain
    result["profiler"] = "torch"
    return result


def run_torch_cuda_window(workload: Workload, seconds: Optional[float], steps: Optional[int]) -> Dict[str, Any]:
    """A window measured inside torch.profiler recording CUDA activities only; the
    profiler is left running (see main: the process exits without its post-processing)."""
    from torch.profiler import ProfilerActivity, profile

    prof = profile(activities=[ProfilerActivity.CUDA])
    prof.start()
    PROFILERS_LEFT_RUNNING.append(prof)
    result = measure(workload, seconds, steps)
    result["profiler"] = "torch-cuda-noexport"
    return result


def run_kraken_profiler(workload: Workload, steps: int, folder: str, db: Optional[str]) -> Dict[str, Any]:
    """`steps` steps inside kraken.WorkloadProfiler (NVML + the kernel timeline); the
    report is saved as JSON and HTML in `folder`."""
    import kraken

    os.makedirs(folder, exist_ok=True)
    metrics = ["gpu_util", "memory", "pcie_bw", "power", "clocks"]
    if "torch" in sys.modules:
        metrics.append("kernel_timeline")
    profiler = kraken.WorkloadProfiler(workload_name=workload.name, sampling_interval=100, metrics=metrics, db=db,
                                       out=os.path.join(folder, f"{workload.name}.profile.json"))
    with profiler:
        result = measure(workload, None, steps, on_step=lambda _: profiler.step())
    report = profiler.get_report()
    result["kraken_report"] = [str(report.save(os.path.join(folder, f"{workload.name}.kraken.json"))),
                               str(report.save(os.path.join(folder, f"{workload.name}.kraken.html")))]
    result["kernel_timeline"] = report.kernel_timeline
    result["profiler"] = "kraken"
    return result


def run_nvtx_steps(workload: Workload, steps: int) -> Dict[str, Any]:
    """`steps` steps, each in an NVTX range named ProfilerStep#i (torch.profiler's names)."""
    import torch

    nvtx = torch.cuda.nvtx
    state = {"open": False}

    def begin(i: int) -> None:
        nvtx.range_push(f"ProfilerStep#{i}")
        state["open"] = True

    def end_and_begin(i: int) -> None:
        nvtx.range_pop()
        state["open"] = False
        if i + 1 < steps:
            begin(i + 1)

    begin(0)
    result = measure(workload, None, steps, on_step=end_and_begin)
    if state["open"]:
        nvtx.range_pop()
    result["profiler"] = "nvtx"
    return result


def serve(workload: Workload, stdin: Any = None, stdout: Any = None) -> int:
    """Answers `run TAG SECONDS FILE` / `quit` lines (see the module's docstring)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    print("ready " + json.dumps({"workload": workload.name, "pid": os.getpid(), "facts": workload.facts}),
          file=stdout, flush=True)
    for line in stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            break
        if words[0] != "run" or len(words) != 4:
            print(f"error unknown command: {line.strip()}", file=stdout, flush=True)
            continue
        tag, seconds, path = words[1], float(words[2]), words[3]
        result = measure(workload, seconds, None)
        result["window"] = tag
        write_json(path, result)
        print(f"done {tag}", file=stdout, flush=True)
    return 0


def run_profiled(args: argparse.Namespace, workload: Workload) -> Dict[str, Any]:
    """The measurement of --profiler (`none`: plain)."""
    if args.profiler == "torch":
        return run_torch_profiler(workload, args.steps, args.trace)
    if args.profiler == "kraken":
        return run_kraken_profiler(workload, args.steps, args.kraken_dir, args.kraken_db)
    if args.profiler == "torch+kraken":
        result = run_torch_profiler(workload, args.steps, args.trace)
        result["kraken_run"] = run_kraken_profiler(workload, args.steps, args.kraken_dir, args.kraken_db)
        return result
    if args.profiler == "nvtx":
        return run_nvtx_steps(workload, args.steps)
    if args.profiler == "torch-cuda-noexport":
        return run_torch_cuda_window(workload, args.seconds, args.steps)
    result = measure(workload, args.seconds, args.steps)
    result["profiler"] = "none"
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Builds the workload, warms it up, measures (or serves), reports. Exit code 1 when a
    torch.profiler trace lacks some of the measured steps (the comparison needs them)."""
    args = parse_args(argv)
    workload = build_workload(args.workload, args.batch, args.device)
    for _ in range(args.warmup_steps):
        workload.step()
    if args.serve:
        return serve(workload)
    result = run_profiled(args, workload)
    result["warmup_steps"] = args.warmup_steps
    if not args.quiet:
        print(format_report(result), flush=True)
    if args.out:
        write_json(args.out, result)
    marked = result.get("trace_profiler_steps")
    if marked is not None and marked < result["steps"]:
        print(f"workloads.py: {result['trace']} has {marked} ProfilerStep ranges for {result['steps']} measured steps",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    status = main()
    if PROFILERS_LEFT_RUNNING:
        # The profiler is still recording: leave without its teardown (which would parse
        # every recorded kernel in Python), the result being written already.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)

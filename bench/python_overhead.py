#!/usr/bin/env python3
"""What `with WorkloadProfiler(...)` adds to a loop of 1 ms steps (target: < 1 %).

    PYTHONPATH=build/python python3 bench/python_overhead.py [STEPS] [ROUNDS]

A step is a fixed amount of CPU work calibrated to about 1 ms. Each round times STEPS steps
bare, then the same steps inside `with profiler:` calling profiler.step() after each (the
sampling thread in libkraken reads NVML every 100 ms, the design's default). Rounds
alternate so drift on a shared machine hits both alike; the figures are the medians and
the minimums over the rounds. "block" includes start (NVML load) and stop (saving the run);
"loop" is only the steps inside the block. Besides wall time, the main thread's CPU time
for the steps (time.thread_time) is compared: it is what the profiler costs the profiled
thread itself (step() calls, cache effects), free of the scheduling noise of a loaded
machine; the sampling thread's own CPU is printed per second of run (on a machine with a
spare core it runs beside the loop, not in its way). NVML: $KRAKEN_NVML_LIBRARY (the replay
library on a machine without a GPU), else the driver's.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import kraken


def work(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def calibrate(target_s: float = 0.001) -> int:
    """Loop count of one step: about `target_s` of this thread's CPU time (CPU time, so that
    a loaded machine does not shrink the step)."""
    n = 1000
    while True:
        start = time.thread_time()
        for _ in range(20):
            work(n)
        per_step = (time.thread_time() - start) / 20
        if per_step > target_s * 0.5:
            return max(1, int(n * target_s / per_step))
        n *= 2


def bare(steps: int, n: int) -> tuple:
    start, cpu = time.perf_counter(), time.thread_time()
    for _ in range(steps):
        work(n)
    return time.perf_counter() - start, time.thread_time() - cpu


def profiled(steps: int, n: int, db: str) -> tuple:
    profiler = kraken.WorkloadProfiler("overhead-bench", sampling_interval=100, db=db)
    start = time.perf_counter()
    with profiler:
        loop_start, cpu, process_cpu = time.perf_counter(), time.thread_time(), time.process_time()
        for _ in range(steps):
            work(n)
            profiler.step()
        loop, loop_cpu = time.perf_counter() - loop_start, time.thread_time() - cpu
        sampler_cpu = time.process_time() - process_cpu - loop_cpu
    return time.perf_counter() - start, loop, loop_cpu, sampler_cpu / loop, profiler.summary.passes


def pct(a: float, b: float) -> float:
    return (a - b) / b * 100


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    n = calibrate()
    db = os.path.join(tempfile.mkdtemp(prefix="kraken-bench-"), "bench.db")
    bare_s, bare_cpu, block_s, loop_s, loop_cpu, sampler, passes = [], [], [], [], [], [], []
    for _ in range(rounds):
        wall, cpu = bare(steps, n)
        bare_s.append(wall)
        bare_cpu.append(cpu)
        block, loop, cpu, sampler_share, p = profiled(steps, n, db)
        block_s.append(block)
        loop_s.append(loop)
        loop_cpu.append(cpu)
        sampler.append(sampler_share)
        passes.append(p)
    med = statistics.median
    print(f"{steps} steps of {med(bare_cpu) / steps * 1e3:.3f} ms CPU ({med(bare_s) / steps * 1e3:.3f} ms wall), "
          f"{rounds} rounds, NVML "
          f"{os.environ.get('KRAKEN_NVML_LIBRARY', 'libnvidia-ml.so.1')}, {med(passes):.0f} passes per run")
    print(f"bare loop:        median {med(bare_s):.4f} s, min {min(bare_s):.4f} s")
    print(f"with profiler:    median {med(block_s):.4f} s, min {min(block_s):.4f} s (whole block: start, steps, stop)")
    print(f"  steps only:     median {med(loop_s):.4f} s, min {min(loop_s):.4f} s")
    print(f"overhead (block): median {pct(med(block_s), med(bare_s)):+.2f} %, min {pct(min(block_s), min(bare_s)):+.2f} %"
          " (target < 1 %)")
    print(f"overhead (steps): median {pct(med(loop_s), med(bare_s)):+.2f} %, min {pct(min(loop_s), min(bare_s)):+.2f} %")
    print(f"main-thread CPU:  bare median {med(bare_cpu):.4f} s, profiled median {med(loop_cpu):.4f} s: "
          f"{pct(med(loop_cpu), med(bare_cpu)):+.2f} % (min {pct(min(loop_cpu), min(bare_cpu)):+.2f} %)")
    print(f"sampling thread:  {med(sampler) * 1e3:.1f} ms CPU per second of run")


if __name__ == "__main__":
    main()

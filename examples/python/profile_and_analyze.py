#!/usr/bin/env python3
"""kraken from Python without PyTorch: profile a block of code, then analyse a recorded trace.

    python3 examples/python/profile_and_analyze.py [--out DIR] [TRACE]

1. WorkloadProfiler samples NVML while a CPU loop runs (on a machine without a GPU, point
   KRAKEN_NVML_LIBRARY at build/src/collectors/nvml/libkraken_nvml_replay.so and
   KRAKEN_NVML_REPLAY at tests/fixtures/nvml/h100.nvml to replay a recorded H100).
2. The trace (default: the ResNet-50 PyTorch trace of the shared data) is characterized,
   diagnosed and scored for disaggregation.
Needs the kraken package importable (PYTHONPATH=build/python after `make build`, or
`pip install build/python`).
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import kraken

DEFAULT_TRACE = "kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"


def profile_cpu_loop(out: Path) -> None:
    profiler = kraken.WorkloadProfiler(workload_name="cpu-loop", sampling_interval=50,
                                       metrics=["gpu_util", "memory", "power"], store=False)
    try:
        profiler.start()
    except kraken.KrakenError as error:
        print(f"profiling skipped: {error}")
        return
    try:
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            sum(i * i for i in range(2000))  # one step of work
            profiler.step()
    finally:
        summary = profiler.stop()
    print(f"profiled {summary.passes} passes every {summary.interval_s} s")
    for gpu in summary.gpus:
        util = gpu.tree_sm_util_pct
        shown = "unknown" if util is None else f"{util.p50} / {util.p90} / {util.p99} %"
        print(f"  gpu {gpu.index} {gpu.name}: tree SM util p50/p90/p99 {shown}, "
              f"memory peak {gpu.tree_memory_peak_bytes / 2**30:.2f} GiB")
    report = profiler.get_report()
    print(f"  report: {report.save(out / 'cpu-loop.html')}")


def analyse_trace(trace: str) -> None:
    analysis = kraken.analyze(trace)
    rank = analysis.ranks[0]
    print(f"{rank.source}: {analysis.workload['type']}, {analysis.kernels['count']} kernels, "
          f"GPU idle {rank.timeline.idle_pct:.2f} %" if rank.timeline else f"{rank.source}: no kernel timeline")
    for diagnosis in kraken.PerformanceTroubleshooter(profile=trace).diagnose():
        print(f"  [{diagnosis.severity}] {diagnosis.summary}")
    for result in kraken.DisaggregationAnalyzer(profile_data=trace).evaluate_all():
        print(f"  disaggregation score {result.score:.3f}, strategy {result.strategy}, "
              f"impact {result.perf_impact.lo:.1%}..{result.perf_impact.hi:.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", help="a trace or capture kraken reads")
    parser.add_argument("--out", default=".", help="folder for the HTML report")
    args = parser.parse_args()
    data = os.environ.get("KRAKEN_DATA_DIR", str(Path(__file__).resolve().parents[2] / ".." / "shared" / "data"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    profile_cpu_loop(out)
    analyse_trace(args.trace or os.path.join(data, DEFAULT_TRACE))


if __name__ == "__main__":
    main()

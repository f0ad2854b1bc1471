#!/usr/bin/env python3
"""Summarizes a kernel trace (kraken's CUPTI tracer or torch.profiler, Kineto schema) over
the measured window of the workload run that made it, so that two traced runs can be told
apart: did the GPU do different work (other kernels, e.g. other cuDNN algorithms, or longer
ones) or was the CPU slower to launch the same work?

    trace_summary.py --trace TRACE[.gz] [--run RUN.json] --out SUMMARY.json [--label NAME]

RUN.json is workloads.py's --out file: its start_unix/end_unix bound the window and its
step count divides it (without it: the whole trace, no per-step figures). A trace cut off
mid-line (a killed process) is read up to its last complete event.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

TOP_KERNELS = 5
COST_KEYS = ("flushes", "flush_ms_total", "flush_ms_max", "writer_cpu_ms", "process_cpu_ms", "traced_ms")
#: The tracer's capture window and kernel timestamp source (docs/kernel-capture.md), when present.
CAPTURE_KEYS = ("window_delay_ms", "window_duration_ms", "window_start_us", "window_end_us", "window", "timestamps",
                "hw_trace_result")


def load_trace(path: str) -> Dict[str, Any]:
    """The trace as a document; an incremental trace cut mid-way is closed after its last
    complete line (every event line of kraken's writer starts with its separator)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        head = text[:text.rfind("\n")] if "\n" in text else text
        return json.loads(head.rstrip().rstrip(",") + "]}")


def window_of(run: Optional[Dict[str, Any]]) -> Tuple[Optional[float], Optional[float]]:
    if not run:
        return None, None
    return run.get("start_unix"), run.get("end_unix")


def events_in_window(trace: Dict[str, Any], categories: Sequence[str], start_unix: Optional[float],
                     end_unix: Optional[float]) -> List[Tuple[str, float]]:
    """(name, duration in us) of every complete event of `categories` starting inside the
    window (all when the window is unknown or the trace has no baseTimeNanoseconds)."""
    base_ns = trace.get("baseTimeNanoseconds")
    bounded = start_unix is not None and end_unix is not None and isinstance(base_ns, (int, float))
    events = []
    for event in trace.get("traceEvents") or []:
        if not isinstance(event, dict) or event.get("ph") != "X" or event.get("cat") not in categories:
            continue
        if bounded:
            start_s = (base_ns + float(event.get("ts", 0.0)) * 1e3) / 1e9
            if not start_unix <= start_s <= end_unix:
                continue
        events.append((str(event.get("name", "")), float(event.get("dur", 0.0))))
    return events


def kernels_in_window(trace: Dict[str, Any], start_unix: Optional[float],
                      end_unix: Optional[float]) -> List[Tuple[str, float]]:
    """(name, duration in us) of every kernel event starting inside the window."""
    return events_in_window(trace, ("kernel",), start_unix, end_unix)


def percentile(sorted_values: List[float], q: float) -> Optional[float]:
    """The nearest-rank q-quantile (0..1) of ascending values; None when empty."""
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def launch_figures(trace: Dict[str, Any], start_unix: Optional[float], end_unix: Optional[float],
                   steps: Optional[int]) -> Dict[str, Any]:
    """The CPU side of launching: how long each launch call took in the window (a tracer
    that slows the calls themselves shows here) and their time per step. With the GPU busy
    fraction this tells a CPU-bound slowdown from a GPU-side one."""
    calls = events_in_window(trace, ("cuda_runtime", "cuda_driver"), start_unix, end_unix)
    launches = sorted(dur for name, dur in calls if "Launch" in name)
    return {
        "api_calls": len(calls),
        "launch_calls": len(launches),
        "launch_us_p50": percentile(launches, 0.5),
        "launch_us_p90": percentile(launches, 0.9),
        "launch_ms_per_step": sum(launches) / 1e3 / steps if steps and launches else None,
    }


def step_launch_profile(trace: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Per ProfilerStep range on the CPU (user_annotation, as torch.profiler and kraken's
    NVTX projection name them), in step order: its length, the GPU kernel time of the
    kernels that ran inside it, and when its last launch call ended, from the step's start.
    A step whose last launch ends close to its end waited on the launching thread (CPU
    bound); one whose kernel time grew waited on the GPU."""
    events = [e for e in trace.get("traceEvents") or [] if isinstance(e, dict) and e.get("ph") == "X"]
    steps = sorted((e for e in events if e.get("cat") == "user_annotation"
                    and str(e.get("name", "")).startswith("ProfilerStep#")), key=lambda e: float(e.get("ts", 0.0)))
    kernels = [(float(e.get("ts", 0.0)), float(e.get("dur", 0.0))) for e in events if e.get("cat") == "kernel"]
    launches = [(float(e.get("ts", 0.0)), float(e.get("dur", 0.0))) for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver") and "Launch" in str(e.get("name", ""))]
    profile = []
    for step in steps:
        start = float(step.get("ts", 0.0))
        end = start + float(step.get("dur", 0.0))
        ends = [ts + dur for ts, dur in launches if start <= ts < end]
        profile.append({"step": str(step.get("name")), "step_ms": (end - start) / 1e3,
                        "kernel_ms": sum(dur for ts, dur in kernels if start <= ts < end) / 1e3,
                        "last_launch_end_ms": (max(ends) - start) / 1e3 if ends else None})
    return profile


def count_categories(trace: Dict[str, Any]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for event in trace.get("traceEvents") or []:
        if isinstance(event, dict) and event.get("ph") == "X":
            cat = str(event.get("cat", ""))
            counts[cat] = counts.get(cat, 0) + 1
    return counts


def summarize(trace: Dict[str, Any], run: Optional[Dict[str, Any]], label: str) -> Dict[str, Any]:
    """Per-step kernel count and time, distinct names, the top kernels by time."""
    start_unix, end_unix = window_of(run)
    kernels = kernels_in_window(trace, start_unix, end_unix)
    by_name: Dict[str, List[float]] = {}
    for name, dur in kernels:
        entry = by_name.setdefault(name, [0, 0.0])
        entry[0] += 1
        entry[1] += dur
    steps = (run or {}).get("steps") if start_unix is not None else None
    total_us = sum(d for _, d in kernels)
    wall_s = (end_unix - start_unix) if start_unix is not None and end_unix is not None else None
    top = sorted(by_name.items(), key=lambda kv: -kv[1][1])
    step_ms = ((run or {}).get("step_ms") or {}).get("p50")
    return {
        "label": label,
        "window": "measured steps" if start_unix is not None else "whole trace",
        "steps": steps,
        "step_p50_ms": step_ms,
        "kernels": len(kernels),
        "kernel_time_ms": total_us / 1e3,
        "kernels_per_step": len(kernels) / steps if steps else None,
        "kernel_ms_per_step": total_us / 1e3 / steps if steps else None,
        # Kernel time over the window's wall time: near 1 means the GPU was the limit.
        "gpu_busy_fraction": total_us / 1e6 / wall_s if wall_s else None,
        "distinct_kernel_names": len(by_name),
        "top_kernels": [{"name": name[:160], "count": c, "time_ms": t / 1e3} for name, (c, t) in top[:TOP_KERNELS]],
        "kernel_names": {name[:160]: c for name, (c, _) in top},
        "events_by_category": count_categories(trace),
        "activities": trace.get("kraken_cupti_activities"),
        "dropped_records": trace.get("kraken_cupti_dropped_records"),
        # kraken's tracer's own cost (its footer): a busy writer or a long flush shows here.
        "tracer_cost": {key: trace.get(f"kraken_cupti_{key}") for key in COST_KEYS},
        "launches": launch_figures(trace, start_unix, end_unix, steps),
        # What the trace covers (a capture window) and how kernels were timed (hw/sw).
        "capture": {key: trace[f"kraken_cupti_{key}"] for key in CAPTURE_KEYS if f"kraken_cupti_{key}" in trace},
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", required=True)
    parser.add_argument("--run", default=None, help="workloads.py's --out file of the traced run")
    parser.add_argument("--out", required=True)
    parser.add_argument("--label", default="")
    args = parser.parse_args(argv)
    try:
        trace = load_trace(args.trace)
    except (OSError, ValueError) as e:
        print(f"trace_summary.py: {args.trace}: not a readable trace: {e}", file=sys.stderr)
        return 2
    run = None
    if args.run:
        try:
            with open(args.run, encoding="utf-8") as f:
                run = json.load(f)
        except (OSError, ValueError) as e:
            print(f"trace_summary.py: {args.run}: not a readable run result: {e}", file=sys.stderr)
            return 2
    summary = summarize(trace, run, args.label)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    per_step = summary["kernels_per_step"]
    print(f"{args.label or args.trace}: {summary['kernels']} kernels, {summary['kernel_time_ms']:.3f} ms"
          + (f", {per_step:.1f} kernels and {summary['kernel_ms_per_step']:.3f} ms per step" if per_step else "")
          + f", {summary['distinct_kernel_names']} distinct names")
    return 0


if __name__ == "__main__":
    sys.exit(main())

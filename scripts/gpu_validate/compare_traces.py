#!/usr/bin/env python3
"""Kernel count and kernel time of two Chrome traces of the same workload, step for step.

    compare_traces.py REFERENCE_TRACE OTHER_TRACE [--out FILE]

The reference is torch.profiler's trace of one run; the other is kraken's CUPTI trace of a
second run of the same program whose steps were NVTX ranges named ProfilerStep#i
(docs/kernel-capture.md "Comparing with torch.profiler"). In each trace a kernel belongs
to step i when the runtime/driver call that launched it (matched by correlation id) lies
inside the CPU range ProfilerStep#i. Only steps present in both traces are compared.
Figures per trace: kernels and their total time (sum of durations) in those steps, also
per kernel name; as a check that needs no launch records, every kernel that ran on the GPU
between the first and last of those kernels; and the kernels in the whole trace. The difference is OTHER vs REFERENCE
in percent.

Plain or gzipped JSON; a trace cut by kill -9 (kraken's tracer declares
incrementalEvents) is read up to its last complete event.
"""
from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import defaultdict
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

STEP_NAME = re.compile(r"^ProfilerStep#(\d+)$")
KERNEL_CATS = {"kernel", "Kernel"}
LAUNCH_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "Driver"}


def load_events(path: str) -> List[Dict[str, Any]]:
    """The traceEvents of a Chrome trace file (gzip or plain)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        text = f.read()
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        document = json.loads(close_cut_trace(text))
    events = document.get("traceEvents", []) if isinstance(document, dict) else document
    return [e for e in events if isinstance(e, dict)]


def close_cut_trace(text: str) -> str:
    """A trace whose writer was killed, closed after its last complete event line: the
    tracer starts every event line with its separator, so dropping the partial last line
    and appending ]} gives valid JSON."""
    body = text[:text.rfind("\n")] if "\n" in text else text
    return body + "\n]}"


def correlation_of(event: Dict[str, Any]) -> Optional[int]:
    args = event.get("args") or {}
    value = args.get("correlation", args.get("correlation id"))
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def step_ranges(events: Iterable[Dict[str, Any]]) -> Dict[int, Tuple[float, float, Any]]:
    """ProfilerStep#i CPU ranges: step -> (start us, end us, pid). GPU projections
    (gpu_user_annotation) are not CPU ranges and are left out."""
    ranges: Dict[int, Tuple[float, float, Any]] = {}
    for e in events:
        match = STEP_NAME.match(str(e.get("name", "")))
        if not match or e.get("ph") != "X" or str(e.get("cat", "")).startswith("gpu_"):
            continue
        start, dur = float(e.get("ts", 0)), float(e.get("dur", 0))
        ranges[int(match.group(1))] = (start, start + dur, e.get("pid"))
    return ranges


def kernels_by_step(events: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Which kernels each step launched, from launch calls inside the step ranges."""
    ranges = step_ranges(events)
    ordered = sorted((start, end, step) for step, (start, end, _) in ranges.items())
    launch_step: Dict[int, int] = {}
    for e in events:
        if e.get("cat") not in LAUNCH_CATS or e.get("ph") != "X":
            continue
        corr = correlation_of(e)
        ts = float(e.get("ts", 0))
        if corr is None:
            continue
        for start, end, step in ordered:
            if start <= ts <= end:
                launch_step[corr] = step
                break
    per_step: Dict[int, List[Tuple[str, float]]] = defaultdict(list)
    spans: Dict[int, Tuple[float, float]] = {}
    kernels: List[Tuple[float, float]] = []
    for e in events:
        if e.get("cat") not in KERNEL_CATS or e.get("ph") != "X":
            continue
        start, dur = float(e.get("ts", 0)), float(e.get("dur", 0))
        kernels.append((start, dur))
        corr = correlation_of(e)
        if corr is not None and corr in launch_step:
            step = launch_step[corr]
            per_step[step].append((str(e.get("name", "")), dur))
            low, high = spans.get(step, (start, start + dur))
            spans[step] = (min(low, start), max(high, start + dur))
    return {"steps": sorted(ranges), "per_step": per_step, "gpu_spans": spans, "kernels": kernels,
            "trace_kernels": len(kernels), "trace_kernel_us": sum(d for _, d in kernels)}


def kernels_in_gpu_window(side: Dict[str, Any], steps: Sequence[int]) -> Dict[str, Any]:
    """Every kernel that started on the GPU between the first and the last kernel the steps
    launched, whether or not its launch call is in the trace (a profiler that misses some
    launch APIs still records their kernels): a check on the launch-based count."""
    spans = [side["gpu_spans"][s] for s in steps if s in side["gpu_spans"]]
    if not spans:
        return {"kernels": 0, "kernel_time_us": 0.0}
    low, high = min(s[0] for s in spans), max(s[1] for s in spans)
    inside = [d for start, d in side["kernels"] if low <= start < high]
    return {"kernels": len(inside), "kernel_time_us": round(sum(inside), 3)}


def summarize(side: Dict[str, Any], steps: Sequence[int]) -> Dict[str, Any]:
    """Kernel count, total time and per-name figures over the chosen steps."""
    names: Dict[str, List[float]] = defaultdict(lambda: [0, 0.0])
    count = 0
    total = 0.0
    for step in steps:
        for name, dur in side["per_step"].get(step, []):
            count += 1
            total += dur
            names[name][0] += 1
            names[name][1] += dur
    return {"kernels": count, "kernel_time_us": round(total, 3), "distinct_names": len(names),
            "trace_kernels": side["trace_kernels"], "trace_kernel_time_us": round(side["trace_kernel_us"], 3),
            "by_name": {n: {"count": int(v[0]), "time_us": round(v[1], 3)} for n, v in names.items()}}


def pct_diff(other: float, reference: float) -> Optional[float]:
    return None if reference == 0 else round((other - reference) / reference * 100.0, 4)


def compare(reference_path: str, other_path: str) -> Dict[str, Any]:
    """The comparison document (see the module docstring)."""
    reference = kernels_by_step(load_events(reference_path))
    other = kernels_by_step(load_events(other_path))
    steps = sorted(set(reference["steps"]) & set(other["steps"]))
    ref, oth = summarize(reference, steps), summarize(other, steps)
    names = set(ref["by_name"]) | set(oth["by_name"])
    mismatched = sorted(n for n in names if ref["by_name"].get(n, {}).get("count") != oth["by_name"].get(n, {}).get("count"))
    return {
        "reference": reference_path, "other": other_path, "steps_compared": steps,
        "reference_steps": reference["steps"], "other_steps": other["steps"],
        "kernels": {"reference": ref["kernels"], "other": oth["kernels"],
                    "diff_pct": pct_diff(oth["kernels"], ref["kernels"])},
        "kernel_time_us": {"reference": ref["kernel_time_us"], "other": oth["kernel_time_us"],
                           "diff_pct": pct_diff(oth["kernel_time_us"], ref["kernel_time_us"])},
        "gpu_window": {"reference": kernels_in_gpu_window(reference, steps),
                       "other": kernels_in_gpu_window(other, steps)},
        "names_with_different_counts": mismatched[:50],
        "reference_summary": {k: v for k, v in ref.items() if k != "by_name"},
        "other_summary": {k: v for k, v in oth.items() if k != "by_name"},
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("other")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    result = compare(args.reference, args.other)
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    k, t = result["kernels"], result["kernel_time_us"]
    print(f"steps compared: {len(result['steps_compared'])}; kernels {k['reference']} vs {k['other']} "
          f"({k['diff_pct']} %); kernel time {t['reference']:.1f} vs {t['other']:.1f} us ({t['diff_pct']} %)")
    return 0 if result["steps_compared"] else 1


if __name__ == "__main__":
    sys.exit(main())

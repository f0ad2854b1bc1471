#!/usr/bin/env python3
"""Phase 9's checks (scripts/gpu_validate/phase_9.sh): what the tracer made of the features
no GPU had run before, read from its trace. Each check writes a JSON verdict and prints one
line; it exits 0 when the trace shows what it should, 1 when not, 2 on a bad input.

    features_check.py nvtx-window --trace T --first ProfilerStep#10 --steps 20 --out J
    features_check.py graph --trace T --run RUN.json --out J
    features_check.py counters --trace T [--run RUN.json] --out J

nvtx-window: a window started by KRAKEN_CUPTI_START_ON_NVTX holds the NVTX range it started
on and every later one (`--steps` of them), no kernel before the range's push, and the
same kernels in every step. graph: every replayed node of a CUDA graph is a kernel record
(RUN.json's kernels_per_step in each measured step). counters: per kernel name, how many
counter ranges, their FLOPs (DRAM bytes without FLOP counters), and how many ranges measured
a count unlike their name's median (a pairing of ranges with kernels that went wrong), plus
the counter footer (untied batches). FLOPs, not bytes: they do not depend on what the L2
cache held, and phase 9's two threads give one kernel 4x the elements of the other.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any, Dict, List, Optional, Sequence

from counters_check import ranges_of
from trace_summary import kernels_in_window, load_trace

#: A counter range whose count is this far from its kernel name's median measured another
#: kernel (phase 9's threads give one kernel 4x the elements of the other).
MISMATCH_FACTOR = 1.5


def events(trace: Dict[str, Any], category: str) -> List[Dict[str, Any]]:
    return [e for e in trace.get("traceEvents") or [] if isinstance(e, dict) and e.get("cat") == category]


def check_nvtx_window(trace: Dict[str, Any], first: str, steps: int) -> Dict[str, Any]:
    """The NVTX-started window: its first range, the ranges after it, the kernels per step."""
    prefix = first.rsplit("#", 1)[0] + "#"
    ranges = sorted((e for e in events(trace, "user_annotation") if str(e.get("name", "")).startswith(prefix)),
                    key=lambda e: float(e.get("ts", 0.0)))
    kernels = sorted(float(e.get("ts", 0.0)) for e in events(trace, "kernel"))
    per_step = []
    for r in ranges:
        begin, end = float(r.get("ts", 0.0)), float(r.get("ts", 0.0)) + float(r.get("dur", 0.0))
        per_step.append(sum(1 for k in kernels if begin <= k < end))
    # Other NVTX ranges the injected NVTX recorded (cuDNN's or cuBLAS's own, if they emit
    # any): a lead on why injecting NVTX cost ResNet-50 +12.8 % in run 3.
    others: Dict[str, int] = {}
    for e in events(trace, "user_annotation"):
        name = str(e.get("name", ""))
        if not name.startswith(prefix):
            others[name[:80]] = others.get(name[:80], 0) + 1
    start = trace.get("kraken_cupti_window_start_us")
    before = sum(1 for k in kernels if ranges and k < float(ranges[0].get("ts", 0.0)))
    ok = (bool(ranges) and ranges[0].get("name") == first and len(ranges) == steps and before == 0
          and start is not None and len(set(per_step[1:-1] or per_step)) == 1 and per_step[0] > 0)
    return {"check": "nvtx-window", "ok": ok, "first_range": ranges[0].get("name") if ranges else None,
            "wanted_first": first, "ranges": len(ranges), "wanted_ranges": steps, "window_start_us": start,
            "kernels": len(kernels), "kernels_before_first_range": before, "kernels_per_step": per_step,
            "window": trace.get("kraken_cupti_window"),
            "other_ranges": sum(others.values()),
            "other_ranges_top": dict(sorted(others.items(), key=lambda kv: -kv[1])[:10])}


def check_graph(trace: Dict[str, Any], run: Dict[str, Any]) -> Dict[str, Any]:
    """Every node of every replay: the measured window's kernels against steps x nodes."""
    kernels = kernels_in_window(trace, run.get("start_unix"), run.get("end_unix"))
    nodes = int((run.get("facts") or {}).get("kernels_per_step") or 0)
    steps = int(run.get("steps") or 0)
    names: Dict[str, int] = {}
    for name, _ in kernels:
        names[name] = names.get(name, 0) + 1
    wanted = nodes * steps
    # The window's edges may cut a replay: at most one graph's worth either way.
    ok = wanted > 0 and abs(len(kernels) - wanted) <= nodes
    return {"check": "graph", "ok": ok, "kernels": len(kernels), "wanted": wanted, "steps": steps,
            "graph_nodes": nodes, "kernel_names": names}


def check_counters(trace: Dict[str, Any]) -> Dict[str, Any]:
    """Counter ranges by kernel name; ranges whose FLOPs (or bytes) belong to another kernel."""
    grouped = ranges_of(trace)
    names = {}
    mismatched = 0
    for name, entry in grouped["kernels"].items():
        known = entry["flops"] or entry["dram_bytes"]
        median = statistics.median(known) if known else None
        odd = sum(1 for v in known if median and not median / MISMATCH_FACTOR <= v <= median * MISMATCH_FACTOR)
        mismatched += odd
        names[name[:160]] = {"ranges": entry["ranges"], "flops_or_bytes_median": median, "unlike_the_median": odd}
    ranges = sum(entry["ranges"] for entry in grouped["kernels"].values())
    return {"check": "counters", "ok": ranges > 0 and mismatched == 0, "kernels": len(events(trace, "kernel")),
            "ranges": ranges, "ranges_unlike_their_kernel": mismatched, "by_name": names,
            "footer": grouped["footer"]}


def summary_line(result: Dict[str, Any]) -> str:
    c = result["check"]
    if c == "nvtx-window":
        return (f"nvtx-window: first range {result['first_range']} (wanted {result['wanted_first']}), "
                f"{result['ranges']} of {result['wanted_ranges']} ranges, {result['kernels_before_first_range']} "
                f"kernels before it, kernels per step {sorted(set(result['kernels_per_step']))}, "
                f"{result['other_ranges']} other NVTX ranges")
    if c == "graph":
        return (f"graph: {result['kernels']} kernels in {result['steps']} replays of {result['graph_nodes']} nodes "
                f"(wanted {result['wanted']})")
    return (f"counters: {result['ranges']} ranges for {result['kernels']} kernels, "
            f"{result['ranges_unlike_their_kernel']} unlike their kernel's FLOPs")


def load_json(path: Optional[str]) -> Dict[str, Any]:
    if not path:
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("check", choices=("nvtx-window", "graph", "counters"))
    parser.add_argument("--trace", required=True)
    parser.add_argument("--run", help="workloads.py's --out file of the traced run")
    parser.add_argument("--first", default="ProfilerStep#10", help="the NVTX range the window started on")
    parser.add_argument("--steps", type=int, default=20, help="NVTX ranges expected from it on")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    try:
        trace = load_trace(args.trace)
        run = load_json(args.run)
    except (OSError, ValueError) as e:
        print(f"features_check: {e}", file=sys.stderr)
        return 2
    if args.check == "nvtx-window":
        result = check_nvtx_window(trace, args.first, args.steps)
    elif args.check == "graph":
        if not run:
            print("features_check: graph needs --run", file=sys.stderr)
            return 2
        result = check_graph(trace, run)
    else:
        result = check_counters(trace)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    print(("ok " if result["ok"] else "NOT ok ") + summary_line(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

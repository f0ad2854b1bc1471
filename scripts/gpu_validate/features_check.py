#!/usr/bin/env python3
"""Phase 9's checks (scripts/gpu_validate/phase_9.sh): what the tracer made of the features
no GPU had run before, read from its trace. Each check writes a JSON verdict and prints one
line; it exits 0 when the trace shows what it should, 1 when not, 2 on a bad input.

    features_check.py nvtx-window --trace T --first ProfilerStep#10 --steps 20 --out J
    features_check.py graph --trace T --run RUN.json --out J
    features_check.py counters --trace T --out J

nvtx-window: a window started by KRAKEN_CUPTI_START_ON_NVTX holds the NVTX range it started
on and every later one (`--steps` of them), no kernel before the range's push, and the
same kernels in every step. graph: every replayed node of a CUDA graph is a kernel record:
each graph node id as many times as RUN.json's warm-up and measured steps (one replay
each). counters: per kernel name, how many counter ranges, their FLOPs (DRAM bytes without FLOP counters), and how many ranges measured
a count unlike their name's median (a pairing of ranges with kernels that went wrong), plus
the counter footer (untied batches). FLOPs, not bytes: they do not depend on what the L2
cache held, and phase 9's two threads give one kernel 4x the elements of the other.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from counters_check import ranges_of
from trace_summary import load_trace

#: A counter range whose count is this far from its kernel name's median measured another
#: kernel (phase 9's threads give one kernel 4x the elements of the other).
MISMATCH_FACTOR = 1.5
#: The name of a counter range the tracer could not pair with its launch (its batch had more
#: ranges than launches: a CUDA graph's kernels), written untied (docs/kernel-counters.md).
UNTIED = "__missing__"


def events(trace: Dict[str, Any], category: str) -> List[Dict[str, Any]]:
    return [e for e in trace.get("traceEvents") or [] if isinstance(e, dict) and e.get("cat") == category]


def check_nvtx_window(trace: Dict[str, Any], first: str, steps: int) -> Dict[str, Any]:
    """The NVTX-started window: its first range, the ranges after it, the kernels per step."""
    prefix = first.rsplit("#", 1)[0] + "#"
    annotations = events(trace, "user_annotation")
    ranges = sorted((e for e in annotations if str(e.get("name", "")).startswith(prefix)),
                    key=lambda e: float(e.get("ts", 0.0)))
    kernels = sorted(float(e.get("ts", 0.0)) for e in events(trace, "kernel"))
    per_step = []
    for r in ranges:
        begin, end = float(r.get("ts", 0.0)), float(r.get("ts", 0.0)) + float(r.get("dur", 0.0))
        per_step.append(sum(1 for k in kernels if begin <= k < end))
    # Other NVTX ranges the injected NVTX recorded (cuDNN's or cuBLAS's own, if they emit
    # any): a lead on why injecting NVTX cost ResNet-50 +12.8 % in run 3.
    others: Dict[str, int] = {}
    for e in annotations:
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


def graph_kernels(trace: Dict[str, Any]) -> Tuple[Dict[int, int], Dict[str, int]]:
    """The trace's graph kernels (those with a "graph node id"), counted by node id and by name."""
    nodes: Dict[int, int] = {}
    names: Dict[str, int] = {}
    for e in events(trace, "kernel"):
        node = (e.get("args") or {}).get("graph node id")
        if isinstance(node, (int, float)):
            nodes[int(node)] = nodes.get(int(node), 0) + 1
            name = str(e.get("name", ""))
            names[name] = names.get(name, 0) + 1
    return nodes, names


def launch_clock_offset_us(trace: Dict[str, Any], run: Dict[str, Any]) -> Optional[float]:
    """The first measured cudaGraphLaunch record's start minus the run's start_unix (us): how
    far the trace's clock sits from the workload's time.time() (a launch made right after
    it; run 10 found ~-0.8 ms, so the check counts replays, not kernels in a time window)."""
    launches = sorted(float(e.get("ts", 0.0)) for e in events(trace, "cuda_runtime")
                      if str(e.get("name", "")).startswith("cudaGraphLaunch"))
    warmup = int(run.get("warmup_steps") or 0)
    base = trace.get("baseTimeNanoseconds")
    if run.get("start_unix") is None or not isinstance(base, (int, float)) or len(launches) <= warmup:
        return None
    return launches[warmup] - (float(run["start_unix"]) * 1e9 - float(base)) / 1e3


def check_graph(trace: Dict[str, Any], run: Dict[str, Any]) -> Dict[str, Any]:
    """Every node of every replay: each graph node's kernel records against the replays the
    run made (its warm-up and measured steps, one replay each), without any clock."""
    facts = run.get("facts") or {}
    nodes = int(facts.get("graph_nodes") or facts.get("kernels_per_step") or 0)
    replays = int(run.get("steps") or 0) + int(run.get("warmup_steps") or 0)
    by_node, names = graph_kernels(trace)
    counts = sorted(set(by_node.values()))
    ok = replays > 0 and len(by_node) == nodes and counts == [replays]
    return {"check": "graph", "ok": ok, "kernels": sum(by_node.values()), "wanted": nodes * replays,
            "replays": replays, "graph_nodes": nodes, "nodes_seen": len(by_node),
            "replays_per_node": counts[:10], "kernel_names": names,
            "dropped_records": trace.get("kraken_cupti_dropped_records"),
            "trace_minus_host_clock_us": launch_clock_offset_us(trace, run)}


def check_counters(trace: Dict[str, Any]) -> Dict[str, Any]:
    """Counter ranges by kernel name; ranges whose FLOPs (or bytes) belong to another kernel."""
    grouped = ranges_of(trace)
    names = {}
    mismatched = 0
    for name, entry in grouped["kernels"].items():
        if name == UNTIED:
            continue  # a batch written untied measured several kernels: no median to hold them to
        known = entry["flops"] or entry["dram_bytes"]
        median = statistics.median(known) if known else None
        odd = sum(1 for v in known if median and not median / MISMATCH_FACTOR <= v <= median * MISMATCH_FACTOR)
        mismatched += odd
        names[name[:160]] = {"ranges": entry["ranges"], "flops_or_bytes_median": median, "unlike_the_median": odd}
    ranges = sum(entry["ranges"] for entry in grouped["kernels"].values())
    untied = grouped["kernels"].get(UNTIED, {}).get("ranges", 0)
    return {"check": "counters", "ok": ranges > 0 and mismatched == 0, "kernels": len(events(trace, "kernel")),
            "ranges": ranges, "ranges_untied": untied, "ranges_unlike_their_kernel": mismatched, "by_name": names,
            # Run 10b's counter traces found CUPTI's activity buffers all in flight: records dropped.
            "buffers_refused": trace.get("kraken_cupti_buffers_refused"),
            "dropped_records": trace.get("kraken_cupti_dropped_records"),
            "footer": grouped["footer"]}


def summary_line(result: Dict[str, Any]) -> str:
    c = result["check"]
    if c == "nvtx-window":
        return (f"nvtx-window: first range {result['first_range']} (wanted {result['wanted_first']}), "
                f"{result['ranges']} of {result['wanted_ranges']} ranges, {result['kernels_before_first_range']} "
                f"kernels before it, kernels per step {sorted(set(result['kernels_per_step']))}, "
                f"{result['other_ranges']} other NVTX ranges")
    if c == "graph":
        return (f"graph: {result['kernels']} graph kernels on {result['nodes_seen']} of {result['graph_nodes']} "
                f"nodes, each node {result['replays_per_node']} times (wanted {result['replays']} replays: "
                f"{result['wanted']} kernels)")
    return (f"counters: {result['ranges']} ranges ({result['ranges_untied']} untied) for {result['kernels']} "
            f"kernel records, {result['ranges_unlike_their_kernel']} unlike their kernel's FLOPs")


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

#!/usr/bin/env python3
"""Independent recomputation of GPU timeline figures from Kineto JSON traces.

Standard library only and no kraken code: the figures pasted into
src/analysis/timeline_golden_test.cc (marked "independent") came from running this once.

  scripts/crosscheck_timeline.py tracelens TRACE...  whole-trace breakdown with TraceLens'
      classes, with all GPU events and with only those whose correlation id matches a
      runtime call (TraceLens' default include_unlinked_kernels=False)
  scripts/crosscheck_timeline.py hta TRACE...        HTA's temporal breakdown and comm/comp
      overlap, exact ns (HTA_DISABLE_NS_ROUNDING=1): HTA's event selection (args.stream
      present and != -1; the last ProfilerStep dropped when there are two or more) and its
      name-regex kernel types

Timestamps: the µs text is read as Decimal and turned into integer ns (half-up), so no
float rounding enters the comparison.
"""
import decimal
import gzip
import json
import re
import sys


def to_ns(value):
    return int((decimal.Decimal(value) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def load_events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f, parse_float=decimal.Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data


def complete(events, cats):
    return [e for e in events if e.get("ph") == "X" and "ts" in e and e.get("cat") in cats]


def span(e):
    start = to_ns(e["ts"])
    return start, start + max(to_ns(e.get("dur", 0)), 0)


def merge(intervals):
    out = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out


def total(merged):
    return sum(end - start for start, end in merged)


def subtract(a, b):
    """Parts of merged set a not covered by merged set b."""
    out, j = [], 0
    for start, end in a:
        while j < len(b) and b[j][1] <= start:
            j += 1
        k, cur = j, start
        while k < len(b) and b[k][0] < end:
            if b[k][0] > cur:
                out.append([cur, b[k][0]])
            cur = max(cur, b[k][1])
            k += 1
        if cur < end:
            out.append([cur, end])
    return out


RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "mtia_runtime", "xpu_runtime", "xpu_driver"}
GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "mtia_ccp_events"}
TL_COMM = re.compile(r"nccl|rccl|cross_device_reduce", re.I)


def tracelens_class(e):
    if e["cat"] in ("gpu_memcpy", "Memcpy") or (e["cat"] == "mtia_ccp_events" and e["name"].startswith("dma")):
        return "memcpy"
    if e["cat"] in ("kernel", "Kernel", "mtia_ccp_events") and TL_COMM.search(e["name"]):
        return "comm"
    return "compute"


def tracelens_breakdown(gpu):
    if not gpu:
        return None
    intervals = [(span(e), tracelens_class(e)) for e in gpu]
    by_class = {c: merge(i for i, k in intervals if k == c) for c in ("compute", "comm", "memcpy")}
    busy = total(merge(i for i, _ in intervals))
    window = max(i[1] for i, _ in intervals) - min(i[0] for i, _ in intervals)
    exposed_memcpy = subtract(subtract(by_class["memcpy"], by_class["compute"]), by_class["comm"])
    return dict(events=len(gpu), total=window, busy=busy, idle=window - busy,
                idle_pct=round(100.0 * (window - busy) / window, 4) if window else 0,
                compute=total(by_class["compute"]), comm=total(by_class["comm"]),
                exposed_comm=total(subtract(by_class["comm"], by_class["compute"])),
                memcpy=total(by_class["memcpy"]), exposed_memcpy=total(exposed_memcpy))


def run_tracelens(path):
    events = load_events(path)
    gpu = complete(events, GPU_CATS)
    linked_ids = {e.get("args", {}).get("correlation") for e in complete(events, RUNTIME_CATS)}
    linked = [e for e in gpu if e.get("args", {}).get("correlation") in linked_ids]
    print(path)
    print("  all   ", tracelens_breakdown(gpu))
    print("  linked", tracelens_breakdown(linked))


HTA_COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
HTA_MEMORY = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
HTA_NOT_COMPUTE = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)|"
    r"(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution)")


def hta_type(name):
    if HTA_COMM.match(name):
        return "comm"
    if HTA_MEMORY.match(name):
        return "memory"
    return "other" if HTA_NOT_COMPUTE.match(name) else "compute"


def run_hta(path):
    events = load_events(path)
    steps = [e for e in complete(events, {"user_annotation", "cpu_op", "Operator"})
             if e.get("name", "").startswith("ProfilerStep#")]
    gpu = [e for e in complete(events, GPU_CATS) if e.get("args", {}).get("stream", -1) != -1]
    if len(steps) >= 2:  # HTA drops the last step: GPU work launched from its start on
        last_start = max(to_ns(e["ts"]) for e in steps)
        kept = {e.get("args", {}).get("correlation") for e in complete(events, RUNTIME_CATS)
                if to_ns(e["ts"]) < last_start}
        gpu = [e for e in gpu if e.get("args", {}).get("correlation") in kept]
    typed = [(span(e), hta_type(e["name"])) for e in gpu]
    busy = merge(i for i, _ in typed)
    compute = merge(i for i, t in typed if t == "compute")
    comm = merge(i for i, t in typed if t == "comm")
    window = busy[-1][1] - busy[0][0]
    idle = window - total(busy)
    print(path)
    print(f"  events {len(gpu)} span {window} idle {idle} compute {total(compute)} "
          f"non-compute {window - idle - total(compute)} idle% {100 * idle / window:.4f} "
          f"compute% {100 * total(compute) / window:.4f}")
    if comm:
        exposed = total(subtract(comm, compute))
        print(f"  comm {total(comm)} exposed {exposed} overlap% {100 * (total(comm) - exposed) / total(comm):.4f}")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("tracelens", "hta"):
        sys.exit(__doc__)
    for trace in sys.argv[2:]:
        (run_tracelens if sys.argv[1] == "tracelens" else run_hta)(trace)

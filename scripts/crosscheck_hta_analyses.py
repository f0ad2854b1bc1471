#!/usr/bin/env python3
"""Independent recomputation of the HTA-style figures of `kraken analyze` from Kineto JSON.

Standard library only and no kraken code: the figures marked "independent" in
src/analysis/trace_insights_test.cc came from running this once on the shared traces.

  scripts/crosscheck_hta_analyses.py idle TRACE...       HTA's idle time breakdown per
      stream (gaps between consecutive GPU events of a stream: host wait when the next
      event's runtime call started after the gap began, kernel wait when queued and the
      gap is under 30 ns, other otherwise) and the same rule over the union of streams
  scripts/crosscheck_hta_analyses.py counters TRACE...   memcpy/memset bytes and
      bytes / summed duration per kind, and the peak "Total Allocated" of [memory] events

Timestamps: the µs text is read as Decimal and turned into integer ns (half-up), so no
float rounding enters the comparison (16-digit epoch µs do not fit a double's mantissa x 1000).
"""
import decimal
import gzip
import json
import sys
from collections import defaultdict
from typing import Any, Dict, List, Optional, Tuple

RUNTIME_CATS = ("cuda_runtime", "cuda_driver", "runtime", "hip_runtime")
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset")
KERNEL_WAIT_NS = 30  # HTA's consecutive_kernel_delay default


def ns(us: Any) -> int:
    """Microseconds (int or Decimal, as parsed) to integer nanoseconds."""
    return int((decimal.Decimal(us) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def load_events(path: str) -> List[Dict[str, Any]]:
    """The dict entries of traceEvents."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [e for e in json.load(f, parse_float=decimal.Decimal)["traceEvents"] if isinstance(e, dict)]


def classify(gap: int, launch: Optional[int], prev_end: int) -> str:
    """HTA's category of one idle gap."""
    if launch is not None and launch > prev_end:
        return "host_wait"
    return "kernel_wait" if gap < KERNEL_WAIT_NS else "other"


def idle(path: str) -> None:
    """Prints the per-stream and union idle breakdown of one trace."""
    evs = [e for e in load_events(path) if e.get("ph") == "X"]
    launch = {}
    for e in evs:
        if e.get("cat", "").lower() in RUNTIME_CATS and "correlation" in e.get("args", {}):
            launch.setdefault(e["args"]["correlation"], ns(e["ts"]))
    by_stream: Dict[Tuple[Any, Any], List[Tuple[int, int, Optional[int]]]] = defaultdict(list)
    for e in evs:
        if e.get("cat", "").lower() not in GPU_CATS:
            continue
        a = e.get("args", {})
        start = ns(e["ts"])
        by_stream[(a.get("device", -1), a.get("stream", -1))].append(
            (start, start + max(0, ns(e.get("dur", 0))), launch.get(a.get("correlation"))))
    print("==", path)
    for key in sorted(by_stream, key=str):
        xs = sorted(by_stream[key])
        parts: Dict[str, int] = defaultdict(int)
        for prev, cur in zip(xs, xs[1:]):
            gap = cur[0] - prev[1]
            if gap > 0:
                parts[classify(gap, cur[2], prev[1])] += gap
        print("  stream", key, dict(parts))
    events = sorted(x for v in by_stream.values() for x in v)
    parts = defaultdict(int)
    busy: Optional[int] = None
    for start, end, lau in events:
        if busy is not None and start > busy:
            parts[classify(start - busy, lau, busy)] += start - busy
        busy = end if busy is None else max(busy, end)
    print("  union", dict(parts))


def counters(path: str) -> None:
    """Prints memcpy/memset sums per kind and the allocator's peak."""
    evs = load_events(path)
    kinds: Dict[str, List[int]] = defaultdict(lambda: [0, 0, 0])
    best: Optional[Tuple[float, Any, Any, Any]] = None
    for e in evs:
        cat = e.get("cat", "").lower()
        if e.get("ph") == "X" and cat in ("gpu_memcpy", "gpu_memset", "memcpy", "memset"):
            kind = e["name"].split(" ")[1] if "memcpy" in cat else "memset"
            k = kinds[kind]
            k[0] += 1
            k[1] += e.get("args", {}).get("bytes", 0)
            k[2] += ns(e["dur"])
        if e.get("ph") in ("i", "I") and e.get("name") == "[memory]":
            a = e.get("args", {})
            if a.get("Device Id", -1) >= 0 and "Total Allocated" in a:
                if best is None or a["Total Allocated"] > best[0]:
                    best = (a["Total Allocated"], e["ts"], a.get("Total Reserved"), a["Device Id"])
    print("==", path)
    for kind, (n, b, t) in sorted(kinds.items()):
        print("  ", kind, "ops", n, "bytes", b, "GB/s", b / t if t else 0)
    if best:
        print("   peak allocated", best[0], "reserved then", best[2], "device", best[3])


if __name__ == "__main__":
    mode, paths = sys.argv[1], sys.argv[2:]
    for p in paths:
        (idle if mode == "idle" else counters)(p)

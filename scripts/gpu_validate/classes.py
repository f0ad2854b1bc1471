#!/usr/bin/env python3
"""kraken's roofline class of each kernel from Nsight Compute's metrics vs from its name.

    classes.py NCU_ANALYSIS.json TRACE_ANALYSIS.json [--out FILE]

Both inputs are `kraken analyze --json --top 1000` documents: one of the ncu CSV (the
kernels classified from hardware counters: basis roofline or throughput) and one of a
trace of the same program (Kineto or CUPTI: the same kernels classified by the name
heuristic, grid and duration). Kernels are matched by base name: the demangled name up
to its parameter list, without a leading return type `void `, so ncu's and CUPTI's
spellings of one function meet. The output lists each matched kernel with both classes
and whether they agree, and the agreement rate.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Optional, Sequence


def base_name(name: str) -> str:
    """`void saxpy(int, float, const float *, float *)` -> `saxpy`; templates kept whole
    (`void at::native::elementwise_kernel<128, 4, ...>(...)` -> up to the parameter list)."""
    text = name.strip()
    if text.startswith("void "):
        text = text[len("void "):]
    depth = 0
    for i, ch in enumerate(text):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0:
            return text[:i].strip()
    return text


def kernel_classes(document: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """Base name -> the first (longest-running) classified entry of kernels.top[]."""
    out: Dict[str, Dict[str, Any]] = {}
    for k in (document.get("kernels") or {}).get("top") or []:
        key = base_name(str(k.get("name", "")))
        if key and key not in out:
            out[key] = {"name": k.get("name"), "bound": k.get("bound"), "side": k.get("side"),
                        "basis": k.get("basis"), "reason": k.get("reason"), "total_us": k.get("total_us"),
                        "arithmetic_intensity": k.get("arithmetic_intensity"),
                        "compute_pct_of_peak": k.get("compute_pct_of_peak"),
                        "memory_pct_of_peak": k.get("memory_pct_of_peak")}
    return out


def compare(ncu_doc: Dict[str, Any], trace_doc: Dict[str, Any]) -> Dict[str, Any]:
    """The matched kernels and the agreement of their classes (bound and side)."""
    measured = kernel_classes(ncu_doc)
    named = kernel_classes(trace_doc)
    rows: List[Dict[str, Any]] = []
    for key, m in measured.items():
        n = named.get(key)
        rows.append({"kernel": key, "ncu": m, "name": n,
                     "bound_agrees": None if n is None else m["bound"] == n["bound"],
                     "side_agrees": None if n is None else m["side"] == n["side"]})
    matched = [r for r in rows if r["name"] is not None]
    agree = sum(1 for r in matched if r["bound_agrees"])
    side = sum(1 for r in matched if r["side_agrees"])
    return {"kernels_measured": len(measured), "kernels_matched": len(matched),
            "bound_agreement": None if not matched else f"{agree}/{len(matched)}",
            "side_agreement": None if not matched else f"{side}/{len(matched)}", "kernels": rows}


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ncu_analysis")
    parser.add_argument("trace_analysis")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    with open(args.ncu_analysis, encoding="utf-8") as f:
        ncu_doc = json.load(f)
    with open(args.trace_analysis, encoding="utf-8") as f:
        trace_doc = json.load(f)
    result = compare(ncu_doc, trace_doc)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    for r in result["kernels"]:
        n = r["name"] or {}
        print(f"{r['kernel'][:60]:60s} ncu: {r['ncu']['bound']}/{r['ncu']['side']} ({r['ncu']['basis']})  "
              f"name: {n.get('bound')}/{n.get('side')} ({n.get('basis')})")
    print(f"bound agreement {result['bound_agreement']}, side agreement {result['side_agreement']}")
    return 0 if result["kernels_matched"] else 1


if __name__ == "__main__":
    sys.exit(main())

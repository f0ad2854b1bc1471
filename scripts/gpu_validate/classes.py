#!/usr/bin/env python3
"""kraken's roofline class of each kernel from Nsight Compute's metrics vs from its name.

    classes.py NCU_ANALYSIS.json TRACE_ANALYSIS.json [--out FILE]

Both inputs are `kraken analyze --json --top 1000` documents: one of the ncu CSV (the
kernels classified from hardware counters: basis roofline or throughput) and one of a
trace of the same program (Kineto or CUPTI: the same kernels classified by the name
heuristic, grid and duration). Kernels are matched by base name: the demangled name up
to its parameter list, without a leading return type `void `. ncu and CUPTI demangle the
same symbol differently (`<unnamed>::saxpy` vs `(anonymous namespace)::saxpy`,
`const float *` vs `float const*`, template arguments `0, 1, 2` vs `false, true,
(cudnnKernelDataType_t)2`, `2` vs `2ul`, `>>` vs `> >`, and ncu leaves out some inner
namespaces: `cudnn::` for `cudnn::engines_precompiled::`), so each name is reduced to a
spelling-free key, tried from the most to the least specific (match_keys): the
normalized name, then without namespace qualifiers, then without template arguments when
only one trace kernel has that name. The output lists each matched kernel with both
classes, how it was matched, whether they agree, and the agreement rate.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple


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


#: Spellings of the anonymous namespace: GCC/CUPTI's and ncu's, and the Itanium demangler's.
ANONYMOUS_NAMESPACE = re.compile(r"\(anonymous namespace\)|<unnamed>|\{anonymous\}|`anonymous namespace'")
#: A C-style cast of a template argument, `(cudnnKernelDataType_t)2` -> `2`.
CAST_ARGUMENT = re.compile(r"\((?:\w|::)+\)\s*(-?\d)")
#: An integer literal's suffix, `2ul` -> `2`.
INTEGER_SUFFIX = re.compile(r"\b(\d+)(?:ull|ul|ll|u|l)\b", re.I)
NAMESPACE_QUALIFIER = re.compile(r"\b\w+::")


def normalized(name: str) -> str:
    """The base name with the demanglers' differences removed (see the module docstring)."""
    text = ANONYMOUS_NAMESPACE.sub("anon", name)
    text = base_name(text)
    text = CAST_ARGUMENT.sub(r"\1", text)
    text = INTEGER_SUFFIX.sub(r"\1", text)
    text = re.sub(r"\btrue\b", "1", re.sub(r"\bfalse\b", "0", text))
    text = re.sub(r"\bconst\b", "", text)
    return re.sub(r"\s+", "", text)


def without_templates(key: str) -> str:
    """`f<a<b>,c>::g<d>` -> `f::g`: a key without its template arguments."""
    out, depth = [], 0
    for ch in key:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def match_keys(name: str) -> List[Tuple[str, str]]:
    """(how, key) from the most to the least specific: `exact` (normalized), `unqualified`
    (namespace qualifiers dropped, also inside template arguments), `no-templates`."""
    exact = normalized(name)
    unqualified = NAMESPACE_QUALIFIER.sub("", exact)
    return [("exact", exact), ("unqualified", unqualified), ("no-templates", without_templates(unqualified))]


def class_entry(k: Dict[str, Any]) -> Dict[str, Any]:
    """The fields of a kernels.top[] entry that the comparison shows."""
    return {"name": k.get("name"), "bound": k.get("bound"), "side": k.get("side"),
            "basis": k.get("basis"), "reason": k.get("reason"), "total_us": k.get("total_us"),
            "arithmetic_intensity": k.get("arithmetic_intensity"),
            "compute_pct_of_peak": k.get("compute_pct_of_peak"),
            "memory_pct_of_peak": k.get("memory_pct_of_peak")}


def kernel_classes(document: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """Base name -> the first (longest-running) classified entry of kernels.top[]."""
    out: Dict[str, Dict[str, Any]] = {}
    for k in (document.get("kernels") or {}).get("top") or []:
        key = base_name(str(k.get("name", "")))
        if key and key not in out:
            out[key] = class_entry(k)
    return out


class NameIndex:
    """The trace's kernels by each kind of match key; a key several different kernels
    share is ambiguous at that level (no-templates) or resolved to the longest-running
    one (the others: kernels.top[] is sorted by total time)."""

    def __init__(self, document: Dict[str, Any]) -> None:
        self.by_key: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
        for k in (document.get("kernels") or {}).get("top") or []:
            for how, key in match_keys(str(k.get("name", ""))):
                entries = self.by_key.setdefault((how, key), [])
                if all(e["name"] != k.get("name") for e in entries):
                    entries.append(class_entry(k))

    def find(self, name: str) -> Tuple[Optional[Dict[str, Any]], Optional[str]]:
        """The trace's entry for an ncu kernel name and how it matched, or (None, None)."""
        for how, key in match_keys(name):
            entries = self.by_key.get((how, key)) or []
            if entries and (how != "no-templates" or len(entries) == 1):
                return entries[0], how
        return None, None


def compare(ncu_doc: Dict[str, Any], trace_doc: Dict[str, Any]) -> Dict[str, Any]:
    """The matched kernels and the agreement of their classes (bound and side)."""
    measured = kernel_classes(ncu_doc)
    named = NameIndex(trace_doc)
    rows: List[Dict[str, Any]] = []
    for key, m in measured.items():
        n, how = named.find(str(m["name"]))
        rows.append({"kernel": key, "ncu": m, "name": n, "matched_by": how,
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
              f"name: {n.get('bound')}/{n.get('side')} ({n.get('basis')}; matched {r['matched_by'] or 'no'})")
    print(f"bound agreement {result['bound_agreement']}, side agreement {result['side_agreement']}")
    return 0 if result["kernels_matched"] else 1


if __name__ == "__main__":
    sys.exit(main())

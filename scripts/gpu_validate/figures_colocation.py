"""The co-location figures of figures.py: per sharing mode (time-slicing, MPS), each
workload alone and in each pair, the measured slowdown against kraken's prediction and
the model's error (definitions: figures.py's docstring).
"""
from __future__ import annotations

import os
from typing import Any, Dict, Optional

from figures_common import overhead_pct, read_json, throughput

def window_results(folder: str, index: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """tag -> {member: result document} for the windows that measured."""
    out: Dict[str, Dict[str, Any]] = {}
    for entry in index.get("windows", []):
        if entry.get("status") != "ok":
            continue
        out[entry["tag"]] = {m: read_json(os.path.join(folder, f)) for m, f in entry.get("results", {}).items()}
    return out


def predicted(root: str, a: str, b: str, member: str, mode: str) -> Dict[str, Optional[float]]:
    """kraken's predicted slowdown (and p99 increase) of `member` in pair a+b under `mode`.

    MPS is compared with the uncapped prediction (predict.py's A+B.mps-uncapped.json,
    `--sm-split 100,100`): the measured MPS daemon set no SM cap. Runs that predate that
    file fall back to the `--mode all` document's MPS entry when its split is 100/100."""
    folder = os.path.join(root, "colocation", "predictions")
    documents = [read_json(os.path.join(folder, f"{a}+{b}.json"))]
    if mode == "mps":
        documents.insert(0, read_json(os.path.join(folder, f"{a}+{b}.mps-uncapped.json")))
    position = 0 if member == a else 1
    for doc in documents:
        for m in (doc or {}).get("modes", []):
            if m.get("mode") != mode or (mode == "mps" and any(s != 1 for s in m.get("sm_shares") or [])):
                continue
            predictions = m.get("predictions") or []
            if position < len(predictions):
                p = predictions[position]
                latency = p.get("latency") or {}
                return {"slowdown": p.get("slowdown"), "p99_increase": latency.get("p99_increase")}
    return {"slowdown": None, "p99_increase": None}


def colocation_mode(root: str, mode: str) -> Optional[Dict[str, Any]]:
    """Solo figures and pair rows of one sharing mode's windows (None when not run)."""
    folder = os.path.join(root, "colocation", mode)
    index = read_json(os.path.join(folder, "windows.json"))
    if not index:
        return None
    results = window_results(folder, index)
    stand_in = bool(index.get("stand_in"))
    solo: Dict[str, Dict[str, Any]] = {}
    for w in index.get("workers", {}):
        first = (results.get(f"solo-{w}") or {}).get(w)
        second = (results.get(f"solo2-{w}") or {}).get(w)
        values = [throughput(r) for r in (first, second) if throughput(r)]
        base = first or second
        solo[w] = {"throughput_per_s": sum(values) / len(values) if values else None,
                   "unit": (base or {}).get("unit"),
                   "drift_pct": overhead_pct(throughput(first), throughput(second)) if len(values) == 2 else None,
                   "step_ms": None if stand_in or not base else base.get("step_ms")}
    rows = []
    model_mode = "timeslice" if mode == "timeslice" else "mps"
    for entry in index.get("windows", []):
        members = entry.get("members", [])
        if len(members) != 2:
            continue
        a, b = members
        for member in members:
            r = (results.get(entry["tag"]) or {}).get(member)
            tp_pair, tp_solo = throughput(r), solo.get(member, {}).get("throughput_per_s")
            measured = tp_solo / tp_pair if tp_pair and tp_solo else None
            solo_ms = solo.get(member, {}).get("step_ms") or {}
            pair_ms = (r or {}).get("step_ms") if tp_pair else None
            pred = predicted(root, a, b, member, model_mode)
            error = None
            if measured and pred["slowdown"]:
                error = (pred["slowdown"] / measured - 1.0) * 100.0
            rows.append({"pair": entry["tag"], "workload": member, "solo_per_s": tp_solo, "pair_per_s": tp_pair,
                         "measured_slowdown": measured, "predicted_slowdown": pred["slowdown"],
                         "error_pct": error, "p50_solo_ms": solo_ms.get("p50"),
                         "p50_pair_ms": (pair_ms or {}).get("p50"), "p99_solo_ms": solo_ms.get("p99"),
                         "p99_pair_ms": (pair_ms or {}).get("p99"),
                         "measured_p99_increase": ((pair_ms or {}).get("p99") / solo_ms["p99"])
                         if pair_ms and solo_ms.get("p99") else None,
                         "predicted_p99_increase": pred["p99_increase"]})
    errors = [abs(r["error_pct"]) for r in rows if r["error_pct"] is not None]
    return {"stand_in": stand_in, "solo": solo, "pairs": rows, "skipped": index.get("skipped", []),
            "error": {"n": len(errors), "mean_abs_pct": sum(errors) / len(errors) if errors else None,
                      "max_abs_pct": max(errors) if errors else None}}


def colocation(root: str) -> Dict[str, Any]:
    return {mode: colocation_mode(root, mode) for mode in ("timeslice", "mps")}

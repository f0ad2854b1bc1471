#!/usr/bin/env python3
"""The figures of a validation run: agreement, overhead, co-location vs prediction.

    figures.py RESULTS_DIR [--out FILE.json]

RESULTS_DIR is the folder scripts/gpu-validate.sh fills (kraken-gpu-validate/ inside its
tarball). Prints the tables as text (the summary's "figures" section) and writes them as
JSON. scripts/gpu_validate/ingest.py renders the same figures into docs/validation.md.

Definitions:
- CUPTI vs torch.profiler: kernels launched inside the ProfilerStep ranges both traces
  have, and the sum of their durations (compare_traces.py); difference = CUPTI vs torch.
- Overhead: throughput lost against the run without the tool, (alone / with - 1) x 100;
  "alone" for the agent is the mean of the windows before and after it in the same worker.
- Measured slowdown: solo throughput / throughput in the pair (time per unit of work,
  shared over alone: kraken's definition); the solo figure is the mean of the solo windows
  before and after the pairs (their difference is printed as drift).
- Model error: predicted / measured slowdown - 1, per workload of each pair and mode
  (time-slicing vs kraken's `timeslice`, MPS without a cap vs `mps (no SM cap)`).
Results of stand-in workers (the replay rehearsal) are "not measured".
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional, Sequence

# Sibling modules (the folder is sys.path[0] when this file runs as a script, and on
# sys.path for ingest.py and the tests); their names are re-exported as this module's.
from figures_colocation import colocation, predicted  # noqa: F401
from figures_common import (NOT_MEASURED, fmt, measured_on_gpu, overhead_pct, pct,  # noqa: F401
                            read_json, throughput)
from figures_targets import overhead_targets, render_targets

# --- Agreement -----------------------------------------------------------------------------

def agreement(root: str) -> Dict[str, Any]:
    """CUPTI vs torch.profiler per workload; ncu vs name classes per program."""
    out: Dict[str, Any] = {"traces": [], "classes": []}
    gpu = measured_on_gpu(root)
    for w in ("resnet50-train", "bert-infer"):
        doc = read_json(os.path.join(root, "agreement", f"{w}.compare.json"))
        row: Dict[str, Any] = {"workload": w, "measured": gpu and bool(doc and doc.get("steps_compared"))}
        if row["measured"]:
            row.update(steps=len(doc["steps_compared"]), kernels_torch=doc["kernels"]["reference"],
                       kernels_cupti=doc["kernels"]["other"], kernels_diff_pct=doc["kernels"]["diff_pct"],
                       time_torch_us=doc["kernel_time_us"]["reference"], time_cupti_us=doc["kernel_time_us"]["other"],
                       time_diff_pct=doc["kernel_time_us"]["diff_pct"],
                       names_with_different_counts=len(doc.get("names_with_different_counts") or []),
                       window_kernels_torch=((doc.get("gpu_window") or {}).get("reference") or {}).get("kernels"),
                       window_kernels_cupti=((doc.get("gpu_window") or {}).get("other") or {}).get("kernels"))
        out["traces"].append(row)
    for program in ("kernel-mix", "resnet50-train"):
        doc = read_json(os.path.join(root, "agreement", f"{program}.classes.json"))
        entry: Dict[str, Any] = {"program": program, "measured": gpu and bool(doc and doc.get("kernels")),
                                 "kernels": []}
        if entry["measured"]:
            # "0/0": ncu measured kernels, but none was found by name in the trace.
            entry["bound_agreement"] = doc.get("bound_agreement") or "0/0"
            entry["side_agreement"] = doc.get("side_agreement") or "0/0"
            for k in doc["kernels"]:
                n = k.get("name") or {}
                entry["kernels"].append({"kernel": k["kernel"], "ncu_bound": k["ncu"]["bound"],
                                         "ncu_side": k["ncu"]["side"], "ncu_basis": k["ncu"]["basis"],
                                         "name_bound": n.get("bound"), "name_side": n.get("side"),
                                         "name_basis": n.get("basis"), "agrees": k.get("bound_agrees")})
        out["classes"].append(entry)
    return out


# --- Overhead ------------------------------------------------------------------------------

def agent_overhead(root: str, name: str = "agent") -> List[Dict[str, Any]]:
    """One row per agent window (overhead/NAME/): throughput, overhead vs the alone
    windows, pass time."""
    index = read_json(os.path.join(root, "overhead", name, "windows.json")) or {}
    folder = os.path.join(root, "overhead", name)
    tp: Dict[str, Optional[float]] = {}
    for entry in index.get("windows", []):
        files = list(entry.get("results", {}).values())
        tp[entry["tag"]] = throughput(read_json(os.path.join(folder, files[0]))) if files else None
    alone = [v for k, v in tp.items() if k.startswith("alone") and v]
    baseline = sum(alone) / len(alone) if alone else None
    rows = []
    for entry in index.get("windows", []):
        row: Dict[str, Any] = {"window": entry["tag"], "throughput_per_s": tp.get(entry["tag"]),
                               "overhead_pct": None, "pass_ms_median": None, "passes": None}
        if entry["tag"].startswith("agent"):
            row["overhead_pct"] = overhead_pct(baseline, tp.get(entry["tag"]))
            scrapes = (entry.get("agent") or {}).get("scrapes") or []
            durations = sorted(s["kraken_agent_sample_duration_seconds"] * 1e3 for s in scrapes
                               if "kraken_agent_sample_duration_seconds" in s)
            if durations and not index.get("stand_in"):
                row["pass_ms_median"] = durations[len(durations) // 2]
            counts = [s.get("kraken_agent_samples_total") for s in scrapes if "kraken_agent_samples_total" in s]
            if len(counts) >= 2 and not index.get("stand_in"):
                row["passes"] = counts[-1] - counts[0]
        rows.append(row)
    if len(alone) == 2:
        rows.append({"window": "alone-2 vs alone-1 (noise)", "throughput_per_s": None,
                     "overhead_pct": overhead_pct(tp.get("alone-1"), tp.get("alone-2")),
                     "pass_ms_median": None, "passes": None})
    return rows


def overhead(root: str) -> Dict[str, Any]:
    """The agent windows, the CUPTI tracer runs and NVML's per-call latency."""
    cupti = []
    for w in ("gemm", "small-kernels"):
        plain = throughput(read_json(os.path.join(root, "overhead", f"{w}-plain.json")))
        traced = throughput(read_json(os.path.join(root, "overhead", f"{w}-cupti.json")))
        cupti.append({"workload": w, "plain_per_s": plain, "cupti_per_s": traced,
                      "overhead_pct": overhead_pct(plain, traced)})
    nvml = read_json(os.path.join(root, "overhead", "nvml-latency.json")) or {}
    functions = {} if not measured_on_gpu(root) else {
        k: v for k, v in (nvml.get("functions") or {}).items() if not v.get("absent")}
    return {"agent": agent_overhead(root), "cupti": cupti,
            "nvml": {"measured": bool(functions), "library": nvml.get("library"), "functions": functions,
                     "sum_of_medians_us": nvml.get("sum_of_medians_us") if functions else None}}


# --- Overhead breakdown (phase 7) ---------------------------------------------------------

#: Phase 7's windows per workload (overhead/p7-W-RUN.json), in the order they ran; runs
#: named plain* are the baseline (their mean) and their difference the noise.
BREAKDOWN_RUNS = {
    "resnet50-train": ["plain", "cupti", "cupti-nvtx-inj", "kraken-profile", "cupti-flush-60s", "cupti-kernels",
                       "cupti-nvtx-steps", "plain2"],
    "small-kernels": ["plain", "cupti", "cupti-api-none", "cupti-kernels", "torch-cuda", "plain2",
                      "cupti-delay-beyond", "cupti-window-1s"],
    "short-kernels": ["plain", "cupti"],
}
#: Runs the second version of phase 7 added: listed only when their window ran.
OPTIONAL_RUNS = {"cupti-nvtx-inj", "kraken-profile", "cupti-flush-60s", "cupti-kernels", "cupti-nvtx-steps",
                 "cupti-delay-beyond", "cupti-window-1s"}
#: The traced run the others' kernel names are compared with (run 2's direct injection).
TRACE_REFERENCE_RUN = "resnet50-train-cupti"


def overhead_breakdown(root: str) -> Dict[str, Any]:
    """Phase 7: per workload, each run's throughput and its overhead against the mean of
    the plain runs; the two plain runs against each other (noise); the agent windows and
    NVML latency measured again."""
    workloads = []
    for w, all_runs in BREAKDOWN_RUNS.items():
        runs = [r for r in all_runs
                if r not in OPTIONAL_RUNS or os.path.exists(os.path.join(root, "overhead", f"p7-{w}-{r}.json"))]
        tp = {run: throughput(read_json(os.path.join(root, "overhead", f"p7-{w}-{run}.json"))) for run in runs}
        plain = [tp[r] for r in runs if r.startswith("plain") and tp[r]]
        base = sum(plain) / len(plain) if plain else None
        rows = [{"run": r, "throughput_per_s": tp[r],
                 "overhead_pct": None if r.startswith("plain") else overhead_pct(base, tp[r])} for r in runs]
        noise = overhead_pct(tp.get("plain"), tp.get("plain2")) if "plain2" in tp else None
        workloads.append({"workload": w, "baseline_per_s": base, "runs": rows, "noise_pct": noise})
    nvml = read_json(os.path.join(root, "overhead", "p7-nvml-latency.json")) or {}
    functions = {} if not measured_on_gpu(root) else {
        k: v for k, v in (nvml.get("functions") or {}).items() if not v.get("absent")}
    return {"workloads": workloads, "agent": agent_overhead(root, "p7-agent"), "traces": traced_windows(root),
            "nvml_sum_of_medians_us": nvml.get("sum_of_medians_us") if functions else None,
            "ran": os.path.exists(os.path.join(root, "overhead", "p7-nvml-latency.json"))}


def traced_windows(root: str) -> List[Dict[str, Any]]:
    """Phase 7's trace summaries (overhead/p7-traces/NAME.json, trace_summary.py), each with
    how many of its kernel names the reference run (TRACE_REFERENCE_RUN) lacks and the
    other way round: other names mean the GPU ran other kernels (e.g. cuDNN algorithms)."""
    folder = os.path.join(root, "overhead", "p7-traces")
    if not os.path.isdir(folder):
        return []
    summaries = {name[:-5]: read_json(os.path.join(folder, name)) for name in sorted(os.listdir(folder))
                 if name.endswith(".json")}
    reference = set((summaries.get(TRACE_REFERENCE_RUN) or {}).get("kernel_names") or {})
    rows = []
    for name, summary in summaries.items():
        if not summary:
            continue
        names = set(summary.get("kernel_names") or {})
        rows.append({"run": name, "step_p50_ms": summary.get("step_p50_ms"),
                     "kernels_per_step": summary.get("kernels_per_step"),
                     "kernel_ms_per_step": summary.get("kernel_ms_per_step"),
                     "gpu_busy_fraction": summary.get("gpu_busy_fraction"),
                     "distinct_kernel_names": summary.get("distinct_kernel_names"),
                     "names_not_in_reference": len(names - reference) if reference else None,
                     "reference_names_missing": len(reference - names) if reference else None,
                     "top_kernel": ((summary.get("top_kernels") or [{}])[0]).get("name"),
                     "activities": summary.get("activities"), "tracer_cost": summary.get("tracer_cost") or {},
                     "launches": summary.get("launches") or {}})
    return rows


def render_traced_windows(rows: List[Dict[str, Any]]) -> List[str]:
    """One line per traced window: the GPU's work per measured step."""
    if not rows:
        return []
    lines = [f"  traced windows, measured steps (kernel names vs {TRACE_REFERENCE_RUN}: +only here/-only there):"]
    for r in rows:
        busy = r["gpu_busy_fraction"]
        diff = (f"+{r['names_not_in_reference']}/-{r['reference_names_missing']}"
                if r["names_not_in_reference"] is not None else NOT_MEASURED)
        lines.append(f"    {r['run']:32s} step p50 {fmt(r['step_p50_ms'], 2)} ms, "
                     f"{fmt(r['kernels_per_step'], 1)} kernels and {fmt(r['kernel_ms_per_step'], 2)} ms kernel time "
                     f"per step, GPU busy {fmt(None if busy is None else busy * 100, 1)} %, "
                     f"{r['distinct_kernel_names']} names ({diff}); top {(r['top_kernel'] or '')[:50]}")
        launches = r.get("launches") or {}
        if launches.get("launch_calls"):
            lines.append(f"      launch calls: p50 {fmt(launches.get('launch_us_p50'), 2)} us, "
                         f"p90 {fmt(launches.get('launch_us_p90'), 2)} us, "
                         f"{fmt(launches.get('launch_ms_per_step'), 2)} ms per step")
        cost = r.get("tracer_cost") or {}
        if cost.get("writer_cpu_ms") is not None:
            lines.append(f"      tracer: writer CPU {fmt(cost.get('writer_cpu_ms'), 1)} ms of the process's "
                         f"{fmt(cost.get('process_cpu_ms'), 1)} ms over {fmt(cost.get('traced_ms'), 1)} ms traced; "
                         f"{cost.get('flushes')} flushes, {fmt(cost.get('flush_ms_total'), 1)} ms in all, "
                         f"longest {fmt(cost.get('flush_ms_max'), 1)} ms")
    return lines


def render_breakdown(b: Dict[str, Any]) -> List[str]:
    """Phase 7's lines of the text figures."""
    if not b["ran"]:
        return ["overhead breakdown (phase 7): not run"]
    lines = ["overhead breakdown (phase 7): each run vs the mean of the plain runs (+: slower)"]
    for w in b["workloads"]:
        for r in w["runs"]:
            vs = "(baseline)" if r["run"].startswith("plain") else f"overhead {pct(r['overhead_pct'])}"
            lines.append(f"  {w['workload']:15s} {r['run']:15s} {fmt(r['throughput_per_s'])}/s {vs}")
        if "plain2" in [r["run"] for r in w["runs"]]:
            lines.append(f"  {w['workload']:15s} plain2 vs plain (noise) {pct(w['noise_pct'])}")
    lines.extend(render_traced_windows(b.get("traces") or []))
    for r in b["agent"]:
        extra = f", pass {r['pass_ms_median']:.3f} ms median" if r["pass_ms_median"] is not None else ""
        lines.append(f"  agent {r['window']:28s} {fmt(r['throughput_per_s'])}/s, "
                     f"overhead {pct(r['overhead_pct'])}{extra}")
    nvml = b["nvml_sum_of_medians_us"]
    lines.append("  NVML per call: " + (f"sum of medians {nvml:.1f} us per GPU and pass" if nvml is not None
                                          else f"{NOT_MEASURED} (replayed NVML)"))
    return lines


def all_figures(root: str) -> Dict[str, Any]:
    """Every figure of the run (see the module docstring)."""
    run = read_json(os.path.join(root, "run.json")) or {}
    return {"run": run, "agreement": agreement(root), "overhead": overhead(root), "colocation": colocation(root),
            "overhead_breakdown": overhead_breakdown(root), "overhead_targets": overhead_targets(root)}


# --- Text ----------------------------------------------------------------------------------

def render_text(figs: Dict[str, Any]) -> str:
    """The tables as plain text for summary.txt and the closing note."""
    lines: List[str] = []
    lines.append("agreement: CUPTI tracer vs torch.profiler (kernels launched in the same ProfilerSteps)")
    for r in figs["agreement"]["traces"]:
        if r["measured"]:
            lines.append(f"  {r['workload']:15s} {r['steps']} steps: kernels {r['kernels_torch']} vs {r['kernels_cupti']} "
                         f"({pct(r['kernels_diff_pct'])}), kernel time {r['time_torch_us'] / 1e3:.3f} vs "
                         f"{r['time_cupti_us'] / 1e3:.3f} ms ({pct(r['time_diff_pct'])}); kernels in the steps' GPU "
                         f"window {r['window_kernels_torch']} vs {r['window_kernels_cupti']}")
        else:
            lines.append(f"  {r['workload']:15s} {NOT_MEASURED}")
    lines.append("agreement: roofline class from ncu metrics vs from the kernel name")
    for c in figs["agreement"]["classes"]:
        if not c["measured"]:
            lines.append(f"  {c['program']:15s} {NOT_MEASURED}")
            continue
        lines.append(f"  {c['program']:15s} bound agrees {c['bound_agreement']}, side {c['side_agreement']}")
        for k in c["kernels"]:
            lines.append(f"    {k['kernel'][:58]:58s} ncu {k['ncu_bound']}/{k['ncu_side']} ({k['ncu_basis']}), "
                         f"name {k['name_bound']}/{k['name_side']} ({k['name_basis']})")
    lines.append("overhead: GEMM loop with kraken agent (vs the same worker alone)")
    for r in figs["overhead"]["agent"]:
        extra = ""
        if r["pass_ms_median"] is not None:
            extra = f", pass {r['pass_ms_median']:.3f} ms median"
            if r["passes"]:
                extra += f" ({r['passes']:.0f} passes between the first and last scrape)"
        lines.append(f"  {r['window']:28s} {fmt(r['throughput_per_s'])}/s, overhead {pct(r['overhead_pct'])}{extra}")
    lines.append("overhead: CUPTI tracer injected (vs a plain run)")
    for r in figs["overhead"]["cupti"]:
        lines.append(f"  {r['workload']:15s} {fmt(r['plain_per_s'])} vs {fmt(r['cupti_per_s'])} per s: "
                     f"{pct(r['overhead_pct'])}")
    nvml = figs["overhead"]["nvml"]
    if nvml["measured"]:
        slow = sorted(nvml["functions"].items(), key=lambda kv: -kv[1]["median_us"])[:4]
        lines.append(f"NVML per call (median): sum {nvml['sum_of_medians_us']:.1f} us per GPU and pass; slowest: " +
                     ", ".join(f"{k} {v['median_us']:.1f} us" for k, v in slow))
    else:
        lines.append(f"NVML per call: {NOT_MEASURED} (replayed NVML)")
    if "overhead_breakdown" in figs:
        lines.extend(render_breakdown(figs["overhead_breakdown"]))
    if "overhead_targets" in figs:
        lines.extend(render_targets(figs["overhead_targets"]))
    for mode, m in figs["colocation"].items():
        if m is None:
            lines.append(f"co-location ({mode}): not run")
            continue
        if m["stand_in"]:
            lines.append(f"co-location ({mode}): {NOT_MEASURED} (stand-in workers: {len(m['pairs'])} pair rows "
                         f"rehearsed, {len(m['skipped'])} windows skipped)")
            continue
        lines.append(f"co-location ({mode}): measured slowdown vs kraken's prediction")
        for r in m["pairs"]:
            lines.append(f"  {r['pair']:30s} {r['workload']:15s} measured {fmt(r['measured_slowdown'])} predicted "
                         f"{fmt(r['predicted_slowdown'])} error {pct(r['error_pct'])}; step p99 "
                         f"{fmt(r['p99_solo_ms'], 2)} -> {fmt(r['p99_pair_ms'], 2)} ms")
        e = m["error"]
        lines.append(f"  model error over {e['n']} workload-pairs: mean |error| {fmt(e['mean_abs_pct'], 1)} %, "
                     f"max {fmt(e['max_abs_pct'], 1)} %")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    figs = all_figures(args.results)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(figs, f, indent=1)
    print(render_text(figs))
    return 0


if __name__ == "__main__":
    sys.exit(main())

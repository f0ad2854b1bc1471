"""docs/validation.md's parts that depend on which run measured what, when ingest.py merges
several runs: the overhead tables of each run (phases 3 and 5, phase 7's breakdown, NVML
latency side by side, `kraken record-nvml`'s frame reads), issue 13's targets met or
missed, and what failed or was not measured, each labelled with its run.

A run here is ingest.py's record of one input: {"n": 1-based order, "root": its own
results folder (never the merged one), "source": the archive's name, "run": its run.json,
"note": what changed before it (scripts/gpu_validate/run_notes.json)}.
"""
from __future__ import annotations

import datetime
import os
import re
from typing import Any, Dict, List, Optional

import figures as figs_mod
import figures_targets

Run = Dict[str, Any]
NOT_MEASURED = figs_mod.NOT_MEASURED
#: Issue 13's overhead targets for the CUPTI tracer, by overhead workload (percent).
CUPTI_OVERHEAD_TARGET_PCT = figures_targets.TARGET_PCT
#: What each phase-7 run is (scripts/gpu-validate.sh, phase 7).
BREAKDOWN_RUN_MEANING = {
    "plain": "no tool", "plain2": "no tool, again", "cupti": "kraken's CUPTI tracer injected (CUDA_INJECTION64_PATH)",
    "cupti-api-none": "the tracer with KRAKEN_CUPTI_API=none (kernel records only)",
    "torch-cuda": "torch.profiler recording CUDA activities only, no export",
    "cupti-delay-beyond": "the tracer with a capture delay beyond the run (loaded, nothing recorded)",
    "cupti-window-1s": "the tracer recording a 1 s capture window inside the measured 3 s",
    "cupti-nvtx-inj": "the tracer, also injected as the NVTX tool (NVTX_INJECTION64_PATH)",
    "kraken-profile": "under `kraken profile --kernels` (the tracer, NVML sampling, the profile stored)",
    "cupti-flush-60s": "the tracer flushing CUPTI's buffers every 60 s instead of every 1 s (KRAKEN_CUPTI_FLUSH_MS)",
    "cupti-kernels": "the tracer recording kernels only (KRAKEN_CUPTI_ACTIVITIES=kernels)",
    "cupti-nvtx-steps": "the tracer, the steps marked with NVTX ranges (--profiler nvtx, 60 steps)"}


def phases(run: Run) -> List[int]:
    """The phases a run ran (run.json's list; runs before --phases ran 1-6)."""
    return [int(p) for p in run["run"].get("phases") or [1, 2, 3, 4, 5, 6]]


def date(run: Run) -> str:
    start = run["run"].get("start_unix")
    if not start:
        return "unknown date"
    return datetime.datetime.fromtimestamp(int(start), datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def label(run: Run) -> str:
    """"run 2 (2026-11-26 14:43 UTC, phases 1,2,7)"."""
    return f"run {run['n']} ({date(run)}, phases {','.join(str(p) for p in phases(run))})"


RUN_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")


def dropped_runs(page: str, runs: List[Run]) -> List[str]:
    """The start times ("2026-11-26 14:03 UTC") of the GPU runs an existing docs/validation.md
    names on its "Run:" line that are not among `runs`: ingesting only `runs` would drop
    their figures (a rehearsal page names none)."""
    line = next((ln for ln in page.splitlines() if ln.startswith("Run: ")), "")
    given = {date(r) for r in runs}
    return [t for t in dict.fromkeys(RUN_TIME.findall(line)) if t not in given]


def caption(run: Run) -> str:
    """A table's caption line: its run and what changed before that run."""
    note = f"; {run['note']}" if run.get("note") else ""
    return f"*From {label(run)}{note}.*"


def source_run(runs: List[Run], rel: str) -> Optional[Run]:
    """The last run whose results hold `rel` (the one whose file the merged results kept)."""
    holding = [r for r in runs if os.path.exists(os.path.join(r["root"], rel))]
    return holding[-1] if holding else None


def read_json(run: Run, rel: str) -> Dict[str, Any]:
    return figs_mod.read_json(os.path.join(run["root"], rel)) or {}


def pct(value: Optional[float]) -> str:
    return NOT_MEASURED if value is None else f"{value:+.2f} %"


def num(value: Optional[float], digits: int = 3) -> str:
    return NOT_MEASURED if value is None else f"{value:.{digits}f}"


def duration(us: float) -> str:
    """Microseconds as ms from 1 ms on (the sums of NVML medians: 46.5 ms on an H100)."""
    return f"{us / 1e3:.1f} ms" if us >= 1000 else f"{us:.1f} us"


def on_gpu(run: Run) -> bool:
    return run["run"].get("mode") == "gpu"


# --- Overhead ----------------------------------------------------------------------------------

def tracer_rows(run: Run) -> List[str]:
    """Phases 3 and 5 of one run: the agent windows and the tracer against a plain run."""
    o = figs_mod.overhead(run["root"])
    rows = []
    for r in o["agent"]:
        tp = num(r["throughput_per_s"]) + (" TFLOP/s" if r["throughput_per_s"] else "")
        rows.append(f"| GEMM, {r['window']} | {tp} | {pct(r['overhead_pct'])} | "
                    f"{num(r['pass_ms_median'])}{' ms' if r['pass_ms_median'] is not None else ''} |")
    for r in o["cupti"]:
        if r["plain_per_s"] is not None or r["cupti_per_s"] is not None:
            rows.append(f"| {r['workload']}, CUPTI tracer | {num(r['plain_per_s'])} -> {num(r['cupti_per_s'])} | "
                        f"{pct(r['overhead_pct'])} | |")
    if not rows:
        return []
    return [caption(run) + " Phase 3 (agent, GEMM tracer) and phase 5 (small-kernels tracer).", "",
            "| run | throughput | overhead | agent pass (median) |", "|---|---|---|---|"] + rows + [""]


def breakdown_rows(run: Run) -> List[str]:
    """Phase 7 of one run: every window against the mean of the two plain runs."""
    b = figs_mod.overhead_breakdown(run["root"])
    if not b["ran"] or not on_gpu(run):
        return []
    out = [caption(run) + " Phase 7, the overhead breakdown: 3 s windows, each in a fresh process; overhead =",
           "mean of the plain runs' throughput / the run's - 1; noise = plain / plain2 - 1.", "",
           "| workload | run | what | throughput | step p50 | overhead vs mean of plain runs | plain-vs-plain noise |",
           "|---|---|---|---|---|---|---|"]
    for w in b["workloads"]:
        for i, r in enumerate(w["runs"]):
            doc = read_json(run, f"overhead/p7-{w['workload']}-{r['run']}.json")
            unit = doc.get("unit") or ""
            p50 = (doc.get("step_ms") or {}).get("p50")
            overhead = "(baseline)" if r["run"].startswith("plain") else pct(r["overhead_pct"])
            noise = pct(w["noise_pct"]) if i == 0 and w["noise_pct"] is not None else ""
            out.append(f"| {w['workload']} | {r['run']} | {BREAKDOWN_RUN_MEANING.get(r['run'], '')} | "
                       f"{num(r['throughput_per_s'], 1)} {unit}/s | {num(p50, 2)} ms | {overhead} | {noise} |")
    return out + [""]


def targets_rows(run: Run) -> List[str]:
    """Phase 8 of one run: every variant's overhead against its round's plain window."""
    t = figures_targets.overhead_targets(run["root"])
    if not t["ran"] or not on_gpu(run):
        return []
    out = [caption(run) + " Phase 8, the overhead targets: rounds of fresh processes pinned to CPUs "
           f"{t['cpus']}, the order reversed every other round; overhead = the round's plain throughput / the "
           "variant's - 1; noise = the largest change of the plain throughput from one round to the next.", "",
           "| workload | variant | what | rounds | overhead, median | range | target | noise |",
           "|---|---|---|---|---|---|---|---|"]
    for w in t["workloads"]:
        # Variants this run did not have (another phase 8's set) make no row.
        for i, v in enumerate([v for v in w["variants"] if v["rounds"]]):
            target = f"< {v['target_pct']:g} %: **{v['verdict']}**" if v["verdict"] else ""
            noise = pct(w["noise_pct"]).replace("+", "") if i == 0 and w["noise_pct"] is not None else ""
            out.append(f"| {w['workload']} | {v['variant']} | {figures_targets.VARIANT_MEANING[v['variant']]} | "
                       f"{v['rounds']} | {pct(v['median_pct'])} | {pct(v['min_pct'])} to {pct(v['max_pct'])} | "
                       f"{target} | {noise} |")
    return out + [""]


def nvml_latency(run: Run) -> Dict[str, Any]:
    """One run's NVML per-call latency (phase 7's measurement when it has one, else phase 3's)."""
    if not on_gpu(run):
        return {}
    return read_json(run, "overhead/p7-nvml-latency.json") or read_json(run, "overhead/nvml-latency.json")


def nvml_phase(run: Run) -> str:
    return "phase 7" if os.path.exists(os.path.join(run["root"], "overhead", "p7-nvml-latency.json")) else "phase 3"


def value_types(entry: Dict[str, Any]) -> str:
    types = entry.get("field_value_types") or {}
    return ", ".join(f"field {k}: {v}" for k, v in sorted(types.items()))


def nvml_rows(runs: List[Run]) -> List[str]:
    """The NVML latency of every run that measured it, side by side."""
    measured = [(r, nvml_latency(r)) for r in runs]
    measured = [(r, d) for r, d in measured if d.get("functions")]
    if not measured:
        return [f"{NOT_MEASURED} (replayed NVML answers in under a microsecond; the figures only mean something "
                "on a driver).", ""]
    names: List[str] = []
    for _, d in measured:
        names += [k for k, v in d["functions"].items() if k not in names and not v.get("absent")]
    head = " | ".join(f"run {r['n']} median / p99 (us), calls" for r, _ in measured)
    sources = "; ".join(f"{label(r)}, {nvml_phase(r)}" + (f": {r['note']}" if r.get("note") else "")
                        for r, _ in measured)
    out = [f"*From {sources}.*", "",
           f"| function | {head} | last return | value types |", "|---" * (3 + len(measured)) + "|"]
    for name in names:
        cells, last, types = [], "", ""
        for _, d in measured:
            v = d["functions"].get(name)
            if not v or v.get("absent"):
                cells.append("not called")
                continue
            cells.append(f"{v['median_us']:.2f} / {v['p99_us']:.2f}, {v['calls']}")
            last, types = v.get("last_return", ""), value_types(v) or types
        out.append(f"| {name} | {' | '.join(cells)} | {last} | {types} |")
    sums = " | ".join(f"**{duration(d['sum_of_medians_us'])}**" if d.get("sum_of_medians_us") else NOT_MEASURED
                      for _, d in measured)
    return out + [f"| sum of the medians, per GPU and pass | {sums} | | |", ""]


FRAME_READS = re.compile(r"frame reads took ([0-9.]+) ms median, ([0-9.]+) ms max; ([0-9]+) of ([0-9]+) frames made "
                         r"the slow reads \(([0-9.]+) ms median without them\)")


def frame_reads(run: Run) -> Optional[Dict[str, float]]:
    """`kraken record-nvml`'s closing line on its frame reads (logs/record-nvml.log), if it printed one."""
    try:
        with open(os.path.join(run["root"], "logs", "record-nvml.log"), encoding="utf-8", errors="replace") as f:
            found = FRAME_READS.search(f.read())
    except OSError:
        return None
    if not found:
        return None
    keys = ("median_ms", "max_ms", "slow_frames", "frames", "median_without_slow_ms")
    return dict(zip(keys, (float(g) for g in found.groups())))


def frame_read_lines(runs: List[Run]) -> List[str]:
    """record-nvml's frame reads of each run against the sum of NVML medians per pass."""
    out = []
    for run in runs:
        phases = run["run"].get("phases")  # absent in the first runs: all of 1-6
        if not on_gpu(run) or (phases and not {1, 2} & set(phases)):
            continue  # record-nvml runs during phases 1-2 only
        f = frame_reads(run)
        total = nvml_latency(run).get("sum_of_medians_us")
        calls = f"; one pass of every call, sum of the medians above: {duration(total)}" if total else ""
        if f:
            out.append(f"- {label(run)}: frame reads took {f['median_ms']:.3f} ms median, {f['max_ms']:.3f} ms max; "
                       f"{f['slow_frames']:.0f} of {f['frames']:.0f} frames made the slow reads (energy, PCIe: "
                       f"{f['median_without_slow_ms']:.3f} ms median without them){calls}.")
        else:
            out.append(f"- {label(run)}: record-nvml printed no frame-read line (its kraken predates it){calls}.")
    if not out:
        return []
    return ["`kraken record-nvml` (100 ms interval) during phases 1-2, its own account of a frame's NVML reads "
            "(logs/record-nvml.log):", ""] + out + [""]


def overhead_markdown(runs: List[Run]) -> List[str]:
    """docs/validation.md's "Overhead" section, one labelled table per run and measurement."""
    out = ["", "## Overhead", "",
           "Throughput lost, (alone / with - 1) x 100. `kraken agent` (store on, /metrics scraped every",
           "second) beside one GEMM worker, against the same worker's windows alone before and after",
           "(their difference is the noise floor); the CUPTI tracer injected into a separate process",
           "against a plain one. Targets (issue 13): tracer < 3 % on small kernels, < 1 % on ResNet-50.", ""]
    for run in runs:
        out += tracer_rows(run) + breakdown_rows(run) + targets_rows(run)
    out += ["NVML calls kraken's sampler makes per GPU and pass (`scripts/gpu_validate/nvml_latency.py`,",
            "ctypes on the driver's libnvidia-ml):", ""]
    return out + nvml_rows(runs) + frame_read_lines(runs)

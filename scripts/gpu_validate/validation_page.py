"""docs/validation.md as ingest.py writes it: the agreement, class, overhead and co-location
tables from figures.py's figures, the method notes, and which runs were merged."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import actions as actions_mod
import figures as figs_mod
import run_findings
import run_report
from ingest_examples import time_of

DEVICE_CALL = ('run(command="scripts/gpu-validate.sh --bundle dist/kraken-0.1.0-linux-x86_64.tar.gz --out $OUT", '
               'carry=["dist"], timeout_s=540)')


def md_value(value: Any, digits: int = 3) -> str:
    if value is None:
        return figs_mod.NOT_MEASURED
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def md_pct(value: Optional[float]) -> str:
    return figs_mod.NOT_MEASURED if value is None else f"{value:+.2f} %"


#: The method's caveats and the tests, the same for every run (end of docs/validation.md).
METHOD_NOTES = [
    "## How the co-location figures are measured", "",
    "- Workloads (`scripts/gpu_validate/workloads.py`): ResNet-50 training (torchvision, batch 64,",
    "  random data, fp32), BERT-base inference (transformers config, random weights, fp16, batch 16 x",
    "  128 tokens), an elementwise loop (20 multiply/add kernels over 64 Mi floats: memory-bound) and",
    "  a GEMM loop (4 fp16 8192^3 matmuls: compute-bound). Each step ends with a device",
    "  synchronization, so a step's wall time is its latency; cuDNN autotuning is off so that every",
    "  run launches the same kernels.",
    "- Windows (`scripts/gpu_validate/windows.py`): one long-lived process per workload, warmed up",
    "  once; each window is a workload alone or a pair measuring at once for 4 s, the solos once",
    "  before and once after the pairs. The other workers idle meanwhile (their CUDA contexts and",
    "  memory stay allocated). Every member of every window is followed by `kraken profile --pid`",
    "  (NVML every 100 ms), alone and shared alike.",
    "- Predictions (`scripts/gpu_validate/predict.py`): `kraken colocate db:A db:B --mode all` on the",
    "  profiles of separate traced runs of the same workloads (`kraken profile --kernels`, NVTX",
    "  ProfilerStep ranges, so the model reads the busy fraction over the steps). The CUPTI trace",
    "  carries no CPU operators, so kraken cannot tell the BERT run is inference: no workload is",
    "  request-driven and no latency (p99) is predicted; the measured step p99 is reported anyway.",
    "- MPS is compared with kraken's `mps (no SM cap)` (`kraken colocate A B --mode mps --sm-split",
    "  100,100`): the daemon ran without CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, so the split `--mode all`",
    "  suggests (e.g. 50/50) is not what was measured.",
    "- ingest.py recomputes the class comparison and the predictions from the recorded files with",
    "  the tree's kraken (`make build` first), so a later fix to either shows in every run's tables.", "",
    "## Tests without a GPU", "",
    "- `gpu_validate_helpers_test` (pytest, `scripts/gpu_validate/tests/`): argument parsing and",
    "  reporting of the workloads, the --serve protocol, the profiler paths against stand-in torch",
    "  modules; windows and their deadlines with stand-in workers, the agent windows on the NVML",
    "  replay; the trace comparison on a real PyTorch trace (itself, a copy missing a kernel, a cut",
    "  incremental copy); class matching on a real ncu export and across ncu's and CUPTI's",
    "  spellings; predict.py on real traces with the built kraken (both predictions); NVML call",
    "  timing on the replay library; ncu fallbacks against a stand-in ncu; the packer's limits;",
    "  the figures and the ingester on a results folder with round numbers, and merging two runs:",
    "  every table labelled with its run, failures fixed by a later run said so, predictions from",
    "  the traces of the run that measured the pairs (`test_ingest_runs.py`).",
    "- `gpu_validate_replay_test`: the whole script on the NVML replay (`--replay --quick`), then",
    "  the ingester on its tarball: every phase runs, nothing fails, what needs CUDA is skipped with",
    "  its reason, the output fits the device tool's limits, the tables say \"not measured\".",
    "- `gpu_validate_fake_node_test`: the script in GPU mode on a stand-in node (nvidia-smi, ncu, MPS",
    "  control, torch modules that do no work but start kraken's tracer over the fake libcupti), so",
    "  that every branch only a GPU run takes has run before the GPU does; only the steps that need",
    "  a real driver fail, and the ingester writes the examples and measured-looking tables.", "",
]


def validation_markdown(figures: Dict[str, Any], info: Dict[str, Any], rehearsal: bool,
                        actions: Optional[Dict[str, Any]] = None, runs: Optional[List[Dict[str, Any]]] = None) -> str:
    """docs/validation.md; `actions`: actions.all_actions of the run (phase 6), when read;
    `runs`: unpack's records of the merged runs (each table names the run it comes from)."""
    runs = runs or []
    out = header_markdown(info, rehearsal, runs) + agreement_markdown(figures, runs)
    # Overhead, then the targets.
    out += run_report.overhead_markdown(runs) + run_findings.targets_markdown(runs, figures)
    out += colocation_markdown(figures, runs)
    if actions is not None:
        out += actions_mod.markdown(actions)
    out += METHOD_NOTES
    return "\n".join(out) + "\n"


def header_markdown(info: Dict[str, Any], rehearsal: bool, runs: List[Dict[str, Any]]) -> List[str]:
    """The page's title, which GPU and runs measured it (or that none did), and how to run it."""
    gpu = info.get("gpu") or {}
    out = ["# Validation on a real GPU", ""]
    out += ["kraken's figures checked against measurements on one NVIDIA GPU by `scripts/gpu-validate.sh`",
            "(issue 13, part 2); this page is written by `scripts/gpu_validate/ingest.py` from that run's",
            "results. Recordings: `examples/<gpu>/` (README there: GPU, driver, versions, commands) and",
            "`examples/colocation/`.", ""]
    if rehearsal:
        out += ["**No GPU run yet.** These tables come from the replay rehearsal (NVML replayed, stand-in",
                "workloads): every figure says \"not measured\". The device call below fills them.", ""]
    else:
        out += [f"Run: {gpu.get('name', '?')}, driver {gpu.get('driver_version', '?')} (CUDA "
                f"{info.get('cuda_driver') or '?'}), PyTorch {info['python'].get('torch', '?')}, {info.get('kraken') or '?'}, "
                f"{'; '.join(run_report.label(r) for r in runs) if len(runs) > 1 else time_of(info)}.", ""]
    out += ["## How to run it", "", "On a machine with one NVIDIA GPU (the device tool), from this repository:", "",
            "```", "make bundle                     # here: dist/kraken-0.1.0-linux-x86_64.tar.gz",
            DEVICE_CALL, "python3 scripts/gpu_validate/ingest.py <files_at>/results*.tar.gz   # here", "```", "",
            "Several runs (e.g. a short follow-up of some phases) merge in one command, oldest first:",
            "`python3 scripts/gpu_validate/ingest.py RUN1.tar.gz RUN2.tar.gz` (after `make build`); each table",
            "below names the run it comes from and what changed before that run",
            "(`scripts/gpu_validate/run_notes.json`, by the run's start time). The page is rewritten from the",
            "archives given: keep them (the results of a device call do not outlive the session). Without",
            "the archive of a run this page names, ingest.py refuses rather than drop its figures; write to",
            "`--dest SCRATCH` and take the new sections from there by hand (or `--replace`).", "",
            "The command takes at most 460 s (`--budget`; the device call's limit is 540 s). Phase budgets",
            "(expected on an H100): environment <= 40 s (~15), 1 examples <= 120 s (~90), 2 agreement",
            "<= 75 s (~60), 3 overhead <= 60 s (~50), 4 co-location the rest (~180: time-slicing gets 55 %",
            "of it when MPS can run too), 5 extras (ncu on a ResNet-50 step, the tracer on small kernels)",
            "whatever is left, 6 actions (`kraken mig apply --dry-run`, a profiled experiment) whatever is",
            "left after that, packing <= 30 s. Every step has its own limit and logs its status; a step",
            "that fails does not stop the run; what cannot finish before the deadline is skipped, saying",
            "so. The results come back as summary.txt and results.tar.gz (more archives only when one",
            "cannot hold everything; each < 16 MiB). Without a GPU it rehearses on the NVML replay",
            "(`--replay`). What each phase does: the header of scripts/gpu-validate.sh. Phases 7 (the",
            "overhead breakdown) and 8 (the overhead targets in rounds of fresh processes, each against its",
            "own plain window) run only when `--phases` names them: `--phases 8 --budget 260`.", ""]
    return out


def agreement_markdown(figures: Dict[str, Any], runs: List[Dict[str, Any]]) -> List[str]:
    """The CUPTI tracer vs torch.profiler table, the roofline classes and the counter checks."""
    out = ["## CUPTI tracer vs torch.profiler", "",
           "Two runs of the same workload (same warm-up, same steps): one under torch.profiler, one under",
           "kraken's CUPTI tracer with each step in an NVTX range named like the profiler's",
           "(docs/kernel-capture.md). Kernels counted in each trace: those whose launch call lies inside",
           "a ProfilerStep range that both traces have (`scripts/gpu_validate/compare_traces.py`).",
           "Target (issue 13): equal count, kernel time within 1 %.", ""] + run_caption(runs, "agreement/resnet50-train.compare.json") + [
           "The last column counts every kernel that ran between the first and last kernel of those",
           "steps, launch record or not (a check on the launch-based count).", "",
           "| workload | steps | kernels torch.profiler | kernels CUPTI | diff | kernel time torch (ms) | CUPTI (ms) | diff "
           "| GPU window: torch / CUPTI |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in figures["agreement"]["traces"]:
        if r["measured"]:
            out.append(f"| {r['workload']} | {r['steps']} | {r['kernels_torch']} | {r['kernels_cupti']} | "
                       f"{md_pct(r['kernels_diff_pct'])} | {r['time_torch_us'] / 1e3:.3f} | {r['time_cupti_us'] / 1e3:.3f} | "
                       f"{md_pct(r['time_diff_pct'])} | {r.get('window_kernels_torch')} / {r.get('window_kernels_cupti')} |")
        else:
            out.append(f"| {r['workload']} | {figs_mod.NOT_MEASURED} | | | | | | | |")
    out += ["", "## Roofline class: Nsight Compute metrics vs kernel names", "",
            "`kraken analyze` of the ncu CSV (classes from hardware counters: roofline or throughput basis)",
            "and of a trace of the same program (the name rules of docs/analysis-classification.md).", ""]
    out += run_caption(runs, "agreement/kernel-mix.ncu-analysis.json", " (kernel-mix)")
    out += run_caption(runs, "agreement/resnet50-train.ncu-analysis.json", " (resnet50-train, phase 5)")
    for c in figures["agreement"]["classes"]:
        if not c["measured"]:
            out += [f"- {c['program']}: {figs_mod.NOT_MEASURED}"]
            continue
        out += [f"**{c['program']}**: bound agrees on {c['bound_agreement']} kernels, side on {c['side_agreement']}.", "",
                "| kernel | ncu: bound / side (basis) | name: bound / side (basis) |", "|---|---|---|"]
        out += [f"| `{k['kernel'][:70]}` | {k['ncu_bound']} / {k['ncu_side']} ({k['ncu_basis']}) | "
                f"{k['name_bound']} / {k['name_side']} ({k['name_basis']}) |" for k in c["kernels"]]
        out.append("")
    out += run_findings.counters_markdown(runs)
    return out


def colocation_markdown(figures: Dict[str, Any], runs: List[Dict[str, Any]]) -> List[str]:
    """Measured vs predicted slowdowns of each mode's pairs, with the model's error."""
    out = ["", "## Co-location: measured vs predicted", "",
           "Ground truth in examples/colocation/ (README there: method, columns). Model error = predicted",
           "slowdown / measured slowdown - 1.", ""] + run_caption(runs, "colocation/timeslice/windows.json",
                                                             "; predictions from the same run's CUPTI traces")
    for mode, m in figures["colocation"].items():
        label = "time-slicing (kraken `timeslice`)" if mode == "timeslice" else "MPS, no SM cap (kraken `mps (no SM cap)`)"
        if not m or m["stand_in"]:
            out += [f"**{label}**: {figs_mod.NOT_MEASURED}" + (" (rehearsal with stand-in workers)" if m else " (not run)"), ""]
            continue
        out += [f"**{label}**", "", "| pair | workload | measured slowdown | predicted | error | step p99 alone -> shared (ms) |",
                "|---|---|---|---|---|---|"]
        out += [f"| {r['pair']} | {r['workload']} | {md_value(r['measured_slowdown'])} | {md_value(r['predicted_slowdown'])} | "
                f"{md_pct(r['error_pct'])} | {md_value(r['p99_solo_ms'], 2)} -> {md_value(r['p99_pair_ms'], 2)} |"
                for r in m["pairs"]]
        e = m["error"]
        out += ["", f"Model error over {e['n']} workload-pairs: mean |error| {md_value(e['mean_abs_pct'], 1)} %, "
                    f"max {md_value(e['max_abs_pct'], 1)} %.", ""]
        if m["skipped"]:
            out += ["Windows skipped: " + "; ".join(f"{s['tag']} ({s['reason']})" for s in m["skipped"]), ""]
    return out


def run_caption(runs: List[Dict[str, Any]], rel: str, extra: str = "") -> List[str]:
    """A table's caption naming the run whose `rel` the merged results kept (none when not
    merged from labelled runs)."""
    run = run_report.source_run(runs, rel) if runs else None
    return [run_report.caption(run)[:-2] + extra + ".*", ""] if run else []


def figures_text_markdown(figures: Dict[str, Any]) -> List[str]:
    """Every figure as figures.py prints it (also those the tables above do not show)."""
    return ["## All figures as text", "", "`python3 scripts/gpu_validate/figures.py RESULTS_DIR` of the merged results:",
            "", "```", figs_mod.render_text(figures), "```", ""]


def runs_markdown(runs: List[Dict[str, Any]]) -> List[str]:
    """Which results were merged, in order (later files replace earlier ones)."""
    out = ["Results merged, in order (a later run's files replace the earlier one's):", ""]
    for r in runs:
        out.append(f"- run {r['n']}, `{r['source']}`: {r['run'].get('mode', '?')} run of {run_report.date(r)}, phases "
                   f"{','.join(map(str, run_report.phases(r)))}" + (f"; {r['note']}" if r.get("note") else ""))
    return out + [""]

#!/usr/bin/env python3
"""Turns what scripts/gpu-validate.sh brought back into the repository's examples and docs.

    ingest.py RUN1.tar.gz [RUN2.tar.gz ...] [--dest REPO_ROOT] [--kraken BIN] [--allow-replay]

Merges the results of one or more runs, oldest first (a later archive's files replace
the same-named ones and add its phases; steps.jsonl records are merged step by step),
recomputes what the scripts do better since a run (classes.py's kernel matching,
predict.py's predictions from the recorded CUPTI traces with this tree's kraken, MPS
without an SM cap included), then reads the runs' files (environment listing, step logs,
results) and writes:
- examples/<gpu>/: the recorded traces and captures (torch.profiler traces, kraken
  WorkloadProfiler reports, CUPTI traces, the NVML capture, nvidia-smi -q, Nsight Compute
  CSVs) and README.md naming the GPU, driver, versions and the commands that made each file;
- examples/colocation/: the measured pairs with kraken's predictions (pairs.csv,
  pairs.json, solo.csv), the predictions as `kraken colocate --json` wrote them, each
  workload's kraken profiles, and README.md;
- docs/validation.md: the agreement, overhead and co-location tables and the model's
  error (scripts/gpu_validate/figures.py), with the device call that made them;
and prints the figures for the closing note.

A replay rehearsal (no GPU) measured nothing: without --allow-replay only
docs/validation.md is written (every table "not measured"); with it (tests) the examples
are written too, and say they are a rehearsal. --dest defaults to this repository.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import actions as actions_mod  # noqa: E402
import classes as classes_mod  # noqa: E402
import figures as figs_mod  # noqa: E402
import predict as predict_mod  # noqa: E402
import run_findings  # noqa: E402
import run_report  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
TOP = "kraken-gpu-validate"
DEVICE_CALL = ('run(command="scripts/gpu-validate.sh --bundle dist/kraken-0.1.0-linux-x86_64.tar.gz --out $OUT", '
               'carry=["dist"], timeout_s=540)')
#: Files of examples/<gpu>/: (source in the results, name in examples, what it is).
EXAMPLE_FILES: List[Tuple[str, str, str]] = [
    ("examples/resnet50-train.pt.trace.json.gz", "resnet50-train.pt.trace.json.gz",
     "torch.profiler trace (Kineto) of 20 ResNet-50 training steps"),
    ("examples/bert-infer.pt.trace.json.gz", "bert-infer.pt.trace.json.gz",
     "torch.profiler trace of 20 BERT-base inference batches"),
    ("examples/resnet50-train-kraken/resnet50-train.kraken.json", "resnet50-train.kraken.json",
     "kraken.WorkloadProfiler report (profile + analysis) of 20 further ResNet-50 steps"),
    ("examples/resnet50-train-kraken/resnet50-train.kraken.html", "resnet50-train.kraken.html.gz",
     "the same report as HTML"),
    ("examples/resnet50-train-kraken/resnet50-train.profile.json", "resnet50-train.profile.json",
     "the WorkloadProfiler run's NVML profile (kraken export JSON)"),
    ("examples/bert-infer-kraken/bert-infer.kraken.json", "bert-infer.kraken.json",
     "kraken.WorkloadProfiler report of 20 further BERT batches"),
    ("examples/bert-infer-kraken/bert-infer.kraken.html", "bert-infer.kraken.html.gz", "the same report as HTML"),
    ("examples/bert-infer-kraken/bert-infer.profile.json", "bert-infer.profile.json",
     "the WorkloadProfiler run's NVML profile (kraken export JSON)"),
    ("agreement/resnet50-train-cupti/*.json*", "resnet50-train.cupti.json.gz",
     "kraken's CUPTI trace of another run of the same 20 ResNet-50 steps (NVTX ProfilerStep ranges)"),
    ("agreement/bert-infer-cupti/*.json*", "bert-infer.cupti.json.gz",
     "kraken's CUPTI trace of another run of the same 20 BERT batches"),
    ("examples/kernel-mix-traces/*.json", "kernel-mix.cupti.json.gz",
     "kraken's CUPTI trace of scripts/gpu_validate/kernel_mix.cu (kraken profile --kernels)"),
    ("examples/kernel-mix.profile.json", "kernel-mix.profile.json", "kraken profile --kernels --json summary of it"),
    ("examples/node.nvml.gz", "node.nvml.gz", "NVML capture of the node during phases 1-2 (kraken record-nvml)"),
    ("examples/nvidia-smi-q.txt", "nvidia-smi-q.txt", "nvidia-smi -q"),
    ("examples/ncu-kernel-mix.csv", "ncu-kernel-mix.csv",
     "Nsight Compute, details page: kernel_mix's 5 kernels with the roofline metrics"),
    ("examples/ncu-kernel-mix-raw.csv", "ncu-kernel-mix-raw.csv", "the same, raw page"),
    ("agreement/ncu-resnet50-train.csv", "ncu-resnet50-train.csv",
     "Nsight Compute, details page: the first 5 kernels of a ResNet-50 training step"),
]


def unpack(archives: Sequence[str], into: str) -> Tuple[str, List[Dict[str, Any]]]:
    """Merges every archive (or results folder), in order, into `into`/kraken-gpu-validate: a
    later one replaces the files of the same name and adds its phases, and its trace folders
    (`*-cupti/`, `*-traces/`: pid-named files) replace the earlier run's whole folder, so
    that a trace and the figures computed from it come from one run; the folders given are
    copied, never written. Returns the merged root and one record per input (run_report.py):
    its run.json, name, order and its own results folder, kept apart from the merged one."""
    root = os.path.join(into, TOP)
    runs: List[Dict[str, Any]] = []
    steps: Dict[str, Dict[str, Any]] = {}
    for n, path in enumerate(archives, start=1):
        merge_steps(root, steps)
        own = path if os.path.isdir(path) else os.path.join(extract(path, os.path.join(into, f"run-{n}")), TOP)
        replace_trace_folders(own, root)
        shutil.copytree(own, root, dirs_exist_ok=True)
        runs.append({"n": n, "root": own, "source": os.path.basename(os.path.normpath(path)),
                     "run": figs_mod.read_json(os.path.join(own, "run.json")) or {}})
    merge_steps(root, steps)
    if steps:
        with open(os.path.join(root, "steps.jsonl"), "w", encoding="utf-8") as f:
            f.writelines(json.dumps(step) + "\n" for step in steps.values())
    return root, runs


def extract(path: str, into: str) -> str:
    """Unpacks one results tarball into `into` (refusing members outside it); returns `into`."""
    try:
        tar = tarfile.open(path)
    except (OSError, tarfile.TarError) as e:
        first_line = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ValueError(f"{path}: not a results tarball ({first_line})") from e
    with tar:
        for member in tar.getmembers():
            name = os.path.normpath(member.name)
            if name.startswith("..") or os.path.isabs(name) or not (member.isfile() or member.isdir()):
                raise ValueError(f"{path}: unexpected member {member.name}")
        tar.extractall(into)
    if not os.path.isdir(os.path.join(into, TOP)):
        raise ValueError(f"{path}: no {TOP}/ folder in it")
    return into


def replace_trace_folders(run_root: str, merged: str) -> None:
    """Removes from the merged results each trace folder the next run brings again: their
    files are named by process id, so merging would keep both runs' traces side by side."""
    for sub in ("agreement", "examples"):
        folder = os.path.join(run_root, sub)
        for name in os.listdir(folder) if os.path.isdir(folder) else []:
            if name.endswith(("-cupti", "-traces")) and os.path.isdir(os.path.join(folder, name)):
                shutil.rmtree(os.path.join(merged, sub, name), ignore_errors=True)


def merge_steps(root: str, steps: Dict[str, Dict[str, Any]]) -> None:
    """Adds root/steps.jsonl's records to `steps` (a later record of a step replaces it):
    each archive brings its own steps.jsonl, which replaces the previous one's file."""
    for line in read_text(os.path.join(root, "steps.jsonl")).splitlines():
        try:
            step = json.loads(line)
        except ValueError:
            continue
        if isinstance(step, dict) and step.get("step"):
            steps[str(step["step"])] = step


def colocation_run(runs: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The run whose co-location windows the merged results hold (the last one that measured
    pairs): its predictions must come from its own CUPTI traces, not a later run's."""
    holding = [r for r in runs if any(os.path.exists(os.path.join(r["root"], "colocation", mode, "windows.json"))
                                      for mode in ("timeslice", "mps"))]
    return holding[-1] if holding else None


def shown_path(path: str) -> str:
    """`path` relative to the repository when it lies in it (the page names no machine's folders)."""
    return os.path.relpath(path, REPO) if os.path.abspath(path).startswith(REPO + os.sep) else path


#: Where the ncu CSV of each class comparison lies in a run's results (gpu-validate.sh).
NCU_CSVS = {"kernel-mix": "examples/ncu-kernel-mix.csv", "resnet50-train": "agreement/ncu-resnet50-train.csv"}


def reanalyze_ncu(root: str, kraken: str, program: str) -> bool:
    """Rewrites agreement/PROGRAM.ncu-analysis.json with this tree's `kraken analyze` of the
    run's ncu CSV, so that what the importer learnt since the run (e.g. tensor work ncu could
    not count) reaches the class table. False (the run's analysis kept) when it cannot."""
    csv_path = os.path.join(root, NCU_CSVS[program])
    if not os.path.isfile(csv_path) or not os.access(kraken, os.X_OK):
        return False
    done = subprocess.run([kraken, "analyze", csv_path, "--json", "--top", "1000"], capture_output=True, text=True,
                          timeout=120, check=False)
    if done.returncode != 0:
        return False
    with open(os.path.join(root, "agreement", f"{program}.ncu-analysis.json"), "w", encoding="utf-8") as f:
        f.write(done.stdout)
    return True


def refresh(root: str, kraken: str, traces_run: Optional[Dict[str, Any]] = None) -> List[str]:
    """Recomputes, in the merged results, what the scripts have learnt to do better since the
    run: the class comparisons (classes.py) and the predictions (predict.py --traces, with
    this tree's kraken) from the CUPTI traces of `traces_run` (the run that measured the
    pairs; the merged results' when None). Returns what it did, one line each."""
    done = []
    agreement_dir = os.path.join(root, "agreement")
    for program in ("kernel-mix", "resnet50-train"):
        if reanalyze_ncu(root, kraken, program):
            done.append(f"ncu analysis {program}: redone with {shown_path(kraken)}")
        ncu = os.path.join(agreement_dir, f"{program}.ncu-analysis.json")
        trace = os.path.join(agreement_dir, f"{program}.trace-analysis.json")
        ncu_doc, trace_doc = figs_mod.read_json(ncu), figs_mod.read_json(trace)
        if ncu_doc and trace_doc:
            result = classes_mod.compare(ncu_doc, trace_doc)
            with open(os.path.join(agreement_dir, f"{program}.classes.json"), "w", encoding="utf-8") as f:
                json.dump(result, f, indent=1)
            done.append(f"classes {program}: {result['kernels_matched']}/{result['kernels_measured']} kernels matched")
    traces_dir = os.path.join(traces_run["root"], "agreement") if traces_run else agreement_dir
    if not os.path.isdir(traces_dir) or not any(n.endswith("-cupti") for n in os.listdir(traces_dir)):
        return done
    if not os.access(kraken, os.X_OK):
        return done + [f"predictions: kept the run's ({kraken} is not built)"]
    out = os.path.join(root, "colocation", "predictions")
    shutil.rmtree(out, ignore_errors=True)
    with contextlib.redirect_stdout(io.StringIO()):
        rc = predict_mod.main(["--kraken", kraken, "--traces", traces_dir, "--out", out])
    pairs = (figs_mod.read_json(os.path.join(out, "index.json")) or {}).get("pairs") or []
    shown = shown_path(kraken)
    which = f"run {traces_run['n']}'s CUPTI traces (the run that measured the pairs)" if traces_run else "the CUPTI traces"
    return done + [f"predictions: {len(pairs)} pairs recomputed from {which} with {shown} "
                   "(`--mode all` and MPS without an SM cap)"
                   + ("" if rc == 0 else " (some failed: colocation/predictions/index.json)")]


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def step_commands(root: str) -> Dict[str, str]:
    """step name -> the command line it ran (each log's first line, "$ ...")."""
    out = {}
    logs = os.path.join(root, "logs")
    for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
        first = read_text(os.path.join(logs, name)).split("\n", 1)[0]
        if first.startswith("$ "):
            out[name[: -len(".log")]] = shorten_paths(first[2:])
    return out


def shorten_paths(command: str) -> str:
    """Machine-specific folders replaced by what they were ($WORK, the bundle, the repo)."""
    command = re.sub(r"/[^ \"]*/kraken-gpu-validate\.[A-Za-z0-9]+/kraken-gpu-validate", "$RESULTS", command)
    command = re.sub(r"/[^ \"]*/kraken-gpu-validate\.[A-Za-z0-9]+/bundle/(kraken-[0-9.]+)", r"\1", command)
    command = re.sub(r"/[^ \"]*/kraken-gpu-validate\.[A-Za-z0-9]+", "$WORK", command)
    return re.sub(r"/[^ \"]*/scripts/gpu_validate/", "scripts/gpu_validate/", command)


def environment(root: str) -> Dict[str, Any]:
    """GPU, driver, CUDA, OS and library versions, from the run's env/ listing."""
    env = os.path.join(root, "env")
    info: Dict[str, Any] = {"run": figs_mod.read_json(os.path.join(root, "run.json")) or {}}
    query = read_text(os.path.join(env, "gpu-query.txt")).strip().splitlines()
    if len(query) >= 2:
        header = [h.strip() for h in query[0].split(",")]
        values = [v.strip() for v in query[1].split(",")]
        info["gpu"] = dict(zip(header, values))
    smi = read_text(os.path.join(env, "nvidia-smi.txt"))
    found = re.search(r"CUDA Version:\s*([0-9.]+)", smi)
    info["cuda_driver"] = found.group(1) if found else None
    info["python"] = figs_mod.read_json(os.path.join(env, "python.txt")) or {}
    release = dict(re.findall(r'^([A-Z_]+)="?([^"\n]*)"?$', read_text(os.path.join(env, "os-release.txt")), re.M))
    info["os"] = release.get("PRETTY_NAME")
    info["kernel"] = read_text(os.path.join(env, "uname.txt")).strip()
    info["glibc"] = read_text(os.path.join(env, "ldd-version.txt")).split("\n", 1)[0].strip()
    info["nvcc"] = (re.findall(r"release [0-9.]+, V[0-9.]+", read_text(os.path.join(env, "nvcc.txt"))) or [None])[0]
    info["ncu"] = (read_text(os.path.join(env, "ncu.txt")).strip().splitlines() or [None])[-1]
    info["kraken"] = read_text(os.path.join(env, "kraken.txt")).strip() or None
    info["cpu"] = read_text(os.path.join(env, "cpu.txt")).strip().splitlines()[:2]
    return info


def gpu_slug(info: Dict[str, Any]) -> str:
    """examples/<gpu>: the GPU's name in lower case with dashes ("nvidia-h100-80gb-hbm3")."""
    name = (info.get("gpu") or {}).get("name") or ((info["python"].get("device") or {}).get("name"))
    if not name:
        return "replay-rehearsal"
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def copy_example(src_pattern: str, root: str, dest: str) -> Optional[int]:
    """Copies one result into examples (the largest match of a glob; gzipped when the
    destination name ends in .gz and the source does not); returns its size."""
    import glob

    matches = sorted(glob.glob(os.path.join(root, src_pattern)), key=os.path.getsize, reverse=True)
    if not matches:
        return None
    src = matches[0]
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    if dest.endswith(".gz") and not src.endswith(".gz"):
        with open(src, "rb") as f, gzip.GzipFile(dest, "wb", compresslevel=9, mtime=0) as g:
            shutil.copyfileobj(f, g)
    else:
        shutil.copyfile(src, dest)
    return os.path.getsize(dest)


def write_examples(root: str, dest: str, info: Dict[str, Any], commands: Dict[str, str], rehearsal: bool,
                   runs: Optional[List[Dict[str, Any]]] = None) -> str:
    """examples/<gpu>/ and its README, each file with the run that recorded it (`runs`:
    unpack's records; the merged results keep the last run's file); returns the folder."""
    import glob

    runs = runs or []
    slug = gpu_slug(info)
    folder = os.path.join(dest, "examples", slug)
    written = []
    for src, name, what in EXAMPLE_FILES:
        size = copy_example(src, root, os.path.join(folder, name))
        if size is not None:
            holding = [r for r in runs if glob.glob(os.path.join(r["root"], src))]
            written.append((name, size, what, f"run {holding[-1]['n']}" if holding else "-"))
    gpu = info.get("gpu") or {}
    py = info["python"]
    lines = [f"# {gpu.get('name', 'replay rehearsal')}: recorded by scripts/gpu-validate.sh", ""]
    if rehearsal:
        lines += ["**Rehearsal on the NVML replay, without a GPU: nothing here was measured.**", ""]
    lines += [
        "Recorded with kraken's validation runs (docs/validation.md lists them: "
        + ("; ".join(run_report.label(r) for r in runs) if runs else time_of(info)) + ");",
        "each file below names the run that recorded it, as do the tables of docs/validation.md.", "",
        "| | |", "|---|---|",
        f"| GPU | {gpu.get('name', '-')} ({gpu.get('memory.total [MiB]', '?')}, compute capability "
        f"{gpu.get('compute_cap', '?')}, max SM clock {gpu.get('clocks.max.sm [MHz]', '?')}, power limit "
        f"{gpu.get('power.limit [W]', '?')}) |",
        f"| driver | {gpu.get('driver_version', '-')} (CUDA {info.get('cuda_driver') or '-'}) |",
        f"| OS | {info.get('os') or '-'}; {info.get('glibc') or '-'}; `{info.get('kernel') or '-'}` |",
        f"| CPU | {', '.join(info.get('cpu') or []) or '-'} |",
        f"| Python | {py.get('python', '-')} ({py.get('executable', '-')}) |",
        f"| PyTorch | {py.get('torch', '-')} (CUDA {py.get('torch_cuda', '-')}, cuDNN {py.get('cudnn', '-')}); "
        f"torchvision {py.get('torchvision', '-')}, transformers {py.get('transformers', '-')}, numpy {py.get('numpy', '-')} |",
        f"| CUDA toolkit | nvcc {info.get('nvcc') or '-'}; Nsight Compute: {info.get('ncu') or '-'} |",
        f"| kraken | {info.get('kraken') or '-'} ({info['run'].get('kraken_from', '-')}) |",
        "", "## Files", "", "| file | what | run | bytes |", "|---|---|---|---|"]
    lines += [f"| `{n}` | {w} | {r} | {s} |" for n, s, w, r in written]
    lines += ["", "## Commands", "",
              "Each step of the run, as its log recorded it (`$RESULTS` = the run's output folder,",
              "`$WORK` = its scratch folder; paths of the bundle shortened):", "", "```"]
    lines += [f"{step}: {cmd}" for step, cmd in commands.items() if step.startswith(("p1.", "p2.", "p5.ncu"))]
    lines += ["```", "", "Analyse them with kraken, e.g. `kraken analyze resnet50-train.pt.trace.json.gz`,",
              "`kraken analyze ncu-kernel-mix.csv`, or replay the node: `KRAKEN_NVML_LIBRARY=.../libkraken_nvml_replay.so",
              "KRAKEN_NVML_REPLAY=node.nvml kraken gpus` (after `gunzip node.nvml.gz`).", ""]
    with open(os.path.join(folder, "README.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return folder


def time_of(info: Dict[str, Any]) -> str:
    import datetime

    start = info["run"].get("start_unix")
    if not start:
        return "an unknown date"
    return datetime.datetime.fromtimestamp(int(start), datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


PAIR_COLUMNS = ["mode", "pair", "workload", "solo_per_s", "pair_per_s", "measured_slowdown", "predicted_slowdown",
                "error_pct", "p50_solo_ms", "p50_pair_ms", "p99_solo_ms", "p99_pair_ms", "measured_p99_increase",
                "predicted_p99_increase"]


def rounded(value: Any) -> Any:
    """Floats to 6 decimals (measurements carry no more; the files stay readable)."""
    return round(value, 6) if isinstance(value, float) else value


def copy_colocation_traces(traces_root: str, folder: str) -> None:
    """The CUPTI traces the predictions were computed from (predictions/index.json names them,
    relative to the run that measured the pairs), gzipped as traces/<workload>.json.gz: the
    co-location golden test reruns `kraken colocate` on them."""
    index = figs_mod.read_json(os.path.join(folder, "predictions", "index.json")) or {}
    for workload, rel in sorted((index.get("traces") or {}).items()):
        src = os.path.join(traces_root, rel)
        if not os.path.isfile(src):
            continue
        os.makedirs(os.path.join(folder, "traces"), exist_ok=True)
        out = os.path.join(folder, "traces", f"{workload}.json.gz")
        if src.endswith(".gz"):
            shutil.copyfile(src, out)
            continue
        with open(src, "rb") as f_in, gzip.GzipFile(out, "wb", compresslevel=9, mtime=0) as f_out:
            shutil.copyfileobj(f_in, f_out)


def write_colocation(root: str, dest: str, figures: Dict[str, Any], rehearsal: bool,
                     traces_root: Optional[str] = None) -> str:
    """examples/colocation/: measured pairs with predictions, solo figures, profiles, traces."""
    import glob

    folder = os.path.join(dest, "examples", "colocation")
    os.makedirs(folder, exist_ok=True)
    rows = []
    solo_rows = []
    for mode, m in figures["colocation"].items():
        if not m:
            continue
        rows += [dict(mode=mode, **r) for r in m["pairs"]]
        for w, s in m["solo"].items():
            step = s.get("step_ms") or {}
            solo_rows.append({"mode": mode, "workload": w, "throughput_per_s": s["throughput_per_s"],
                              "unit": s.get("unit"), "drift_pct": s["drift_pct"], "p50_ms": step.get("p50"),
                              "p99_ms": step.get("p99")})
    rows = [{k: rounded(v) for k, v in r.items()} for r in rows]
    solo_rows = [{k: rounded(v) for k, v in r.items()} for r in solo_rows]
    with open(os.path.join(folder, "pairs.csv"), "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=PAIR_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    with open(os.path.join(folder, "solo.csv"), "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["mode", "workload", "throughput_per_s", "unit", "drift_pct", "p50_ms",
                                               "p99_ms"])
        writer.writeheader()
        writer.writerows(solo_rows)
    with open(os.path.join(folder, "pairs.json"), "w", encoding="utf-8") as f:
        json.dump({"rehearsal": rehearsal, "pairs": rows, "solo": solo_rows,
                   "error": {mode: (m or {}).get("error") for mode, m in figures["colocation"].items()}}, f, indent=1)
    for src in glob.glob(os.path.join(root, "colocation", "predictions", "*.json")):
        os.makedirs(os.path.join(folder, "predictions"), exist_ok=True)
        shutil.copyfile(src, os.path.join(folder, "predictions", os.path.basename(src)))
    copy_colocation_traces(traces_root or root, folder)
    profiles = os.path.join(folder, "profiles")
    for src in glob.glob(os.path.join(root, "colocation", "*.profile.json")):
        os.makedirs(profiles, exist_ok=True)
        name = os.path.basename(src).replace(".profile.json", ".kernels-profile.json")
        shutil.copyfile(src, os.path.join(profiles, name))
    for mode in ("timeslice", "mps"):
        for src in glob.glob(os.path.join(root, "colocation", mode, "solo-*.summary.json")):
            os.makedirs(profiles, exist_ok=True)
            w = os.path.basename(src)[len("solo-"):].split(".")[0]
            shutil.copyfile(src, os.path.join(profiles, f"{w}.{mode}-solo-profile.json"))
    readme = ["# Co-location ground truth", ""]
    if rehearsal:
        readme += ["**Rehearsal on the NVML replay, without a GPU: stand-in workers, nothing measured.**", ""]
    readme += [
        "Measured by scripts/gpu-validate.sh phase 4 (docs/validation.md): each workload of",
        "scripts/gpu_validate/workloads.py alone, then every pair at once on one GPU, by long-lived",
        "workers (scripts/gpu_validate/windows.py) so that both members of a pair start measuring",
        "within a millisecond; time-slicing (two processes) and, where the node had",
        "nvidia-cuda-mps-control, MPS without an SM cap. Next to each measurement: `kraken colocate`'s",
        "prediction from the workloads' CUPTI profiles.", "",
        "- `pairs.csv` / `pairs.json`: one row per workload of each pair and mode. `measured_slowdown` =",
        "  solo throughput / throughput in the pair (time per unit of work, shared over alone: kraken's",
        "  definition); `predicted_slowdown`: `kraken colocate --mode all` for timeslice, `--mode mps",
        "  --sm-split 100,100` (`mps (no SM cap)`, as the MPS daemon ran) for MPS; `error_pct` =",
        "  predicted / measured - 1; step-time p50/p99 alone and in the pair (a",
        "  step = one training step, one inference batch, 20 elementwise kernels, 4 GEMMs).",
        "- `solo.csv`: each workload alone (mean of the windows before and after the pairs; `drift_pct`",
        "  is their difference).",
        "- `predictions/A+B.json`: `kraken colocate A B --mode all --json`, `predictions/A+B.mps-uncapped.json`:",
        "  `kraken colocate A B --mode mps --sm-split 100,100 --json`, A and B the CUPTI traces of the",
        "  workloads (`scripts/gpu_validate/predict.py --traces`, rerun by ingest.py); `index.json`: the commands.",
        "- `traces/W.json.gz`: those CUPTI traces (`index.json` names where each was recorded); the golden",
        "  test `colocate_h100_golden_test.cc` reruns `kraken colocate` on them against `pairs.csv`.",
        "- `profiles/W.kernels-profile.json`: `kraken profile --kernels --json` of the run the prediction",
        "  used; `profiles/W.MODE-solo-profile.json`: `kraken profile --pid --json` of the solo window.", ""]
    with open(os.path.join(folder, "README.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(readme))
    return folder


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
            "(`scripts/gpu_validate/run_notes.json`, by the run's start time).", "",
            "The command takes at most 460 s (`--budget`; the device call's limit is 540 s). Phase budgets",
            "(expected on an H100): environment <= 40 s (~15), 1 examples <= 120 s (~90), 2 agreement",
            "<= 75 s (~60), 3 overhead <= 60 s (~50), 4 co-location the rest (~180: time-slicing gets 55 %",
            "of it when MPS can run too), 5 extras (ncu on a ResNet-50 step, the tracer on small kernels)",
            "whatever is left, 6 actions (`kraken mig apply --dry-run`, a profiled experiment) whatever is",
            "left after that, packing <= 30 s. Every step has its own limit and logs its status; a step",
            "that fails does not stop the run; what cannot finish before the deadline is skipped, saying",
            "so. The results come back as summary.txt and results.tar.gz (more archives only when one",
            "cannot hold everything; each < 16 MiB). Without a GPU it rehearses on the NVML replay",
            "(`--replay`). What each phase does: the header of scripts/gpu-validate.sh.", ""]
    # Agreement.
    out += ["## CUPTI tracer vs torch.profiler", "",
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
    # Overhead, then the targets.
    out += run_report.overhead_markdown(runs) + run_findings.targets_markdown(runs, figures)
    # Co-location.
    out += ["", "## Co-location: measured vs predicted", "",
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
    if actions is not None:
        out += actions_mod.markdown(actions)
    out += METHOD_NOTES
    return "\n".join(out) + "\n"


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


def run_notes(path: str) -> Dict[str, str]:
    """start_unix (as text) -> what changed before that run, from the notes file (none when
    the file is absent); a file that is not such a JSON object is an error naming it."""
    if not os.path.exists(path):
        return {}
    doc = figs_mod.read_json(path)
    runs = doc.get("runs") if isinstance(doc, dict) else None
    if not isinstance(runs, dict) or not all(isinstance(v, str) for v in runs.values()):
        raise ValueError(f"{path}: not a run notes file (a JSON object with \"runs\": {{start_unix: text}})")
    return runs


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archives", nargs="+", help="results*.tar.gz the runs brought back (or their folders), oldest first")
    parser.add_argument("--dest", default=REPO, help="repository root to write into (default: this one)")
    parser.add_argument("--kraken", default=os.path.join(REPO, "build", "src", "cli", "kraken"),
                        help="kraken that recomputes the predictions (default: this tree's build)")
    parser.add_argument("--allow-replay", action="store_true", help="also write examples from a rehearsal (tests)")
    parser.add_argument("--notes", default=os.path.join(HERE, "run_notes.json"),
                        help="what changed before each run, by its start time (default: run_notes.json here)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kraken-ingest-") as tmp:
        try:
            notes = run_notes(args.notes)
            root, runs = unpack(args.archives, tmp)
            for r in runs:
                r["note"] = notes.get(str(r["run"].get("start_unix")), "")
        except (OSError, ValueError, tarfile.TarError) as e:
            print(f"ingest: {e}", file=sys.stderr)
            return 2
        if not os.path.isdir(root):
            print(f"ingest: no {TOP}/ folder in {', '.join(args.archives)}", file=sys.stderr)
            return 2
        traces_run = colocation_run(runs)
        refreshed = refresh(root, args.kraken, traces_run)
        info = environment(root)
        figures = figs_mod.all_figures(root)
        acts = actions_mod.all_actions(root)
        rehearsal = info["run"].get("mode") != "gpu"
        written = []
        if not rehearsal or args.allow_replay:
            written.append(write_examples(root, args.dest, info, step_commands(root), rehearsal, runs))
            written.append(write_colocation(root, args.dest, figures, rehearsal,
                                            traces_run["root"] if traces_run else None))
        else:
            print("ingest: a replay rehearsal measured nothing: examples/ left alone (--allow-replay writes them)")
        docs = os.path.join(args.dest, "docs", "validation.md")
        os.makedirs(os.path.dirname(docs), exist_ok=True)
        page = validation_markdown(figures, info, rehearsal, acts, runs)
        page += "\n".join(runs_markdown(runs) + run_findings.failures_markdown(runs, figures, acts, refreshed)
                          + figures_text_markdown(figures))
        with open(docs, "w", encoding="utf-8") as f:
            f.write(page)
        written.append(docs)
        print("wrote " + ", ".join(os.path.relpath(w, args.dest) for w in written))
        print("\n".join(refreshed) + "\n")
        print(figs_mod.render_text(figures))
        print(actions_mod.render_text(acts))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""ingest.py's examples/<gpu>/: the run's environment (GPU, driver, versions, from env/), the
commands each step ran (its log's first line) and the recorded files with their README."""
from __future__ import annotations

import gzip
import os
import re
import shutil
from typing import Any, Dict, List, Optional, Tuple

import figures as figs_mod
import run_report
from ingest_unpack import read_text

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
    ("counters/kernel-mix.counters-trace.json.gz", "kernel-mix.counters.cupti.json.gz",
     "kraken's CUPTI trace of kernel_mix with per-kernel counters (KRAKEN_CUPTI_COUNTERS=1, batches of 16)"),
]


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
    unpack's records; the merged results keep the last run's file); returns the folder, or ""
    when the run recorded none of them."""
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
    if not written:
        return ""  # a run of phases that record no examples (phase 8 alone): no examples/<gpu>/
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

"""ingest.py's reading of the runs: unpacking each results tarball (or folder), merging them
oldest first into one results folder, and the notes file that says what changed before each run.
Kept apart from the writers so that everything that touches untrusted archives lies in one place."""
from __future__ import annotations

import json
import os
import shutil
import tarfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

import figures as figs_mod

TOP = "kraken-gpu-validate"


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


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


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

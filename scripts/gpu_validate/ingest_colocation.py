"""ingest.py's examples/colocation/: the measured pairs next to kraken's predictions (CSV and
JSON), the predictions and CUPTI traces they came from, each workload's profiles, and README.md."""
from __future__ import annotations

import csv
import gzip
import json
import os
import shutil
from typing import Any, Dict, Optional

import figures as figs_mod

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
    if not rows and not solo_rows:
        return ""  # no phase 4 among the runs (phase 8 alone): the recorded dataset stays as it is
    rows = [{k: rounded(v) for k, v in r.items()} for r in rows]
    solo_rows = [{k: rounded(v) for k, v in r.items()} for r in solo_rows]
    os.makedirs(folder, exist_ok=True)
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

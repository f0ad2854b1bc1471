"""ingest.py's recomputation, in the merged results, of what the scripts do better since a run:
the ncu analyses with this tree's kraken, the class comparisons (classes.py) and the
co-location predictions (predict.py) from the recorded CUPTI traces."""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
from typing import Any, Dict, List, Optional

import classes as classes_mod
import figures as figs_mod
import predict as predict_mod

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


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
    # A run without phase 2 (e.g. --phases 1,5) has an ncu CSV but no agreement folder yet.
    os.makedirs(os.path.join(root, "agreement"), exist_ok=True)
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

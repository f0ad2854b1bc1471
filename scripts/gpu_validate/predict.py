#!/usr/bin/env python3
"""`kraken colocate` predictions for every pair of the profiled workloads.

    predict.py --kraken BIN --db STORE --profiles DIR --out DIR
    predict.py --kraken BIN --traces DIR --out DIR

DIR/<workload>.profile.json are `kraken profile --kernels --json` summaries (each names
its stored profile: `stored.profile_id` in STORE). Without the store (a results tarball
brought back from the GPU keeps the traces, not the store), --traces reads each
workload's CUPTI trace, DIR/<workload>-cupti/*.json (the run the profile summarizes),
and kraken builds the same profile from it. For each pair (windows.pairs_of's order) it
writes two predictions:
- OUT/<a>+<b>.json: `kraken colocate A B --mode all --json` (time-slicing, MPS with the SM
  split kraken suggests, MIG);
- OUT/<a>+<b>.mps-uncapped.json: `kraken colocate A B --mode mps --sm-split 100,100 --json`,
  MPS without an SM cap, as the validation's MPS daemon ran (no
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), so figures.py compares like with like.
OUT/index.json maps each workload to its input and each pair to its files (or errors).
The first workload of a pair is always the first input, so a prediction's
predictions[0] is a's and [1] is b's.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from windows import pairs_of  # noqa: E402 - the pair order lives in one place

WORKLOAD_ORDER = ["gemm", "elementwise", "resnet50-train", "bert-infer"]


def json_document(text: str) -> Dict[str, Any]:
    """The JSON object in `text`; lines a profiled command printed before kraken's document
    (on the same standard output) are skipped."""
    try:
        return json.loads(text)
    except ValueError:
        start = text.find("\n{")
        if start < 0:
            raise
        return json.loads(text[start + 1:])


def stored_ids(profiles_dir: str) -> Dict[str, int]:
    """workload -> stored profile id, from DIR/<workload>.profile.json."""
    ids: Dict[str, int] = {}
    for name in sorted(os.listdir(profiles_dir)):
        if not name.endswith(".profile.json"):
            continue
        try:
            with open(os.path.join(profiles_dir, name), encoding="utf-8") as f:
                stored = (json_document(f.read()).get("stored") or {})
        except (OSError, ValueError):
            continue
        if stored.get("profile_id") is not None:
            ids[name[: -len(".profile.json")]] = int(stored["profile_id"])
    return ids


def trace_inputs(traces_dir: str) -> Dict[str, str]:
    """workload -> its CUPTI trace (the largest .json or .json.gz of DIR/<workload>-cupti/)."""
    out: Dict[str, str] = {}
    for name in sorted(os.listdir(traces_dir)):
        folder = os.path.join(traces_dir, name)
        if not (name.endswith("-cupti") and os.path.isdir(folder)):
            continue
        files = [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith((".json", ".json.gz"))]
        if files:
            out[name[: -len("-cupti")]] = max(files, key=os.path.getsize)
    return out


#: The predictions of one pair: (file suffix, the colocate options after the inputs).
PREDICTIONS = [(".json", ["--mode", "all", "--json"]),
               (".mps-uncapped.json", ["--mode", "mps", "--sm-split", "100,100", "--json"])]


def predict_pair(kraken: str, inputs: List[str], store: List[str], out_dir: str, tag: str,
                 shown: List[str]) -> Dict[str, Any]:
    """Runs both predictions of one pair; the index entry's fields (files, commands with the
    inputs as `shown`, errors)."""
    entry: Dict[str, Any] = {}
    for suffix, options in PREDICTIONS:
        key = "file" if suffix == ".json" else "mps_uncapped_file"
        command = [kraken, "colocate"] + inputs + store + options
        run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        entry.setdefault("commands", []).append(" ".join(["colocate"] + shown + store + options))
        if run.returncode == 0:
            with open(os.path.join(out_dir, tag + suffix), "w", encoding="utf-8") as f:
                f.write(run.stdout)
            entry[key] = tag + suffix
        else:
            entry.setdefault("errors", []).append(f"{' '.join(options)}: {run.stderr.strip()}")
    entry["exit_code"] = 1 if entry.get("errors") else 0
    return entry


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kraken", required=True)
    parser.add_argument("--db", help="the store the profiles are in (with --profiles)")
    parser.add_argument("--profiles", help="folder of <workload>.profile.json (with --db)")
    parser.add_argument("--traces", help="folder of <workload>-cupti/ traces (instead of --db/--profiles)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    if bool(args.traces) == bool(args.db and args.profiles):
        parser.error("give either --db and --profiles, or --traces")
    os.makedirs(args.out, exist_ok=True)
    if args.traces:
        inputs, store = trace_inputs(args.traces), []
        # Recorded relative to the results folder (agreement/W-cupti/...), not this machine's.
        folder = os.path.basename(os.path.normpath(args.traces))
        shown = {w: os.path.join(folder, os.path.relpath(p, args.traces)) for w, p in inputs.items()}
        index: Dict[str, Any] = {"traces": shown, "pairs": []}
    else:
        ids = stored_ids(args.profiles)
        inputs, store = {w: f"db:{i}" for w, i in ids.items()}, ["--db", args.db]
        shown = inputs
        index = {"profile_ids": ids, "pairs": []}
    names: List[str] = ([w for w in WORKLOAD_ORDER if w in inputs] +
                        sorted(w for w in inputs if w not in WORKLOAD_ORDER))
    failures = 0
    for a, b in pairs_of(names):
        tag = f"{a}+{b}"
        entry = {"pair": tag, "a": a, "b": b}
        entry.update(predict_pair(args.kraken, [inputs[a], inputs[b]], store, args.out, tag, [shown[a], shown[b]]))
        failures += 1 if entry.get("errors") else 0
        index["pairs"].append(entry)
        print(f"{tag}: {'failed: ' + '; '.join(entry['errors']) if entry.get('errors') else 'ok'}")
    with open(os.path.join(args.out, "index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, indent=1)
    if not index["pairs"]:
        print(f"no pair: inputs of {sorted(inputs) or 'no workload'} in {args.traces or args.profiles}")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

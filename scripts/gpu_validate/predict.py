#!/usr/bin/env python3
"""`kraken colocate` predictions for every pair of the profiled workloads.

    predict.py --kraken BIN --db STORE --profiles DIR --out DIR

DIR/<workload>.profile.json are `kraken profile --kernels --json` summaries (each names
its stored profile: `stored.profile_id` in STORE). For each pair (windows.pairs_of's
order) it runs `kraken colocate db:A db:B --db STORE --mode all --json` and writes
OUT/<a>+<b>.json; OUT/index.json maps each workload to its profile id and each pair to
its file (or the error). The first workload of a pair is always the first input, so a
prediction's predictions[0] is a's and [1] is b's.
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


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kraken", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--profiles", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    ids = stored_ids(args.profiles)
    names: List[str] = [w for w in WORKLOAD_ORDER if w in ids] + sorted(w for w in ids if w not in WORKLOAD_ORDER)
    index: Dict[str, Any] = {"profile_ids": ids, "pairs": []}
    failures = 0
    for a, b in pairs_of(names):
        tag = f"{a}+{b}"
        command = [args.kraken, "colocate", f"db:{ids[a]}", f"db:{ids[b]}", "--db", args.db, "--mode", "all", "--json"]
        run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        entry = {"pair": tag, "a": a, "b": b, "command": " ".join(command[1:]), "exit_code": run.returncode}
        if run.returncode == 0:
            with open(os.path.join(args.out, tag + ".json"), "w", encoding="utf-8") as f:
                f.write(run.stdout)
            entry["file"] = tag + ".json"
        else:
            failures += 1
            entry["error"] = run.stderr.strip()
        index["pairs"].append(entry)
        print(f"{tag}: {'ok' if run.returncode == 0 else 'failed: ' + run.stderr.strip()}")
    with open(os.path.join(args.out, "index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, indent=1)
    if not index["pairs"]:
        print(f"no pair: profiles of {sorted(ids) or 'no workload'} in {args.profiles}")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

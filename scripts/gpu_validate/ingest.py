#!/usr/bin/env python3
"""Turns what scripts/gpu-validate.sh brought back into the repository's examples and docs.

    ingest.py RUN1.tar.gz [RUN2.tar.gz ...] [--dest REPO_ROOT] [--kraken BIN] [--allow-replay] [--replace]

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

The page is rewritten from the inputs alone: when the existing docs/validation.md names a GPU
run that is not among them (its archive is gone), ingest.py refuses (exit 2) rather than drop
that run's figures, unless --replace; `--dest SCRATCH` writes a page to take sections from.

A replay rehearsal (no GPU) measured nothing: without --allow-replay only
docs/validation.md is written (every table "not measured"); with it (tests) the examples
are written too, and say they are a rehearsal. --dest defaults to this repository.
"""
from __future__ import annotations

import argparse
import os
import sys
import tarfile
import tempfile
from typing import Optional, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The steps live in modules of their own, one responsibility each: ingest_unpack (reading and
# merging the runs' archives), ingest_refresh (recomputing with this tree), ingest_examples and
# ingest_colocation (examples/), validation_page (docs/validation.md); this file runs them.
import actions as actions_mod  # noqa: E402
import figures as figs_mod  # noqa: E402
import run_findings  # noqa: E402
import run_report  # noqa: E402
from ingest_colocation import write_colocation  # noqa: E402
from ingest_examples import environment, step_commands, write_examples  # noqa: E402
from ingest_refresh import REPO, refresh  # noqa: E402
from ingest_unpack import TOP, colocation_run, read_text, run_notes, unpack  # noqa: E402
from validation_page import figures_text_markdown, runs_markdown, validation_markdown  # noqa: E402


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archives", nargs="+", help="results*.tar.gz the runs brought back (or their folders), oldest first")
    parser.add_argument("--dest", default=REPO, help="repository root to write into (default: this one)")
    parser.add_argument("--kraken", default=os.path.join(REPO, "build", "src", "cli", "kraken"),
                        help="kraken that recomputes the predictions (default: this tree's build)")
    parser.add_argument("--allow-replay", action="store_true", help="also write examples from a rehearsal (tests)")
    parser.add_argument("--replace", action="store_true",
                        help="write even when docs/validation.md names GPU runs not given (their figures are dropped)")
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
        docs = os.path.join(args.dest, "docs", "validation.md")
        dropped = run_report.dropped_runs(read_text(docs), runs)
        if dropped and not args.replace:
            print(f"ingest: {docs} holds the figures of GPU run(s) {', '.join(dropped)}, whose results are not "
                  "among the inputs: writing would drop them. Give their archives first (oldest first), or "
                  "--dest a scratch folder and take the sections wanted by hand, or --replace", file=sys.stderr)
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
            written = [w for w in written if w]
        else:
            print("ingest: a replay rehearsal measured nothing: examples/ left alone (--allow-replay writes them)")
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

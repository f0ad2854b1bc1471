"""actions.py (phase 6 of scripts/gpu-validate.sh) and its part of ingest.py, on results
folders laid out as profile_run.sh and mig_dry_run.sh write them: a profiled experiment
whose import worked, one whose import failed, a refused MIG dry run, and a run that
reached neither step."""
from __future__ import annotations

import json
import os

import actions
import ingest


def put(root, rel: str, text: str) -> None:
    path = os.path.join(str(root), rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


ARGV = ["ncu", "--csv", "--page", "raw", "--launch-count", "10", "/tmp/w/kernel_mix", "2"]
ANALYSIS = {"workload": {"bound": "memory"}, "kernels": {"count": 10, "total_us": 900.0, "top": [
    {"name": "saxpy(int, float, const float *, float *)", "count": 2, "bound": "memory", "side": "memory",
     "basis": "roofline"},
    {"name": "tiny_kernel(float *)", "count": 2, "bound": "latency", "side": "compute", "basis": "throughput"}]}}
REFUSAL = "kraken: error: GPU 0: MIG mode is off (turning it on needs a GPU reset, which kraken does not do)"


def profile_run_folder(root, analyze_rc: int) -> None:
    put(root, "actions/profile-run.argv.txt", "\n".join(ARGV) + "\n")
    put(root, "actions/profile-run.status.json", json.dumps({"ncu_rc": 0, "analyze_rc": analyze_rc}))
    if analyze_rc == 0:
        put(root, "actions/profile-run.analysis.json", json.dumps(ANALYSIS))
        put(root, "actions/profile-run.analyze-error.txt", "")
    else:
        put(root, "actions/profile-run.analyze-error.txt",
            "\nkraken: error: profile-run.log: no ncu CSV header (ID, Kernel Name, ...) in the log\n")


def test_profile_run_lists_each_kernels_bound(tmp_path) -> None:
    profile_run_folder(tmp_path, 0)
    pr = actions.profile_run(str(tmp_path))
    assert pr["ran"] and pr["error"] is None
    assert pr["argv"] == ARGV
    assert (pr["kernels"], pr["bound"]) == (10, "memory")
    assert [(k["count"], k["bound"], k["basis"]) for k in pr["per_kernel"]] == [(2, "memory", "roofline"),
                                                                                (2, "latency", "throughput")]
    text = actions.render_text(actions.all_actions(str(tmp_path)))
    assert "profiled experiment: ncu exited 0; 10 kernels imported, workload bound memory" in text
    assert "tiny_kernel(float *)" in text and "x2: latency / compute (throughput)" in text
    assert "kraken mig apply --dry-run: not run" in text


def test_profile_run_whose_import_failed_keeps_the_importers_line(tmp_path) -> None:
    profile_run_folder(tmp_path, 2)
    pr = actions.profile_run(str(tmp_path))
    assert pr["error"] == "kraken: error: profile-run.log: no ncu CSV header (ID, Kernel Name, ...) in the log"
    assert pr["kernels"] is None and pr["per_kernel"] == []
    assert "import failed: kraken: error: profile-run.log" in actions.render_text(actions.all_actions(str(tmp_path)))


def test_mig_dry_run_refusal_is_recorded_with_its_message(tmp_path) -> None:
    put(tmp_path, "actions/mig/plan.yaml", "version: v1\nmig-configs:\n  kraken-node-0: []\n")
    put(tmp_path, "actions/mig/apply.txt", REFUSAL + "\n")
    put(tmp_path, "actions/mig/apply.rc", "2\n")
    mig = actions.mig_dry_run(str(tmp_path))
    assert (mig["ran"], mig["rc"], mig["refused"], mig["output"]) == (True, 2, True, REFUSAL)
    assert mig["plan"].startswith("version: v1")
    text = actions.render_text(actions.all_actions(str(tmp_path)))
    assert f"kraken mig apply --dry-run: exit 2 (refused): {REFUSAL}" in text
    assert "profiled experiment (controller's ncu argv on kernel_mix): not run" in text


def test_ingest_puts_the_actions_into_validation_md(tmp_path, capsys) -> None:
    root = tmp_path / "results" / "kraken-gpu-validate"
    put(root, "run.json", json.dumps({"mode": "replay", "start_unix": 1800000000}))
    profile_run_folder(root, 0)
    put(root, "actions/mig/apply.txt", REFUSAL + "\n")
    put(root, "actions/mig/apply.rc", "2\n")
    dest = tmp_path / "repo"
    assert ingest.main([str(root), "--dest", str(dest)]) == 0
    with open(dest / "docs" / "validation.md", encoding="utf-8") as f:
        doc = f.read()
    assert "## kraken's actions on the driver" in doc
    assert "ncu exited 0; 10 kernel launches imported, workload bound memory." in doc
    assert "| `saxpy(int, float, const float *, float *)` | 2 | memory / memory (roofline) |" in doc
    assert "Exit code 2 (refused, saying why):" in doc and REFUSAL in doc
    printed = capsys.readouterr().out
    assert "10 kernels imported" in printed and "exit 2 (refused)" in printed

"""ingest.py on several runs' results (a later one replaces same-named files and adds its
phases) and its recomputation of the class comparisons and predictions from the recorded
files, with the built kraken and real traces."""
from __future__ import annotations

import json
import os
import tarfile

from conftest import BUILD_DIR, data_path
import ingest
import test_figures_ingest
from test_figures_ingest import result, write

gpu_run = test_figures_ingest.gpu_run  # the fixture: a results folder with round numbers

KRAKEN = os.path.join(BUILD_DIR, "src", "cli", "kraken")
PLUGIN = "kineto/kineto_tb_plugin/"
TRACES = {"resnet50-train": PLUGIN + "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
          "bert-infer": PLUGIN + "resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz"}


def steps(root: str, records: list) -> None:
    write(root, "steps.jsonl", "".join(json.dumps(r) + "\n" for r in records))


def tarball(folder: str, path: str) -> str:
    with tarfile.open(path, "w:gz") as tar:
        tar.add(folder, arcname=ingest.TOP)
    return path


def test_a_second_run_replaces_and_adds(gpu_run, tmp_path) -> None:
    steps(gpu_run, [{"step": "p2.resnet50-train-compare", "status": "failed rc=1", "log": "logs/c.log"},
                    {"step": "p3.gemm-plain", "status": "ok"},
                    {"step": "p4.mps", "status": "skipped", "reason": "no nvidia-cuda-mps-control"}])
    write(gpu_run, "logs/c.log", "$ python3 compare_traces.py\nsteps compared: 0\n")
    second = str(tmp_path / "run2" / ingest.TOP)
    write(second, "run.json", {"mode": "gpu", "start_unix": 1800003600})
    write(second, "agreement/resnet50-train.compare.json", {
        "steps_compared": list(range(20)), "kernels": {"reference": 1000, "other": 999, "diff_pct": -0.1},
        "kernel_time_us": {"reference": 2000.0, "other": 2001.0, "diff_pct": 0.05}})
    write(second, "overhead/breakdown/summary.json", {"phase": 7})
    write(second, "overhead/small-kernels-plain.json", result(125.0))
    write(second, "overhead/small-kernels-cupti.json", result(100.0))
    steps(second, [{"step": "p2.resnet50-train-compare", "status": "ok"},
                   {"step": "p7.breakdown", "status": "failed rc=3", "log": "logs/p7.log"}])
    write(second, "logs/p7.log", "$ python3 breakdown.py\nno CUPTI\n")
    dest = tmp_path / "repo"
    before = open(os.path.join(gpu_run, "agreement", "resnet50-train.compare.json")).read()
    args = [gpu_run, tarball(second, str(tmp_path / "run2.tar.gz")), "--dest", str(dest), "--kraken", KRAKEN]
    assert ingest.main(args) == 0
    assert open(os.path.join(gpu_run, "agreement", "resnet50-train.compare.json")).read() == before
    docs = (dest / "docs" / "validation.md").read_text()
    assert "| resnet50-train | 20 | 1000 | 999 | -0.10 % | 2.000 | 2.001 | +0.05 % |" in docs
    assert "- run 1, `kraken-gpu-validate`: gpu run of 2027-01-15 08:00 UTC, phases 1,2,3,4,5,6" in docs
    assert "- run 2, `run2.tar.gz`: gpu run of 2027-01-15 09:00 UTC, phases 1,2,3,4,5,6" in docs
    failed = docs[docs.index("## What failed"):docs.index("## All figures")]
    assert "- step `p7.breakdown` failed rc=3 in run 2 (log: no CUPTI)." in failed
    assert "- step `p4.mps` skipped in run 1; no nvidia-cuda-mps-control." in failed
    # Failed in run 1, measured by run 2: it says so.
    assert ("- step `p2.resnet50-train-compare` failed rc=1 in run 1 (log: steps compared: 0); **fixed by run 2**, "
            "where it ended ok.") in failed
    assert "- target missed: CUPTI tracer on small-kernels +25.00 % (run 2, phase 5; issue 13: < 3 %)" in failed
    assert "CUPTI tracer on gemm" not in failed  # no target for it
    # The first run's measurements stay (the second did not repeat them).
    assert "| gemm+elementwise | gemm | 2.000 | 1.600 | -20.00 % |" in docs


def test_not_a_tarball_is_one_line_naming_it(tmp_path, capsys) -> None:
    bad = tmp_path / "results.tar.gz"
    bad.write_text("not a tarball")
    assert ingest.main([str(bad), "--dest", str(tmp_path / "repo")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ingest: {bad}: not a results tarball") and err.count("\n") == 1
    assert not (tmp_path / "repo").exists()


def mps_windows(root: str) -> None:
    """MPS windows of resnet50-train and bert-infer alone and together (round numbers)."""
    folder = os.path.join(root, "colocation", "mps")
    pair = "resnet50-train+bert-infer"
    windows = [{"tag": f"solo-{w}", "members": [w], "results": {w: f"s-{w}.json"}, "status": "ok"} for w in TRACES]
    windows.append({"tag": pair, "members": list(TRACES), "status": "ok",
                    "results": {w: f"p-{w}.json" for w in TRACES}})
    write(folder, "windows.json", {"stand_in": False, "workers": {w: {} for w in TRACES}, "windows": windows})
    for w in TRACES:
        write(folder, f"s-{w}.json", result(10.0))
        write(folder, f"p-{w}.json", result(8.0))


def test_classes_and_predictions_recomputed(gpu_run, tmp_path) -> None:
    agreement = os.path.join(gpu_run, "agreement")
    write(agreement, "kernel-mix.ncu-analysis.json", {"kernels": {"top": [
        {"name": "<unnamed>::saxpy(int, float, const float *, float *)", "bound": "memory", "side": "memory"}]}})
    write(agreement, "kernel-mix.trace-analysis.json", {"kernels": {"top": [
        {"name": "(anonymous namespace)::saxpy(int, float, float const*, float*)", "bound": "memory",
         "side": "memory"}]}})
    for w, rel in TRACES.items():
        os.makedirs(os.path.join(agreement, f"{w}-cupti"))
        os.symlink(data_path(rel), os.path.join(agreement, f"{w}-cupti", "kernels_1.json.gz"))
    mps_windows(gpu_run)
    dest = tmp_path / "repo"
    assert ingest.main([gpu_run, "--dest", str(dest), "--kraken", KRAKEN]) == 0
    docs = (dest / "docs" / "validation.md").read_text()
    assert "**kernel-mix**: bound agrees on 1/1 kernels, side on 1/1." in docs
    assert "- classes kernel-mix: 1/1 kernels matched" in docs
    predictions = dest / "examples" / "colocation" / "predictions"
    uncapped = json.loads((predictions / "resnet50-train+bert-infer.mps-uncapped.json").read_text())
    slowdown = uncapped["modes"][0]["predictions"][0]["slowdown"]
    assert uncapped["modes"][0]["sm_shares"] == [1, 1] and slowdown >= 1.0
    # Measured 10/8 = 1.25 under MPS; the row carries the uncapped prediction.
    assert f"| resnet50-train+bert-infer | resnet50-train | 1.250 | {slowdown:.3f} |" in docs
    assert "- predictions: 1 pairs recomputed from run 1's CUPTI traces (the run that measured the pairs) with" in docs
    # The recorded run's own prediction (gemm+elementwise, from the store) is replaced: no trace of those.
    assert not (predictions / "gemm+elementwise.json").exists()

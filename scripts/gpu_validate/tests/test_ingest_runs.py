"""ingest.py on two runs kept apart where it matters: each overhead table labelled with its
run (phase 3/5 of run 1, phase 7's breakdown and NVML latency of run 2, record-nvml's frame
reads), issue 13's targets met or missed, what failed said per run (fixed later, skipped for
lack of time, MIG refused), and co-location predictions from the run that measured the pairs."""
from __future__ import annotations

import gzip
import json
import os
import shutil

from conftest import BUILD_DIR, data_path
import ingest
import test_figures_ingest
from test_figures_ingest import result, write
from test_ingest_merge import TRACES, mps_windows, steps

gpu_run = test_figures_ingest.gpu_run  # run 1: a results folder with round numbers

KRAKEN = os.path.join(BUILD_DIR, "src", "cli", "kraken")
FRAME_LINE = ("kraken: frame reads took 5.243 ms median, 310.584 ms max; 90 of 895 frames made the slow reads "
              "(5.219 ms median without them)\n")


def step_result(tp: float, p50: float) -> dict:
    doc = result(tp)
    doc["step_ms"]["p50"] = p50
    doc["unit"] = "images"
    return doc


def second_run(tmp_path) -> str:
    """Run 2: phases 1,2,7 with round numbers; the agent windows skipped for lack of time."""
    root = str(tmp_path / "run2" / ingest.TOP)
    write(root, "run.json", {"mode": "gpu", "start_unix": 1800003600, "phases": [1, 2, 7]})
    for run, tp, p50 in (("plain", 110.0, 40.0), ("cupti", 80.0, 50.0), ("plain2", 90.0, 38.0)):
        write(root, f"overhead/p7-resnet50-train-{run}.json", step_result(tp, p50))
    for run, tp in (("plain", 100.0), ("cupti", 50.0), ("cupti-api-none", 40.0), ("torch-cuda", 80.0),
                    ("plain2", 100.0)):
        write(root, f"overhead/p7-small-kernels-{run}.json", result(tp))
    write(root, "agreement/resnet50-train.cupti-run.json", step_result(99.0, 39.0))
    write(root, "examples/resnet50-train.run.json", step_result(70.0, 55.0))
    write(root, "overhead/p7-nvml-latency.json", {"sum_of_medians_us": 2500.0, "functions": {
        "nvmlDeviceGetUtilizationRates": {"median_us": 5.0, "p99_us": 6.0, "calls": 200, "last_return": "SUCCESS"},
        "nvmlDeviceGetFieldValues(PCIe bytes)": {
            "median_us": 300.0, "p99_us": 500.0, "calls": 200, "last_return": "SUCCESS",
            "field_value_types": {"197": "UNSIGNED_INT", "198": "UNSIGNED_INT"}}}})
    write(root, "logs/record-nvml.log", "kraken: wrote 895 frames of 1 GPUs to x.nvml\n" + FRAME_LINE)
    write(root, "agreement/resnet50-train.compare.json", {
        "steps_compared": list(range(20)), "kernels": {"reference": 1000, "other": 1000, "diff_pct": 0.0},
        "kernel_time_us": {"reference": 2000.0, "other": 2030.0, "diff_pct": 1.5}})
    write(root, "logs/p7.agent.log", "$ python3 windows.py\nwindow alone-1: skipped: no time left before the deadline\n"
                                     "window agent-100ms: skipped: no time left before the deadline\n")
    steps(root, [{"step": "p2.resnet50-train-compare", "status": "ok"},
                 {"step": "p7.agent-overhead", "status": "failed rc=1", "log": "logs/p7.agent.log"}])
    return root


def section(docs: str, start: str, end: str) -> str:
    return docs[docs.index(start):docs.index(end, docs.index(start))]


def test_each_table_names_its_run(gpu_run, tmp_path) -> None:
    steps(gpu_run, [{"step": "p2.resnet50-train-compare", "status": "failed rc=1", "log": "logs/c.log"}])
    write(gpu_run, "logs/c.log", "$ compare\nsteps compared: 0\n")
    write(gpu_run, "actions/mig/apply.rc", "2\n")
    write(gpu_run, "actions/mig/apply.txt", "kraken: error: GPU 0: MIG mode is off; enable it first\n")
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps({"runs": {"1800003600": "changed since run 1: NVML slow cadence 1 s"}}))
    dest = tmp_path / "repo"
    assert ingest.main([gpu_run, second_run(tmp_path), "--dest", str(dest), "--kraken", KRAKEN,
                        "--notes", str(notes)]) == 0
    docs = (dest / "docs" / "validation.md").read_text()
    overhead = section(docs, "## Overhead", "## Issue 13's targets")
    run1 = "run 1 (2027-01-15 08:00 UTC, phases 1,2,3,4,5,6)"
    run2 = "run 2 (2027-01-15 09:00 UTC, phases 1,2,7)"
    assert f"*From {run1}.* Phase 3 (agent, GEMM tracer)" in overhead
    assert "| gemm, CUPTI tracer | 100.000 -> 98.000 | +2.04 % | |" in overhead
    assert f"*From {run2}; changed since run 1: NVML slow cadence 1 s.* Phase 7" in overhead
    # Baseline = mean of the plain runs (100/s): 100/80 - 1; noise = 110/90 - 1.
    assert "| resnet50-train | plain | no tool | 110.0 images/s | 40.00 ms | (baseline) | +22.22 % |" in overhead
    assert "| resnet50-train | cupti |" in overhead and "| 80.0 images/s | 50.00 ms | +25.00 % |  |" in overhead
    assert "| small-kernels | torch-cuda |" in overhead and "+25.00 % |  |" in overhead
    # NVML side by side; the PCIe bytes fields' value types; the sums per run.
    assert "| nvmlDeviceGetUtilizationRates | 10.00 / 12.00, 200 | 5.00 / 6.00, 200 | SUCCESS |  |" in overhead
    assert ("| nvmlDeviceGetFieldValues(PCIe bytes) | not called | 300.00 / 500.00, 200 | SUCCESS | "
            "field 197: UNSIGNED_INT, field 198: UNSIGNED_INT |") in overhead
    assert "| sum of the medians, per GPU and pass | **30.0 us** | **2.5 ms** | | |" in overhead
    assert f"- {run1}: record-nvml printed no frame-read line" in overhead
    assert (f"- {run2}: frame reads took 5.243 ms median, 310.584 ms max; 90 of 895 frames made the slow reads "
            "(energy, PCIe: 5.219 ms median without them); one pass of every call, sum of the medians above: "
            "2.5 ms.") in overhead
    targets = section(docs, "## Issue 13's targets", "## Co-location")
    assert (f"- CUPTI vs torch.profiler, resnet50-train, {run2}: 1000 vs 1000 kernels, kernel time +1.50 %: "
            "target **missed**") in targets
    assert f"- CUPTI tracer overhead, resnet50-train, {run2}, phase 7: +25.00 %: target **missed** (< 1 %)." in targets
    assert "- under `kraken profile --kernels` (phase 2, 20 steps): 39.00 ms;" in targets
    assert "- plain, no tool (phase 7): 40.00 / 38.00 ms;" in targets
    assert "(phase 7): 50.00 ms, throughput -20.00 %;" in targets
    assert "- torch.profiler (phase 1, 20 steps): 55.00 ms." in targets
    assert "the tracer costs +100.00 % and torch.profiler recording CUDA only +25.00 %" in targets
    assert "lost 20.0 % of the throughput injected directly" in targets and "**not yet explained**" in targets
    failed = section(docs, "## What failed", "## All figures")
    assert "- step `p2.resnet50-train-compare` failed rc=1 in run 1 (log: steps compared: 0); **fixed by run 2**" in failed
    assert ("- step `p7.agent-overhead`: not measured in run 2: all 2 windows skipped (no time left before the "
            "deadline), for lack of time.") in failed
    assert "- run 2 left out phases 3,4,5,6: their tables come from run 1." in failed
    assert ("- no MIG measured (run 1): MIG mode off; `kraken mig apply --dry-run` refused with exit 2, as designed "
            "(`kraken: error: GPU 0: MIG mode is off; enable it first`).") in failed
    assert "- target missed: CUPTI tracer on small-kernels +100.00 % (run 2, phase 7; issue 13: < 3 %)" in failed
    assert "- run 2, `kraken-gpu-validate`: gpu run of 2027-01-15 09:00 UTC, phases 1,2,7; changed since run 1" in docs
    readme = (dest / "examples" / "nvidia-h100-80gb-hbm3" / "README.md").read_text()
    assert f"(docs/validation.md lists them: {run1}; {run2});" in readme
    assert "| `resnet50-train.pt.trace.json.gz` | torch.profiler trace (Kineto) of 20 ResNet-50 training steps | run 1 |" in readme


def link_traces(root: str, pid: int, traces: dict) -> None:
    for w, rel in traces.items():
        folder = os.path.join(root, "agreement", f"{w}-cupti")
        os.makedirs(folder, exist_ok=True)
        os.symlink(data_path(rel), os.path.join(folder, f"kernels_{pid}.json.gz"))


def test_predictions_come_from_the_run_that_measured_the_pairs(gpu_run, tmp_path) -> None:
    link_traces(gpu_run, 1, TRACES)
    mps_windows(gpu_run)
    later = str(tmp_path / "run2" / ingest.TOP)
    write(later, "run.json", {"mode": "gpu", "start_unix": 1800003600, "phases": [1, 2, 7]})
    # Run 2 traced the same workloads again (other traces, other process ids).
    link_traces(later, 2, dict(zip(TRACES, reversed(list(TRACES.values())))))
    alone, merged = tmp_path / "alone", tmp_path / "merged"
    assert ingest.main([gpu_run, "--dest", str(alone), "--kraken", KRAKEN]) == 0
    assert ingest.main([gpu_run, later, "--dest", str(merged), "--kraken", KRAKEN]) == 0
    index = json.loads((merged / "examples" / "colocation" / "predictions" / "index.json").read_text())
    assert index["traces"] == {w: f"agreement/{w}-cupti/kernels_1.json.gz" for w in TRACES}
    pairs = [json.loads((d / "examples" / "colocation" / "pairs.json").read_text())["pairs"] for d in (alone, merged)]
    assert pairs[0] == pairs[1] and any(p["predicted_slowdown"] for p in pairs[1])
    assert "from run 1's CUPTI traces (the run that measured the pairs)" in (merged / "docs" / "validation.md").read_text()
    # The examples' trace is run 2's alone (its agreement figures'), not the larger of both runs'.
    example = merged / "examples" / "nvidia-h100-80gb-hbm3" / "resnet50-train.cupti.json.gz"
    with gzip.open(example, "rb") as f, gzip.open(data_path(TRACES["bert-infer"]), "rb") as g:
        assert f.read() == g.read()
    # The co-location traces are run 1's, the ones the predictions came from (golden test).
    for w, rel in TRACES.items():
        with gzip.open(merged / "examples" / "colocation" / "traces" / f"{w}.json.gz", "rb") as f, \
                gzip.open(data_path(rel), "rb") as g:
            assert f.read() == g.read(), w


def test_a_bad_notes_file_is_one_line_naming_it(gpu_run, tmp_path, capsys) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text('{"runs": ["not", "a", "map"]}')
    assert ingest.main([gpu_run, "--dest", str(tmp_path / "repo"), "--notes", str(notes)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ingest: {notes}: not a run notes file") and err.count("\n") == 1
    assert not (tmp_path / "repo").exists()


def test_a_page_naming_runs_not_given_is_not_overwritten(gpu_run, tmp_path, capsys) -> None:
    """Run 1's archive gone, a later run alone into the same repository: refused, the page
    kept; with run 1 given first they merge; --replace writes the later run's page alone."""
    dest = tmp_path / "repo"
    assert ingest.main([gpu_run, "--dest", str(dest), "--kraken", KRAKEN]) == 0
    docs = dest / "docs" / "validation.md"
    page = docs.read_text()
    assert "2027-01-15 08:00 UTC" in page  # run 1's start_unix 1800000000
    capsys.readouterr()
    rerun = str(tmp_path / "rerun" / ingest.TOP)
    shutil.copytree(gpu_run, rerun)
    with open(os.path.join(rerun, "run.json"), encoding="utf-8") as f:
        run = json.load(f)
    run["start_unix"] = 1800007200
    write(rerun, "run.json", run)
    assert ingest.main([rerun, "--dest", str(dest), "--kraken", KRAKEN]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ingest: {docs} holds the figures of GPU run(s) 2027-01-15 08:00 UTC,") and err.count("\n") == 1
    assert docs.read_text() == page
    assert ingest.main([gpu_run, rerun, "--dest", str(dest), "--kraken", KRAKEN]) == 0
    assert "run 1 (2027-01-15 08:00 UTC" in docs.read_text() and "run 2 (2027-01-15 10:00 UTC" in docs.read_text()
    assert ingest.main([rerun, "--dest", str(dest), "--kraken", KRAKEN, "--replace"]) == 0
    run_line = next(line for line in docs.read_text().splitlines() if line.startswith("Run: "))
    assert "2027-01-15 10:00 UTC" in run_line and "08:00" not in run_line

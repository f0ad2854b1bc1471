"""figures.py and ingest.py on a results folder shaped like a GPU run's, with round
numbers, so that every definition (slowdown, model error, overhead, drift) is checked by
hand; and on a rehearsal, where everything must read "not measured"."""
from __future__ import annotations

import csv
import json
import os

import pytest

import figures
import ingest
from conftest import write


def result(tp: float, p99: float = 10.0, stand_in: bool = False) -> dict:
    return {"throughput_per_s": tp, "unit": "TFLOP", "stand_in": stand_in,
            "step_ms": {"p50": p99 / 2, "p90": p99 * 0.9, "p99": p99, "mean": p99 / 2, "min": 1, "max": p99}}


def prediction(timeslice, mps) -> dict:
    def mode(name, values, shares):
        return {"mode": name, "sm_shares": shares, "predictions": [
            {"name": n, "slowdown": v, "latency": None} for n, v in zip(("a", "b"), values)]}
    return {"modes": [mode("timeslice", timeslice, []), mode("mps", mps, [1, 1]), mode("mig", (9, 9), [0.4, 0.6])]}


@pytest.fixture
def gpu_run(tmp_path) -> str:
    root = tmp_path / "kraken-gpu-validate"
    write(root, "run.json", {"mode": "gpu", "start_unix": 1800000000, "kraken_from": "bundle kraken.tar.gz"})
    write(root, "env/gpu-query.txt", "index, name, driver_version, memory.total [MiB], compute_cap\n"
                                     "0, NVIDIA H100 80GB HBM3, 580.65.06, 81559 MiB, 9.0\n")
    write(root, "env/nvidia-smi.txt", "| NVIDIA-SMI 580.65.06   Driver Version: 580.65.06   CUDA Version: 13.0 |\n")
    write(root, "env/python.txt", {"python": "3.12.3", "torch": "2.11.0+cu130", "cuda_available": True})
    write(root, "logs/p1.resnet50-train.log", "$ python3 /x/scripts/gpu_validate/workloads.py --workload "
                                              "resnet50-train --out /tmp/kraken-gpu-validate.Ab12/kraken-gpu-validate/a.json\n")
    write(root, "examples/resnet50-train.pt.trace.json.gz", "not really gzip, copied as is")
    write(root, "agreement/resnet50-train.compare.json", {
        "steps_compared": list(range(20)), "kernels": {"reference": 1000, "other": 1000, "diff_pct": 0.0},
        "kernel_time_us": {"reference": 2000.0, "other": 2010.0, "diff_pct": 0.5}, "names_with_different_counts": [],
        "gpu_window": {"reference": {"kernels": 1001}, "other": {"kernels": 1002}}})
    agent = "overhead/agent/"
    write(root, agent + "windows.json", {"stand_in": False, "windows": [
        {"tag": "alone-1", "results": {"gemm": "a1.json"}, "status": "ok"},
        {"tag": "agent-100ms", "results": {"gemm": "g.json"}, "status": "ok", "agent": {"scrapes": [
            {"kraken_agent_sample_duration_seconds": 0.002, "kraken_agent_samples_total": 10},
            {"kraken_agent_sample_duration_seconds": 0.004, "kraken_agent_samples_total": 20},
            {"kraken_agent_sample_duration_seconds": 0.003, "kraken_agent_samples_total": 30}]}},
        {"tag": "alone-2", "results": {"gemm": "a2.json"}, "status": "ok"}]})
    write(root, agent + "a1.json", result(100.0))
    write(root, agent + "a2.json", result(100.0))
    write(root, agent + "g.json", result(99.0))
    write(root, "overhead/gemm-plain.json", result(100.0))
    write(root, "overhead/gemm-cupti.json", result(98.0))
    write(root, "overhead/nvml-latency.json", {"library": "libnvidia-ml.so.1", "sum_of_medians_us": 30.0, "functions": {
        "nvmlDeviceGetUtilizationRates": {"median_us": 10.0, "p99_us": 12.0, "calls": 200, "last_return": "SUCCESS"},
        "nvmlDeviceGetPcieThroughput(TX)": {"median_us": 20.0, "p99_us": 25.0, "calls": 25, "last_return": "SUCCESS"},
        "nvmlGpmSampleGet": {"absent": True}}})
    ts = "colocation/timeslice/"
    write(root, ts + "windows.json", {"stand_in": False, "workers": {"gemm": {}, "elementwise": {}}, "skipped": [
        {"tag": "gemm+bert-infer", "reason": "no time left before the deadline"}], "windows": [
        {"tag": "solo-gemm", "members": ["gemm"], "results": {"gemm": "s1g.json"}, "status": "ok"},
        {"tag": "solo-elementwise", "members": ["elementwise"], "results": {"elementwise": "s1e.json"}, "status": "ok"},
        {"tag": "gemm+elementwise", "members": ["gemm", "elementwise"],
         "results": {"gemm": "pg.json", "elementwise": "pe.json"}, "status": "ok"},
        {"tag": "solo2-gemm", "members": ["gemm"], "results": {"gemm": "s2g.json"}, "status": "ok"},
        {"tag": "solo2-elementwise", "members": ["elementwise"], "results": {"elementwise": "s2e.json"}, "status": "ok"}]})
    write(root, ts + "s1g.json", result(100.0, 10.0))
    write(root, ts + "s2g.json", result(100.0, 10.0))
    write(root, ts + "s1e.json", result(10.0, 4.0))
    write(root, ts + "s2e.json", result(12.0, 4.0))
    write(root, ts + "pg.json", result(50.0, 30.0))
    write(root, ts + "pe.json", result(5.5, 8.0))
    write(root, "colocation/predictions/gemm+elementwise.json", prediction((1.6, 2.2), (1.1, 1.3)))
    write(root, "colocation/gemm.profile.json", {"stored": {"profile_id": 3}})
    return str(root)


def test_figures_by_hand(gpu_run) -> None:
    figs = figures.all_figures(gpu_run)
    trace = figs["agreement"]["traces"][0]
    assert trace["measured"] and trace["kernels_cupti"] == 1000 and trace["time_diff_pct"] == 0.5
    assert figs["agreement"]["traces"][1] == {"workload": "bert-infer", "measured": False}
    agent = {r["window"]: r for r in figs["overhead"]["agent"]}
    assert agent["agent-100ms"]["overhead_pct"] == pytest.approx((100 / 99 - 1) * 100)
    assert agent["agent-100ms"]["pass_ms_median"] == pytest.approx(3.0) and agent["agent-100ms"]["passes"] == 20
    assert agent["alone-2 vs alone-1 (noise)"]["overhead_pct"] == pytest.approx(0.0)
    assert figs["overhead"]["cupti"][0]["overhead_pct"] == pytest.approx((100 / 98 - 1) * 100)
    assert figs["overhead"]["cupti"][1]["overhead_pct"] is None  # small-kernels not run
    assert list(figs["overhead"]["nvml"]["functions"]) == ["nvmlDeviceGetUtilizationRates",
                                                          "nvmlDeviceGetPcieThroughput(TX)"]
    ts = figs["colocation"]["timeslice"]
    assert ts["solo"]["elementwise"]["throughput_per_s"] == pytest.approx(11.0)
    assert ts["solo"]["elementwise"]["drift_pct"] == pytest.approx((10 / 12 - 1) * 100)
    rows = {r["workload"]: r for r in ts["pairs"]}
    assert rows["gemm"]["measured_slowdown"] == pytest.approx(2.0)
    assert rows["gemm"]["predicted_slowdown"] == 1.6 and rows["gemm"]["error_pct"] == pytest.approx(-20.0)
    assert rows["elementwise"]["measured_slowdown"] == pytest.approx(2.0)
    assert rows["elementwise"]["error_pct"] == pytest.approx(10.0)
    assert rows["gemm"]["measured_p99_increase"] == pytest.approx(3.0)
    assert ts["error"] == {"n": 2, "mean_abs_pct": pytest.approx(15.0), "max_abs_pct": pytest.approx(20.0)}
    assert figs["colocation"]["mps"] is None
    text = figures.render_text(figs)
    assert "model error over 2 workload-pairs: mean |error| 15.0 %, max 20.0 %" in text
    assert "co-location (mps): not run" in text


def test_ingest_writes_examples_colocation_and_docs(gpu_run, tmp_path, capsys) -> None:
    dest = tmp_path / "repo"
    assert ingest.main([gpu_run, "--dest", str(dest)]) == 0
    folder = dest / "examples" / "nvidia-h100-80gb-hbm3"
    readme = (folder / "README.md").read_text()
    assert readme.startswith("# NVIDIA H100 80GB HBM3: recorded by scripts/gpu-validate.sh")
    assert "| driver | 580.65.06 (CUDA 13.0) |" in readme and "2.11.0+cu130" in readme
    assert ("p1.resnet50-train: python3 scripts/gpu_validate/workloads.py --workload resnet50-train "
            "--out $RESULTS/a.json") in readme
    assert (folder / "resnet50-train.pt.trace.json.gz").read_text() == "not really gzip, copied as is"
    with open(str(dest / "examples" / "colocation" / "pairs.csv")) as f:
        rows = list(csv.DictReader(f))
    assert [(r["pair"], r["workload"], r["measured_slowdown"], r["error_pct"]) for r in rows] == [
        ("gemm+elementwise", "gemm", "2.0", "-20.0"), ("gemm+elementwise", "elementwise", "2.0", "10.0")]
    assert (dest / "examples" / "colocation" / "predictions" / "gemm+elementwise.json").exists()
    docs = (dest / "docs" / "validation.md").read_text()
    assert "| gemm+elementwise | gemm | 2.000 | 1.600 | -20.00 % | 10.00 -> 30.00 |" in docs
    assert "| resnet50-train | 20 | 1000 | 1000 | +0.00 % | 2.000 | 2.010 | +0.50 % | 1001 / 1002 |" in docs
    assert "| nvmlDeviceGetPcieThroughput(TX) | 20.00 / 25.00, 25 | SUCCESS |  |" in docs
    assert "mean |error| 15.0 %" in docs and "No GPU run yet" not in docs
    assert "gemm+bert-infer (no time left before the deadline)" in docs
    assert 'carry=["dist"], timeout_s=540' in docs
    assert "model error over 2 workload-pairs" in capsys.readouterr().out


def test_a_rehearsal_measures_nothing(gpu_run, tmp_path) -> None:
    run = os.path.join(gpu_run, "run.json")
    with open(run, "w") as f:
        json.dump({"mode": "replay"}, f)
    for path in ("colocation/timeslice/windows.json", "overhead/agent/windows.json"):
        full = os.path.join(gpu_run, path)
        with open(full) as f:
            doc = json.load(f)
        doc["stand_in"] = True
        with open(full, "w") as f:
            json.dump(doc, f)
    dest = tmp_path / "repo"
    assert ingest.main([gpu_run, "--dest", str(dest)]) == 0
    assert not (dest / "examples").exists()  # nothing measured: no examples without --allow-replay
    docs = (dest / "docs" / "validation.md").read_text()
    assert "**No GPU run yet.**" in docs
    assert "| resnet50-train | not measured |" in docs
    assert "**time-slicing (kraken `timeslice`)**: not measured (rehearsal with stand-in workers)" in docs
    figs = figures.all_figures(gpu_run)
    assert figs["overhead"]["nvml"]["measured"] is False


def test_mps_measured_without_cap_meets_the_uncapped_prediction(tmp_path) -> None:
    root = str(tmp_path)
    capped = prediction((1.6, 2.2), (1.1, 1.3))
    capped["modes"][1]["sm_shares"] = [0.5, 0.5]  # --mode all's suggested split: not what ran
    write(root, "colocation/predictions/gemm+elementwise.json", capped)
    assert figures.predicted(root, "gemm", "elementwise", "gemm", "mps")["slowdown"] is None
    assert figures.predicted(root, "gemm", "elementwise", "elementwise", "timeslice")["slowdown"] == 2.2
    write(root, "colocation/predictions/gemm+elementwise.mps-uncapped.json",
          {"modes": [{"mode": "mps", "sm_shares": [1, 1], "predictions": [{"slowdown": 1.9}, {"slowdown": 6.0}]}]})
    assert figures.predicted(root, "gemm", "elementwise", "gemm", "mps")["slowdown"] == 1.9
    assert figures.predicted(root, "gemm", "elementwise", "elementwise", "mps")["slowdown"] == 6.0
    assert figures.predicted(root, "gemm", "elementwise", "elementwise", "timeslice")["slowdown"] == 2.2

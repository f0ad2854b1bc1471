"""figures.py's overhead breakdown (gpu-validate.sh phase 7) on round numbers checked by
hand: each run against the mean of the plain runs, the plain runs' noise, the agent
windows and NVML of phase 7; and its absence or rehearsal."""
from __future__ import annotations

import pytest

import figures
from conftest import window, write


@pytest.fixture
def phase7_run(tmp_path) -> str:
    root = tmp_path / "kraken-gpu-validate"
    write(root, "run.json", {"mode": "gpu", "phases": [1, 2, 7]})
    runs = {"resnet50-train": {"plain": 100.0, "cupti": 99.0, "plain2": 98.0},
            "small-kernels": {"plain": 110.0, "cupti": 80.0, "cupti-api-none": 90.0, "torch-cuda": 50.0,
                              "plain2": 90.0},
            "short-kernels": {"plain": 200.0, "cupti": 199.0}}
    for w, values in runs.items():
        for run, tp in values.items():
            write(root, f"overhead/p7-{w}-{run}.json", window(tp))
    write(root, "overhead/p7-agent/windows.json", {"stand_in": False, "windows": [
        {"tag": "alone-1", "results": {"gemm": "a1.json"}},
        {"tag": "agent-10ms", "results": {"gemm": "g.json"}, "agent": {"scrapes": [
            {"kraken_agent_sample_duration_seconds": 0.001, "kraken_agent_samples_total": 5}]}},
        {"tag": "alone-2", "results": {"gemm": "a2.json"}}]})
    write(root, "overhead/p7-agent/a1.json", window(100.0))
    write(root, "overhead/p7-agent/a2.json", window(100.0))
    write(root, "overhead/p7-agent/g.json", window(98.0))
    write(root, "overhead/p7-nvml-latency.json", {"functions": {"nvmlDeviceGetUtilizationRates": {"median_us": 3.0}},
                                                  "sum_of_medians_us": 42.5})
    return str(root)


def test_breakdown_against_the_mean_of_the_plain_runs(phase7_run) -> None:
    b = figures.all_figures(phase7_run)["overhead_breakdown"]
    by = {w["workload"]: w for w in b["workloads"]}
    resnet = {r["run"]: r for r in by["resnet50-train"]["runs"]}
    assert by["resnet50-train"]["baseline_per_s"] == pytest.approx(99.0)
    assert resnet["cupti"]["overhead_pct"] == pytest.approx(0.0)  # 99 / 99 - 1
    assert resnet["plain"]["overhead_pct"] is None and resnet["plain2"]["throughput_per_s"] == 98.0
    assert by["resnet50-train"]["noise_pct"] == pytest.approx((100 / 98 - 1) * 100)
    small = {r["run"]: r["overhead_pct"] for r in by["small-kernels"]["runs"]}
    assert small["cupti"] == pytest.approx(25.0) and small["cupti-api-none"] == pytest.approx(100 / 9)
    assert small["torch-cuda"] == pytest.approx(100.0)
    assert by["short-kernels"]["noise_pct"] is None  # one plain run: its own baseline
    short = {r["run"]: r["overhead_pct"] for r in by["short-kernels"]["runs"]}
    assert short["cupti"] == pytest.approx((200 / 199 - 1) * 100)
    agent = {r["window"]: r for r in b["agent"]}
    assert agent["agent-10ms"]["overhead_pct"] == pytest.approx((100 / 98 - 1) * 100)
    assert agent["agent-10ms"]["pass_ms_median"] == pytest.approx(1.0)
    assert b["nvml_sum_of_medians_us"] == 42.5


def test_breakdown_text(phase7_run) -> None:
    text = figures.render_text(figures.all_figures(phase7_run))
    lines = text[text.index("overhead breakdown (phase 7)"):].splitlines()
    assert lines[0] == "overhead breakdown (phase 7): each run vs the mean of the plain runs (+: slower)"
    assert "  small-kernels   cupti           80.000/s overhead +25.00 %" in lines
    assert "  small-kernels   plain           110.000/s (baseline)" in lines
    assert "  resnet50-train  plain2 vs plain (noise) +2.04 %" in lines
    assert not any(line.startswith("  short-kernels   plain2") for line in lines)
    assert any(line.startswith("  agent agent-10ms") and "overhead +2.04 %, pass 1.000 ms median" in line
               for line in lines)
    assert "  NVML per call: sum of medians 42.5 us per GPU and pass" in lines


def test_breakdown_not_run_and_rehearsed(tmp_path) -> None:
    root = tmp_path / "r"
    write(root, "run.json", {"mode": "replay"})
    assert "overhead breakdown (phase 7): not run" in figures.render_text(figures.all_figures(str(root)))
    write(root, "overhead/p7-nvml-latency.json", {"functions": {"x": {"median_us": 1.0}}, "sum_of_medians_us": 1.0})
    write(root, "overhead/p7-small-kernels-plain.json", window(5.0, stand_in=True))
    b = figures.overhead_breakdown(str(root))
    assert b["ran"] and b["nvml_sum_of_medians_us"] is None
    assert all(r["throughput_per_s"] is None for w in b["workloads"] for r in w["runs"])
    text = "\n".join(figures.render_breakdown(b))
    assert "small-kernels   cupti           not measured/s overhead not measured" in text
    assert "NVML per call: not measured (replayed NVML)" in text


def test_second_version_rows_and_traced_windows(phase7_run) -> None:
    # Run 2's puzzle: the directly injected tracer slow, under `kraken profile` not.
    write(phase7_run, "overhead/p7-resnet50-train-kraken-profile.json", window(99.0))
    write(phase7_run, "overhead/p7-resnet50-train-cupti-kernels.json", window(89.1))
    write(phase7_run, "overhead/p7-traces/resnet50-train-cupti.json",
          {"step_p50_ms": 47.5, "kernels_per_step": 737.0, "kernel_ms_per_step": 36.2, "gpu_busy_fraction": 0.75,
           "distinct_kernel_names": 3, "kernel_names": {"conv": 1, "bn": 1, "relu": 1},
           "top_kernels": [{"name": "conv", "count": 1, "time_ms": 1.0}],
           "launches": {"api_calls": 2000, "launch_calls": 737, "launch_us_p50": 7.25, "launch_us_p90": 12.5,
                        "launch_ms_per_step": 5.6}})
    write(phase7_run, "overhead/p7-traces/resnet50-train-kraken-profile.json",
          {"step_p50_ms": 38.8, "kernels_per_step": 737.0, "kernel_ms_per_step": 36.1, "gpu_busy_fraction": 0.9,
           "distinct_kernel_names": 3, "kernel_names": {"conv": 1, "bn": 1, "gemm": 1},
           "top_kernels": [{"name": "gemm", "count": 1, "time_ms": 2.0}],
           "tracer_cost": {"flushes": 4, "flush_ms_total": 2.0, "flush_ms_max": 1.25, "writer_cpu_ms": 310.0,
                           "process_cpu_ms": 9000.0, "traced_ms": 7000.0}})
    b = figures.overhead_breakdown(phase7_run)
    resnet = {r["run"]: r["overhead_pct"] for r in b["workloads"][0]["runs"]}
    assert set(resnet) == {"plain", "cupti", "kraken-profile", "cupti-kernels", "plain2"}  # absent ones left out
    assert resnet["kraken-profile"] == pytest.approx(0.0) and resnet["cupti-kernels"] == pytest.approx(100 / 90 * 10)
    traces = {r["run"]: r for r in b["traces"]}
    assert traces["resnet50-train-kraken-profile"]["names_not_in_reference"] == 1
    assert traces["resnet50-train-kraken-profile"]["reference_names_missing"] == 1
    assert traces["resnet50-train-cupti"]["names_not_in_reference"] == 0
    text = "\n".join(figures.render_breakdown(b))
    assert "  resnet50-train  kraken-profile  99.000/s overhead +0.00 %" in text
    assert ("    resnet50-train-kraken-profile    step p50 38.80 ms, 737.0 kernels and 36.10 ms kernel time per step, "
            "GPU busy 90.0 %, 3 names (+1/-1); top gemm") in text
    assert ("      tracer: writer CPU 310.0 ms of the process's 9000.0 ms over 7000.0 ms traced; 4 flushes, "
            "2.0 ms in all, longest 1.2 ms") in text
    assert "      launch calls: p50 7.25 us, p90 12.50 us, 5.60 ms per step" in text
    assert text.count("launch calls:") == 1  # the kraken-profile summary has none

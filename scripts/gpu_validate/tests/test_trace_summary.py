"""trace_summary.py (gpu-validate.sh phase 7): a real torch.profiler trace of the shared
data summarized whole; kraken's incremental trace format placed against a run's window and
cut mid-line; unreadable input refused in one line."""
from __future__ import annotations

import gzip
import json
import os

import pytest

import trace_summary
from conftest import data_path

ALEXNET = "kineto/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz"


def test_a_real_trace_summarized_whole(tmp_path) -> None:
    out = tmp_path / "s.json"
    assert trace_summary.main(["--trace", data_path(ALEXNET), "--out", str(out), "--label", "alexnet"]) == 0
    s = json.loads(out.read_text())
    with gzip.open(data_path(ALEXNET), "rt") as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X"]
    assert s["window"] == "whole trace" and s["kernels_per_step"] is None
    assert s["kernels"] == len(events) == 79
    assert s["kernel_time_ms"] == pytest.approx(sum(e["dur"] for e in events) / 1e3)
    assert s["distinct_kernel_names"] == 16 == len(s["kernel_names"])
    times = [k["time_ms"] for k in s["top_kernels"]]
    assert len(times) == 5 and times == sorted(times, reverse=True)
    assert sum(s["kernel_names"].values()) == 79


def kraken_trace_text(base_ns: int, kernels) -> str:
    """kraken's writer's layout: header, one event per line led by its separator."""
    lines = ['{"schemaVersion": 1, "kraken_cupti_activities": "kernels", "baseTimeNanoseconds": %d, '
             '"incrementalEvents": true, "traceEvents": [' % base_ns]
    for i, (name, ts_us, dur_us) in enumerate(kernels):
        sep = "" if i == 0 else ","
        lines.append(sep + json.dumps({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                                       "ts": ts_us, "dur": dur_us}))
    return "\n".join(lines)


def test_the_runs_window_and_a_cut_trace(tmp_path) -> None:
    base_ns = 1_800_000_000 * 10**9
    # 2 kernels before the window (warm-up), 4 in it (2 steps), 1 after.
    kernels = [("warm", 0.0, 5.0), ("warm", 10.0, 5.0), ("conv", 1e6, 30.0), ("relu", 1e6 + 40, 10.0),
               ("conv", 1.5e6, 30.0), ("bn", 1.5e6 + 40, 20.0), ("late", 3e6, 1.0)]
    text = kraken_trace_text(base_ns, kernels) + '\n,{"ph": "X", "cat": "ker'  # killed mid-line
    trace = tmp_path / "kraken_cupti_1.json"
    trace.write_text(text)
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"start_unix": 1_800_000_000.9, "end_unix": 1_800_000_002.0, "steps": 2,
                               "step_ms": {"p50": 40.0}}))
    out = tmp_path / "s.json"
    assert trace_summary.main(["--trace", str(trace), "--run", str(run), "--out", str(out)]) == 0
    s = json.loads(out.read_text())
    assert s["kernels"] == 4 and s["kernels_per_step"] == 2.0
    assert s["kernel_ms_per_step"] == pytest.approx(0.045)
    assert s["gpu_busy_fraction"] == pytest.approx(90e-6 / 1.1)
    assert s["top_kernels"][0] == {"name": "conv", "count": 2, "time_ms": pytest.approx(0.06)}
    assert s["distinct_kernel_names"] == 3 and s["activities"] == "kernels" and s["step_p50_ms"] == 40.0
    assert s["tracer_cost"]["writer_cpu_ms"] is None  # cut before the footer
    assert s["launches"]["launch_calls"] == 0 and s["launches"]["launch_us_p50"] is None  # kernels only


def test_launch_calls_in_the_window(tmp_path) -> None:
    base_ns = 1_800_000_000 * 10**9
    events = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": ts, "dur": dur}
              for ts, dur in ((0.0, 99.0), (1e6, 4.0), (1e6 + 10, 6.0), (1.5e6, 8.0), (1.5e6 + 10, 30.0))]
    events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "ts": 1.6e6, "dur": 500.0})
    events.append({"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "ts": 1.7e6, "dur": 2.0})
    trace = {"baseTimeNanoseconds": base_ns, "traceEvents": events}
    run = {"start_unix": 1_800_000_000.9, "end_unix": 1_800_000_002.0, "steps": 2}
    launches = trace_summary.summarize(trace, run, "t")["launches"]
    # The warm-up launch (99 us, before the window) is not counted; the sync is a call, not a launch.
    assert launches["api_calls"] == 6 and launches["launch_calls"] == 5
    assert launches["launch_us_p50"] == 6.0 and launches["launch_us_p90"] == 30.0
    assert launches["launch_ms_per_step"] == pytest.approx(0.025)


def test_the_tracers_cost_from_a_complete_trace(tmp_path) -> None:
    text = kraken_trace_text(0, [("k", 1.0, 2.0)]) + ('\n], "kraken_cupti_flushes": 3, "kraken_cupti_flush_ms_max": 1.5, '
                                                       '"kraken_cupti_writer_cpu_ms": 120.0}')
    trace = tmp_path / "t.json"
    trace.write_text(text)
    s = trace_summary.summarize(trace_summary.load_trace(str(trace)), None, "t")
    assert s["tracer_cost"]["flushes"] == 3 and s["tracer_cost"]["writer_cpu_ms"] == 120.0
    assert s["tracer_cost"]["flush_ms_max"] == 1.5 and s["tracer_cost"]["traced_ms"] is None


def test_the_capture_window_and_timestamps_of_a_complete_trace(tmp_path) -> None:
    text = kraken_trace_text(0, [("k", 1.2e6, 2.0)]) + (
        '\n], "kraken_cupti_window_start_us": 1200000.5, "kraken_cupti_window_end_us": 2200001.0, '
        '"kraken_cupti_timestamps": "sw"}')
    trace = tmp_path / "t.json"
    trace.write_text(text)
    s = trace_summary.summarize(trace_summary.load_trace(str(trace)), None, "t")
    assert s["capture"] == {"window_start_us": 1200000.5, "window_end_us": 2200001.0, "timestamps": "sw"}
    assert s["kernels"] == 1


def test_unreadable_input_is_one_line(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    assert trace_summary.main(["--trace", str(bad), "--out", str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"trace_summary.py: {bad}: not a readable trace") and "\n" not in err
    assert not os.path.exists(tmp_path / "o.json")


def test_step_launch_profile() -> None:
    def x(cat: str, name: str, ts: float, dur: float) -> dict:
        return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur}
    events = [x("user_annotation", "ProfilerStep#1", 50_000.0, 45_000.0),  # out of order on purpose
              x("user_annotation", "ProfilerStep#0", 0.0, 40_000.0),
              x("gpu_user_annotation", "ProfilerStep#0", 10.0, 39_000.0),  # the GPU projection: not a step
              x("cuda_runtime", "cudaLaunchKernel", 100.0, 5.0), x("cuda_runtime", "cudaLaunchKernel", 30_000.0, 5.0),
              x("cuda_runtime", "cudaStreamSynchronize", 30_100.0, 9_000.0),
              x("kernel", "conv", 200.0, 20_000.0), x("kernel", "relu", 30_010.0, 9_000.0),
              x("cuda_driver", "cuLaunchKernel", 90_000.0, 10.0), x("kernel", "gemm", 90_050.0, 4_000.0)]
    profile = trace_summary.step_launch_profile({"traceEvents": events})
    assert [p["step"] for p in profile] == ["ProfilerStep#0", "ProfilerStep#1"]
    assert profile[0] == {"step": "ProfilerStep#0", "step_ms": 40.0, "kernel_ms": 29.0,
                          "last_launch_end_ms": pytest.approx(30.005)}
    assert profile[1]["kernel_ms"] == 4.0 and profile[1]["last_launch_end_ms"] == pytest.approx(40.01)
    assert trace_summary.step_launch_profile({"traceEvents": []}) == []

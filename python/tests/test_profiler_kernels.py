"""WorkloadProfiler's kernel timeline on the NVML replay library: the recorder it chooses
(torch.profiler when torch is imported, kraken's CUPTI tracer when the process runs under
it, else a warning), the recorded kernels merged into the report, and the torch.profiler
step open at stop() dropped from the exported trace.

PyTorch is not installed and there is no GPU here: torch is a stand-in module with the
torch.profiler calls kraken makes, exporting a real recorded Kineto trace, and the CUPTI
tracer's output is a real trace it wrote on an H100.
"""
from __future__ import annotations

import gzip
import json
import re
import sys
import time
import types
import warnings
from pathlib import Path

import pytest

import kraken
from conftest import RESNET_TRACE, SOURCE_DIR, data, wait_for_passes

#: kraken's CUPTI trace of a ResNet-50 training run on an H100 (18421 kernels).
H100_RESNET_CUPTI = SOURCE_DIR / "examples" / "nvidia-h100-80gb-hbm3" / "resnet50-train.cupti.json.gz"


def test_kernel_timeline_without_torch_or_cupti_warns_how_to_enable_one(replay, monkeypatch) -> None:
    replay("h100.nvml", "")
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.delenv("CUDA_INJECTION64_PATH", raising=False)
    profiler = kraken.WorkloadProfiler("no-kernels", sampling_interval=20, store=False, metrics=["kernel_timeline"])
    with pytest.warns(kraken.KernelTimelineWarning, match="PyTorch is not imported and the process was not started "
                                                           "with kraken's CUPTI tracer") as record:
        with profiler:
            time.sleep(0.05)
    assert "kraken profile --kernels" in str(record[0].message)
    assert profiler.get_report().kernel_timeline is None


def stand_in_torch(calls: list, trace: Path, first_step: int = 0) -> types.SimpleNamespace:
    """A stand-in `torch` module (PyTorch is not installed here) with the torch.profiler
    calls kraken makes: profile(activities=..., schedule=...), start, step, stop,
    export_chrome_trace and the step counter `step_num`, which torch.profiler starts at 0
    and step() increments (`first_step` starts it elsewhere, so that a real recorded trace's
    ProfilerStep numbers can stand for the ranges). export_chrome_trace writes `trace`.
    torch.profiler records ProfilerStep#N ranges only when given a schedule, so the stand-in
    checks that kraken passes one that records every step."""

    class FakeProfile:
        def __init__(self, activities, schedule=None):
            calls.append(("profile", activities))
            assert schedule is not None, "without a schedule torch.profiler writes no ProfilerStep ranges"
            assert [schedule(step) for step in (0, 1, 1000)] == ["RECORD"] * 3
            self.step_num = first_step

        def start(self):
            calls.append("start")

        def step(self):
            calls.append("step")
            self.step_num += 1

        def stop(self):
            calls.append("stop")

        def export_chrome_trace(self, path):
            calls.append("export")
            Path(path).write_bytes(gzip.decompress(trace.read_bytes()) if trace.suffix == ".gz" else
                                   trace.read_bytes())

    profiler_module = types.SimpleNamespace(profile=FakeProfile,
                                            ProfilerActivity=types.SimpleNamespace(CPU="CPU", CUDA="CUDA"),
                                            ProfilerAction=types.SimpleNamespace(RECORD="RECORD"))
    return types.SimpleNamespace(profiler=profiler_module, cuda=types.SimpleNamespace(is_available=lambda: True))


def test_with_torch_imported_the_torch_profiler_trace_is_imported(replay, monkeypatch) -> None:
    # This checks kraken's side - the recorder is chosen when torch is imported, steps are
    # forwarded, the exported trace (a real recorded Kineto trace) is imported into the
    # report by kraken's importer - not PyTorch itself (untested here).
    replay("h100.nvml", "")
    calls: list = []
    monkeypatch.setitem(sys.modules, "torch", stand_in_torch(calls, Path(data(RESNET_TRACE))))
    profiler = kraken.WorkloadProfiler("torch-run", sampling_interval=20, store=False,
                                       metrics=["gpu_util", "kernel_timeline"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning when a recorder exists
        with profiler:
            profiler.step()
    assert calls == [("profile", ["CPU", "CUDA"]), "start", "step", "stop", "export"]
    report = profiler.get_report()
    assert report.kernel_timeline == "torch.profiler"
    assert len(report.inputs) == 2 and report.inputs[1].endswith("torch_trace.json")
    kineto = report.analysis.ranks[1]
    assert kineto.format == "kineto" and kineto.timeline.idle_pct == 39.43081476
    assert report.analysis.kernels["count"] == 8772
    # The range open at stop() (ProfilerStep#1) is not in this trace: its steps are all kept.
    assert [s["step"] for s in kineto.raw["steps"]] == [5, 6, 7, 8, 9, 10]


def test_the_torch_profiler_range_open_at_stop_is_not_a_step(replay, monkeypatch, tmp_path) -> None:
    # torch.profiler's step() ends ProfilerStep#N and begins #N+1; its stop() ends the last,
    # which so spans only the end of the block after the caller's last step(). A real H100
    # run (20 step() calls) had 21 Kineto steps, the 21st without GPU work. The recorded
    # trace's ranges are ProfilerStep#5-#10: with the counter starting at 5, five step()
    # calls leave #10 open at stop(), standing for that tail.
    replay("h100.nvml", "")
    trace = Path(data(RESNET_TRACE))
    db = str(tmp_path / "runs.db")
    monkeypatch.setitem(sys.modules, "torch", stand_in_torch([], trace, first_step=5))
    profiler = kraken.WorkloadProfiler("torch-steps", sampling_interval=20, db=db,
                                       metrics=["gpu_util", "kernel_timeline"])
    with profiler:
        for _ in range(5):
            profiler.step()
    report = profiler.get_report()
    nvml, kineto = report.analysis.ranks
    assert nvml.step_time["count"] == kineto.step_time["count"] == 5  # one per step() call
    whole = kraken.analyze(str(trace)).ranks[0].raw["steps"]  # the trace as recorded
    assert [s["step"] for s in whole] == [5, 6, 7, 8, 9, 10]
    # The steps kept have their CPU ranges as recorded; ProfilerStep#9's GPU window, no
    # longer followed by a step, now ends at its own last GPU event (timeline.h).
    assert [(s["step"], s["cpu_start_us"], s["cpu_duration_us"]) for s in kineto.raw["steps"]] == \
           [(s["step"], s["cpu_start_us"], s["cpu_duration_us"]) for s in whole[:5]]
    assert kineto.raw["steps"][:4] == whole[:4]
    assert kineto.step_time["max_us"] == max(s["cpu_duration_us"] for s in whole[:5])
    # Only the annotation went: every kernel, and the tail's CPU work, is still imported.
    assert report.analysis.kernels == kraken.analyze(str(trace)).kernels
    exported = json.loads(Path(report.inputs[1]).read_text())
    assert not [e for e in exported["traceEvents"] if e.get("name") == "ProfilerStep#10"]


def test_dropping_the_open_step_leaves_other_files_as_they_are(tmp_path) -> None:
    from kraken.kernel_timeline import drop_profiler_step
    text = '{"traceEvents": [{"ph": "X", "name": "ProfilerStep#3", "ts": 1, "dur": 2}], "x": 1}'
    for content in ("not json", '[{"ph": "X", "name": "ProfilerStep#3"}]', text):
        path = tmp_path / "trace.json"
        path.write_text(content)
        assert not drop_profiler_step(path, 4)
        assert path.read_text() == content
    assert drop_profiler_step(path, 3)
    assert json.loads(path.read_text()) == {"traceEvents": [], "x": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["trace.json"]  # no temporary file left


def test_dropping_the_open_step_keeps_every_other_byte(tmp_path) -> None:
    # Numbers and escapes as torch wrote them (a JSON round trip would print 1.5 and é),
    # and bytes that are not UTF-8.
    from kraken.kernel_timeline import drop_profiler_step
    kept = b'{"ph": "X", "name": "caf\\u00e9 \xff", "ts": 1.50, "dur": 2E3}'
    step = b'{"ph": "X", "name": "ProfilerStep#7", "ts": 3, "dur": 1}'
    path = tmp_path / "trace.json"
    path.write_bytes(b'{"traceEvents": [\n' + kept + b',\n' + step + b'\n]}')
    assert drop_profiler_step(path, 7)
    assert path.read_bytes() == b'{"traceEvents": [\n' + kept + b'\n\n]}'


def test_under_the_cupti_tracer_the_session_merges_its_kernels_of_this_process(replay, monkeypatch, tmp_path) -> None:
    # No GPU here, so the tracer itself cannot run: its trace of this process is stood in for
    # by kraken's real CUPTI trace of a ResNet-50 training run on an H100, at the place
    # KRAKEN_CUPTI_OUTPUT names, its clock moved so that its 1.84 s of kernels (the first one
    # 6038202.656 us after its base time) run inside the block.
    import os
    replay("h100.nvml", "")
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.setenv("CUDA_INJECTION64_PATH", "/opt/kraken/lib/libkraken_cupti.so")
    monkeypatch.setenv("KRAKEN_CUPTI_OUTPUT", str(tmp_path / "kernels_%p.json"))
    monkeypatch.setenv("KRAKEN_CUPTI_FLUSH_MS", "10")
    text = gzip.decompress(H100_RESNET_CUPTI.read_bytes())
    trace = tmp_path / f"kernels_{os.getpid()}.json"
    profiler = kraken.WorkloadProfiler("cupti-run", sampling_interval=20, store=False, metrics=["kernel_timeline"])
    with profiler:
        first_kernel_ns = time.time_ns() + 5_000_000
        base = f'"baseTimeNanoseconds": {first_kernel_ns - 6_038_202_656}'.encode()
        trace.write_bytes(re.sub(rb'"baseTimeNanoseconds": \d+', base, text, count=1))
        time.sleep((first_kernel_ns + 1_860_000_000 - time.time_ns()) / 1e9)
    report = profiler.get_report()
    assert report.kernel_timeline == "cupti"
    assert report.inputs == [profiler._profile_path]  # the kernels are in the run's own profile
    assert report.analysis.kernels["count"] == 18421
    assert report.to_dict()["profile"]["workload_type"]["type"] == "training"


def test_under_the_cupti_tracer_without_a_trace_it_warns_and_keeps_the_samples(replay, monkeypatch,
                                                                               tmp_path) -> None:
    import os
    replay("h100.nvml", "")
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.setenv("CUDA_INJECTION64_PATH", "/opt/kraken/lib/libkraken_cupti.so")
    monkeypatch.setenv("KRAKEN_CUPTI_OUTPUT", str(tmp_path) + "/")
    monkeypatch.setenv("KRAKEN_CUPTI_FLUSH_MS", "10")
    profiler = kraken.WorkloadProfiler("cupti-none", sampling_interval=20, store=False, metrics=["kernel_timeline"])
    with pytest.warns(kraken.KernelTimelineWarning, match="the CUPTI tracer wrote no trace of this process at "
                                                           + re.escape(str(tmp_path / f"kraken_cupti_{os.getpid()}.json"))):
        with profiler:
            wait_for_passes(profiler, 1)
    assert profiler.summary.passes >= 1
    assert profiler.get_report().kernel_timeline is None


def test_a_kernel_recorder_that_fails_to_start_leaves_nothing_running(replay, monkeypatch) -> None:
    replay("h100.nvml", "")

    class BrokenProfile:
        def __init__(self, activities, schedule=None):
            pass

        def start(self):
            raise RuntimeError("CUPTI_ERROR_NOT_INITIALIZED")

    torch = types.SimpleNamespace(
        profiler=types.SimpleNamespace(profile=BrokenProfile, ProfilerActivity=types.SimpleNamespace(CPU=1, CUDA=2),
                                       ProfilerAction=types.SimpleNamespace(RECORD=3)),
        cuda=types.SimpleNamespace(is_available=lambda: True))
    monkeypatch.setitem(sys.modules, "torch", torch)
    profiler = kraken.WorkloadProfiler("broken", sampling_interval=20, store=False, metrics=["kernel_timeline"])
    with pytest.raises(RuntimeError, match="CUPTI_ERROR_NOT_INITIALIZED"):
        profiler.start()
    assert not profiler.running
    monkeypatch.delitem(sys.modules, "torch")
    with pytest.warns(kraken.KernelTimelineWarning):
        with profiler:  # starts again cleanly
            wait_for_passes(profiler, 1)
    assert profiler.summary.passes >= 1

"""workloads.py: argument parsing, reporting, the cpu-spin stand-in, the --serve protocol,
and (with stand-ins for torch) the profiler paths the GPU run takes."""
from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys

import pytest

import workloads
from conftest import FAKE_NODE, HELPERS


def test_importing_does_not_import_torch() -> None:
    code = "import sys; sys.path.insert(0, %r); import workloads; print('torch' in sys.modules)" % HELPERS
    out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, universal_newlines=True, check=True)
    assert out.stdout.strip() == "False"


def test_defaults_and_profiler_steps() -> None:
    args = workloads.parse_args(["--workload", "gemm"])
    assert (args.seconds, args.steps, args.warmup_steps, args.profiler) == (10.0, None, 5, "none")
    args = workloads.parse_args(["--workload", "resnet50-train", "--profiler", "nvtx"])
    assert args.steps == 20 and args.seconds is None
    args = workloads.parse_args(["--workload", "bert-infer", "--profiler", "torch", "--trace", "t.json.gz",
                                 "--steps", "7"])
    assert args.steps == 7 and args.trace == "t.json.gz"


@pytest.mark.parametrize("argv, message", [
    (["--workload", "nope"], "invalid choice"),
    (["--workload", "gemm", "--seconds", "0"], "--seconds must be positive"),
    (["--workload", "gemm", "--steps", "0"], "--steps must be at least 1"),
    (["--workload", "gemm", "--profiler", "torch"], "needs --trace FILE"),
    (["--workload", "gemm", "--profiler", "kraken"], "needs --kraken-dir DIR"),
    (["--workload", "gemm", "--serve", "--profiler", "nvtx"], "takes no --profiler"),
])
def test_bad_arguments_exit_2_naming_the_option(argv, message, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        workloads.parse_args(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_percentile_is_numpys_linear_interpolation() -> None:
    values = [4.0, 1.0, 3.0, 2.0]
    assert workloads.percentile(values, 50) == 2.5
    assert workloads.percentile(values, 99) == pytest.approx(3.97)
    assert workloads.percentile(values, 0) == 1.0 and workloads.percentile(values, 100) == 4.0
    assert workloads.percentile([7.0], 99) == 7.0


def test_summary_and_report() -> None:
    result = workloads.summarize_steps([0.010, 0.020, 0.030, 0.040], items_per_step=8, unit="images",
                                       wall_seconds=0.2)
    assert result["steps"] == 4 and result["steps_per_s"] == pytest.approx(20.0)
    assert result["throughput_per_s"] == pytest.approx(160.0)
    assert result["step_ms"]["p50"] == pytest.approx(25.0) and result["step_ms"]["max"] == pytest.approx(40.0)
    result["workload"] = "resnet50-train"
    text = workloads.format_report(result)
    assert text.splitlines()[0] == "throughput: 160 images/s"
    assert "step p50 25.000 ms" in text
    empty = workloads.summarize_steps([], 8, "images", 0.0)
    assert empty["step_ms"] is None and workloads.format_report(empty).startswith("throughput: none")


def test_cpu_spin_by_steps_writes_its_result(tmp_path) -> None:
    out = tmp_path / "r.json"
    assert workloads.main(["--workload", "cpu-spin", "--steps", "6", "--warmup-steps", "1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["steps"] == 6 and result["stand_in"] is True and result["profiler"] == "none"
    assert len(result["step_times_ms"]) == 6 and result["throughput_per_s"] > 0


def test_serve_answers_run_and_quit(tmp_path) -> None:
    workload = workloads.build_workload("cpu-spin", 1000, "cpu")
    path = tmp_path / "w.json"
    stdout = io.StringIO()
    stdin = io.StringIO(f"bogus\nrun solo-a 0.05 {path}\nquit\nrun never 1 {tmp_path / 'x.json'}\n")
    assert workloads.serve(workload, stdin, stdout) == 0
    lines = stdout.getvalue().splitlines()
    assert lines[0].startswith("ready ") and json.loads(lines[0][6:])["workload"] == "cpu-spin"
    assert lines[1].startswith("error unknown command") and lines[2] == "done solo-a" and len(lines) == 3
    result = json.loads(path.read_text())
    assert result["window"] == "solo-a" and result["steps"] >= 1 and result["wall_s"] >= 0.05
    assert not (tmp_path / "x.json").exists()


def test_gemm_elementwise_small_kernels_steps(fake_torch) -> None:
    gemm = workloads.build_workload("gemm", None, "cuda")
    gemm.step()
    assert fake_torch.count("mm") == 4 and fake_torch[-1] == "sync"
    assert gemm.items_per_step == pytest.approx(4 * 2 * 8192 ** 3 / 1e12) and gemm.unit == "TFLOP"
    del fake_torch[:]
    elementwise = workloads.build_workload("elementwise", None, "cuda")
    elementwise.step()
    assert fake_torch.count("mul") == 10 and fake_torch.count("add") == 10
    assert elementwise.items_per_step == pytest.approx(20 * 8 * (64 << 20) / 1e9)
    del fake_torch[:]
    small = workloads.build_workload("small-kernels", 50, "cuda")
    small.step()
    assert fake_torch.count("add_") == 50 and fake_torch[-1] == "sync"


def test_graph_and_threads_kernels_steps(fake_torch) -> None:
    # The graph is captured once (its adds and multiplies recorded while building); a step replays it.
    graph = workloads.build_workload("graph-kernels", 10, "cuda")
    assert fake_torch.count("add_") == 6 and fake_torch.count("mul_") == 6  # warm-up + 5 pairs
    del fake_torch[:]
    graph.step()
    assert fake_torch == ["replay", "sync"] and graph.items_per_step == 10
    assert graph.facts["graph_nodes"] == 10
    del fake_torch[:]
    # Two threads, each its own kernel: a step waits for both to launch theirs.
    threads = workloads.build_workload("threads-kernels", 8, "cuda")
    for _ in range(3):
        threads.step()
    assert fake_torch.count("add_") == 12 and fake_torch.count("mul_") == 12 and fake_torch[-1] == "sync"
    assert threads.items_per_step == 8 and threads.facts["threads"] == 2


def test_models_build_on_the_device_deterministically(fake_torch) -> None:
    import torch

    resnet = workloads.build_workload("resnet50-train", 4, "cuda")
    assert torch.backends.cudnn.benchmark is False  # same kernels in the CUPTI and torch.profiler runs
    resnet.step()
    assert ("resnet50", "to", "cuda") in fake_torch
    assert fake_torch[-5:] == ["zero_grad", ("resnet50", "forward", []), "backward", "opt-step", "sync"]
    assert resnet.facts["batch"] == 4 and resnet.facts["device_name"] == "Stand-in GPU"
    bert = workloads.build_workload("bert-infer", None, "cuda")
    bert.step()
    assert ("bert", "half") in fake_torch and ("bert", "forward", ["attention_mask", "input_ids"]) in fake_torch
    assert bert.items_per_step == 16 and bert.unit == "sequences"


def test_torch_profiler_run_writes_a_gzipped_trace(fake_torch, tmp_path) -> None:
    trace = tmp_path / "sub" / "gemm.pt.trace.json.gz"
    assert workloads.main(["--workload", "gemm", "--steps", "3", "--warmup-steps", "2", "--profiler", "torch",
                           "--trace", str(trace), "--out", str(tmp_path / "r.json")]) == 0
    assert ("profile", ("CPU", "CUDA"), True) in fake_torch
    # One cycle of 3 active steps; the last one ends at the exit (not in the measured
    # window), which stops the trace: ready once, then written once.
    assert ("schedule", 0, 0, 3, 1) in fake_torch
    assert fake_torch.count("trace-ready") == 1
    exports = [i for i, c in enumerate(fake_torch) if isinstance(c, tuple) and c[0] == "export"]
    assert len(exports) == 1 and fake_torch[exports[0]] == ("export", str(trace)[:-3])
    assert fake_torch.index("profile-stop") < fake_torch.index("trace-ready") < exports[0]
    with gzip.open(trace, "rt") as f:
        events = json.load(f)["traceEvents"]
    assert [e["name"] for e in events] == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
    assert not os.path.exists(str(trace)[:-3])
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["profiler"] == "torch" and result["steps"] == 3 and result["trace"] == str(trace)
    assert result["trace_profiler_steps"] == 3 and result["trace_ready_calls"] == 1
    assert fake_torch.count("mm") == 4 * (2 + 3)  # warm-up steps, then the profiled ones


def test_a_trace_without_its_steps_fails_the_run(fake_torch, tmp_path, monkeypatch, capsys) -> None:
    """Run 1's defect: torch.profiler without a schedule marks no ProfilerStep ranges. The
    stand-in does the same, and the run then says so and exits 1 (its files written)."""
    import torch.profiler

    monkeypatch.setattr(torch.profiler, "schedule", lambda **kwargs: None)
    trace = tmp_path / "t.json"
    assert workloads.main(["--workload", "gemm", "--steps", "2", "--warmup-steps", "0", "--profiler", "torch",
                           "--trace", str(trace), "--out", str(tmp_path / "r.json"), "--quiet"]) == 1
    assert "has 0 ProfilerStep ranges for 2 measured steps" in capsys.readouterr().err
    assert json.loads((tmp_path / "r.json").read_text())["trace_profiler_steps"] == 0
    assert fake_torch.count("trace-ready") == 1  # the default schedule's exit (RECORD -> stop)


def test_profiler_steps_in_trace_counts_distinct_steps(tmp_path) -> None:
    path = tmp_path / "t.json.gz"
    with gzip.open(path, "wt") as f:  # a CPU range and its GPU projection name the same step
        json.dump({"traceEvents": [{"name": "ProfilerStep#0"}, {"name": "ProfilerStep#0", "cat": "gpu_user_annotation"},
                                   {"name": "ProfilerStep#1"}, {"name": "Optimizer.step#SGD.step"}]}, f)
    assert workloads.profiler_steps_in_trace(str(path)) == 2


def test_torch_cuda_window_leaves_the_profiler_recording(fake_torch, tmp_path) -> None:
    out = tmp_path / "r.json"
    try:
        assert workloads.main(["--workload", "small-kernels", "--batch", "2", "--seconds", "0.05",
                               "--profiler", "torch-cuda-noexport", "--out", str(out)]) == 0
        assert ("profile", ("CUDA",), False) in fake_torch and "profile-start" in fake_torch
        assert "profile-stop" not in fake_torch and not any(isinstance(c, tuple) and c[0] == "export"
                                                            for c in fake_torch)
        assert len(workloads.PROFILERS_LEFT_RUNNING) == 1
    finally:
        del workloads.PROFILERS_LEFT_RUNNING[:]
    result = json.loads(out.read_text())
    assert result["profiler"] == "torch-cuda-noexport" and result["wall_s"] >= 0.05 and result["steps"] >= 1


def test_torch_cuda_window_command_line_exits_after_writing(tmp_path) -> None:
    """The command line leaves through os._exit (no profiler teardown): the result and the
    report must be out before."""
    out = tmp_path / "r.json"
    env = dict(os.environ, PYTHONPATH=os.path.join(FAKE_NODE, "python"))
    run = subprocess.run([sys.executable, os.path.join(HELPERS, "workloads.py"), "--workload", "short-kernels",
                          "--batch", "3", "--seconds", "0.05", "--warmup-steps", "1", "--profiler",
                          "torch-cuda-noexport", "--out", str(out)], env=env, stdout=subprocess.PIPE,
                         universal_newlines=True, timeout=60)
    assert run.returncode == 0 and run.stdout.startswith("throughput: ")
    result = json.loads(out.read_text())
    assert result["workload"] == "short-kernels" and result["facts"]["tensor"] == f"{4 << 20} fp32 elements"
    assert result["facts"]["kernels_per_step"] == 3 and result["unit"] == "kernels"


def test_nvtx_steps_are_named_like_the_profilers(fake_torch, tmp_path) -> None:
    assert workloads.main(["--workload", "small-kernels", "--batch", "1", "--steps", "3", "--warmup-steps", "1",
                           "--profiler", "nvtx"]) == 0
    ranges = [c for c in fake_torch if isinstance(c, tuple) and c[0] in ("push", "pop")]
    assert ranges == [("push", "ProfilerStep#0"), ("pop",), ("push", "ProfilerStep#1"), ("pop",),
                      ("push", "ProfilerStep#2"), ("pop",)]
    # Every kernel of a step is launched inside its range: the warm-up's is before any range.
    first_push = fake_torch.index(("push", "ProfilerStep#0"))
    assert fake_torch[:first_push].count("add_") == 1

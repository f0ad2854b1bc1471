"""The CUPTI path of metric "kernel_timeline", end to end without a GPU: a Python process
started with kraken's real tracer (CUDA_INJECTION64_PATH = libkraken_cupti.so) over the
fake libcupti of src/collectors/cupti (made-up launches: a 1 us kernel every 2 us), the
driver's part (loading the injection and calling InitializeInjection when CUDA starts)
done by the test as kraken_fake_cuda_app does. Registered only when the tracer is built
(CUDA's CUPTI headers at configure time)."""
from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

from conftest import NVML_FIXTURES, PYTHON, REPLAY_LIBRARY, python_env

CHILD = textwrap.dedent("""
    import ctypes, json, os, time
    import kraken
    profiler = kraken.WorkloadProfiler("cupti-run", sampling_interval=50, store=False,
                                       metrics=["gpu_util", "kernel_timeline"])
    with profiler:
        # What the CUDA driver does when the block starts using CUDA under the injection;
        # the fake CUPTI's 3000 launches follow (kernels before the block are not its own).
        assert ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"]).InitializeInjection() == 1
        time.sleep(0.5)       # the tracer flushes every 100 ms: all 3000 launches written
    report = profiler.get_report()
    print(json.dumps({"kernel_timeline": report.kernel_timeline, "inputs": report.inputs,
                      "kernels": report.analysis.kernels, "formats": [r.format for r in report.analysis.ranks]}))
""")


def test_the_tracers_trace_of_this_process_is_in_the_report(tmp_path: Path) -> None:
    injection = os.environ["KRAKEN_TEST_CUPTI_INJECTION"]
    env = python_env(CUDA_INJECTION64_PATH=injection, KRAKEN_CUPTI_LIBRARY=os.environ["KRAKEN_TEST_CUPTI_FAKE"],
                     KRAKEN_CUPTI_OUTPUT=str(tmp_path / "kernels_%p.json"), KRAKEN_CUPTI_FLUSH_MS="100",
                     KRAKEN_FAKE_CUPTI_LAUNCHES="3000", KRAKEN_NVML_LIBRARY=str(REPLAY_LIBRARY),
                     KRAKEN_NVML_REPLAY=str(NVML_FIXTURES / "h100.nvml"))
    child = subprocess.Popen([PYTHON, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert f"kraken-cupti: recording the CUDA activity of pid {child.pid}" in err
    result = json.loads(out)
    assert result["kernel_timeline"] == "cupti"
    # The session merged the trace into the run's profile (read while the process ran).
    assert len(result["inputs"]) == 1 and result["formats"] == ["kraken-profile"]
    assert result["kernels"]["count"] == 3000  # every fake launch
    assert result["kernels"]["total_us"] == 3000

"""run_findings.py's ResNet-50 step finding: from a run's phase-2 CUPTI trace, step by step,
whether the slow steps had longer kernels or a later last launch."""
from __future__ import annotations

import json
import os

import run_findings


def x(cat: str, name: str, ts: float, dur: float) -> dict:
    return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur}


def traced_run(tmp_path, steps) -> dict:
    """A GPU run whose phase-2 trace has one step per (step_ms, last_launch_ms, kernel_ms)."""
    root = tmp_path / "run"
    folder = root / "agreement" / "resnet50-train-cupti"
    folder.mkdir(parents=True)
    (root / "agreement" / "resnet50-train.cupti-run.json").write_text("{}")
    events, ts = [], 0.0
    for i, (step_ms, launch_ms, kernel_ms) in enumerate(steps):
        events.append(x("user_annotation", f"ProfilerStep#{i}", ts, step_ms * 1e3))
        events.append(x("cuda_runtime", "cudaLaunchKernel", ts + 10, launch_ms * 1e3 - 10))
        events.append(x("kernel", "conv", ts + 20, kernel_ms * 1e3))
        ts += step_ms * 1e3 + 100
    (folder / "kernels_7.json").write_text(json.dumps({"traceEvents": events}))
    return {"n": 2, "root": str(root), "run": {"mode": "gpu", "phases": [1, 2, 7]}}


def test_slow_steps_that_waited_on_the_launching_thread(tmp_path) -> None:
    run = traced_run(tmp_path, [(38.0, 30.0, 36.0), (47.9, 42.1, 36.2), (38.5, 31.5, 36.1), (38.2, 29.5, 36.0)])
    lines = run_findings.resnet_steps_finding([run])
    assert lines[-1] == ""
    assert lines[0].startswith("Phase 2's CUPTI trace step by step (run 2 (unknown date, phases 1,2,7)): the GPU's "
                               "kernel time was 36.0-36.2 ms in every step; the 3 steps of 38.0-38.5 ms issued their "
                               "last launch 29.5-31.5 ms after the step began, the 1 steps of 47.9-47.9 ms at "
                               "42.1-42.1 ms: the slow steps waited on the launching thread")


def test_even_steps_and_missing_traces(tmp_path) -> None:
    run = traced_run(tmp_path, [(38.0, 30.0, 36.0), (38.2, 30.5, 36.1)])
    lines = run_findings.resnet_steps_finding([run])
    assert lines[0].endswith("issued their last launch 30.0-30.5 ms after the step began.")
    os.remove(os.path.join(run["root"], "agreement", "resnet50-train-cupti", "kernels_7.json"))
    assert run_findings.resnet_steps_finding([run]) == []
    assert run_findings.resnet_steps_finding([dict(run, run={"mode": "replay"})]) == []


def test_counters_section_from_a_gpu_run(tmp_path) -> None:
    run = traced_run(tmp_path, [(38.0, 30.0, 36.0)])
    (tmp_path / "run" / "counters").mkdir()
    doc = {"footer": {"kraken_cupti_counter_kernels": 5, "kraken_cupti_counter_passes": 3},
           "timing": {"plain_s": 1.5, "counters_s": 6.0, "slowdown": 4.0},
           "kernels": [{"kernel": "_Z5saxpyifPKfPf", "ranges": 1, "kraken_flops": 2097152.0, "ncu_flops": 2097152.0,
                        "flops_ratio": 1.0, "kraken_dram_bytes": 12582912.0, "ncu_dram_bytes": 12600000.0,
                        "dram_bytes_ratio": 0.99864},
                       {"kernel": "_Z4tinyPf", "ranges": 1, "kraken_flops": 0.0, "kraken_dram_bytes": 64.0}]}
    (tmp_path / "run" / "counters" / "kernel-mix.json").write_text(json.dumps(doc))
    text = "\n".join(run_findings.counters_markdown([run]))
    assert "*From run 2 (unknown date, phases 1,2,7).*" in text
    assert "| `_Z5saxpyifPKfPf` | 1 | 2.1e+06 | 2.1e+06 | 1.000 | 1.26e+07 | 1.26e+07 | 0.999 |" in text
    assert "| `_Z4tinyPf` | 1 | 0 | not measured | not measured | 64 | not measured | not measured |" in text
    assert ("Run time of kernel_mix: 1.500 s traced without counters, 6.000 s with them (x4.00: kernel replay). "
            "Tracer footer: kraken_cupti_counter_kernels 5, kraken_cupti_counter_passes 3.") in text
    # A rehearsal's counters (the fake libcupti) are no measurement.
    assert "Not measured yet" in "\n".join(run_findings.counters_markdown([dict(run, run={"mode": "replay"})]))

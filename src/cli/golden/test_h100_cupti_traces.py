"""Golden tests: `kraken analyze --json` on the traces recorded on a real NVIDIA H100
(examples/nvidia-h100-80gb-hbm3, validation run 2, docs/validation.md).

kraken's CUPTI tracer and torch.profiler traced two runs of the same 20 ResNet-50 training
steps (and 20 BERT inference batches); kraken's Kineto importer must read both alike. Each
figure is asserted twice: as the number checked by hand, and against an independent count
from the file itself (gzip + json here: a kernel belongs to step i when the runtime/driver
call of its correlation id lies inside the CPU range ProfilerStep#i).

Run by ctest with KRAKEN_BINARY (the kraken of the build) and KRAKEN_SOURCE_DIR.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
from collections import Counter
from typing import Any, Dict, List, Tuple

import pytest

EXAMPLES = os.path.join(os.environ["KRAKEN_SOURCE_DIR"], "examples", "nvidia-h100-80gb-hbm3")
STEP = re.compile(r"^ProfilerStep#(\d+)$")


def analyze(name: str, *extra: str) -> Dict[str, Any]:
    """The one rank of `kraken analyze --json` on an example trace."""
    out = subprocess.run([os.environ["KRAKEN_BINARY"], "analyze", os.path.join(EXAMPLES, name), "--json", *extra],
                         check=True, capture_output=True, text=True).stdout
    ranks = json.loads(out)["ranks"]
    assert len(ranks) == 1
    return ranks[0]


def trace_events(name: str) -> List[Dict[str, Any]]:
    """The traceEvents of an example trace, read with Python's gzip and json."""
    with gzip.open(os.path.join(EXAMPLES, name), "rt", encoding="utf-8") as f:
        return json.load(f)["traceEvents"]


def kernels_per_step(events: List[Dict[str, Any]]) -> Dict[int, Tuple[int, float]]:
    """step -> (kernels launched inside ProfilerStep#step's CPU range, their time in us)."""
    ranges = {int(m.group(1)): (e["ts"], e["ts"] + e["dur"]) for e in events
              if (m := STEP.match(str(e.get("name", "")))) and e.get("ph") == "X"
              and not str(e.get("cat", "")).startswith("gpu_")}
    step_of_launch: Dict[int, int] = {}
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and e.get("ph") == "X":
            for step, (start, end) in ranges.items():
                if start <= e["ts"] <= end:
                    step_of_launch[e["args"]["correlation"]] = step
    per_step: Dict[int, Tuple[int, float]] = {step: (0, 0.0) for step in ranges}
    for e in events:
        step = step_of_launch.get(e.get("args", {}).get("correlation")) if e.get("cat") == "kernel" else None
        if step is not None:
            count, time_us = per_step[step]
            per_step[step] = (count + 1, time_us + e["dur"])
    return per_step


# (trace, kernels in the trace, kernels per step, kernel time of the 20 steps in ms)
TRACES = [
    ("resnet50-train.pt.trace.json.gz", 14740, 737, 720.864),
    ("resnet50-train.cupti.json.gz", 18421, 737, 723.816),
    ("bert-infer.pt.trace.json.gz", 3120, 156, 23.934),
    ("bert-infer.cupti.json.gz", 4101, 156, 23.944),
]


@pytest.mark.parametrize("name,trace_kernels,per_step,steps_ms", TRACES)
def test_steps_and_kernels_match_the_file(name: str, trace_kernels: int, per_step: int, steps_ms: float) -> None:
    rank = analyze(name)
    independent = kernels_per_step(trace_events(name))
    assert sorted(independent) == list(range(20))
    assert {count for count, _ in independent.values()} == {per_step}
    assert [s["step"] for s in rank["steps"]] == list(range(20))
    assert rank["step_time"]["count"] == 20
    kraken_steps = {s["step"]: (s["kernels"], s["kernel_time_us"]) for s in rank["step_kernels"]}
    assert sorted(kraken_steps) == list(range(20))
    for step, (count, time_us) in independent.items():
        assert kraken_steps[step][0] == count == per_step, step
        assert kraken_steps[step][1] == pytest.approx(time_us, abs=1e-3), step
    total_ms = sum(t for _, t in kraken_steps.values()) / 1000
    assert round(total_ms, 3) == steps_ms
    assert rank["kernels"]["count"] == trace_kernels
    assert rank["kernels"]["count"] == sum(1 for e in trace_events(name) if e.get("cat") == "kernel")


@pytest.mark.parametrize("workload", ["resnet50-train", "bert-infer"])
def test_cupti_and_torch_profiler_agree(workload: str) -> None:
    """Equal kernel counts in every step; kernel time of the 20 steps within 1 %."""
    cupti, torch = analyze(workload + ".cupti.json.gz"), analyze(workload + ".pt.trace.json.gz")
    assert [s["kernels"] for s in cupti["step_kernels"]] == [s["kernels"] for s in torch["step_kernels"]]
    cupti_us = sum(s["kernel_time_us"] for s in cupti["step_kernels"])
    torch_us = sum(s["kernel_time_us"] for s in torch["step_kernels"])
    assert abs(cupti_us - torch_us) / torch_us < 0.01


@pytest.mark.parametrize("name", [t[0] for t in TRACES] + ["kernel-mix.cupti.json.gz"])
def test_device_metadata_names_the_h100(name: str) -> None:
    rank = analyze(name)
    assert rank["format"] == "kineto"
    assert rank["vendor"] == "nvidia"
    assert rank["device"] == {"name": "NVIDIA H100 80GB HBM3", "catalog_id": "h100-sxm", "sm_count": 132}
    with gzip.open(os.path.join(EXAMPLES, name), "rt", encoding="utf-8") as f:
        props = json.load(f)["deviceProperties"][0]
    assert (props["name"], props["numSms"]) == ("NVIDIA H100 80GB HBM3", 132)


def test_kernel_mix_kernels_by_name() -> None:
    """scripts/gpu_validate/kernel_mix.cu run as `kernel_mix 20`: 109 kernels of 7 names."""
    kernels = analyze("kernel-mix.cupti.json.gz", "--top", "1000")["kernels"]
    counted = Counter(e["name"] for e in trace_events("kernel-mix.cupti.json.gz") if e.get("cat") == "kernel")
    prefix = "(anonymous namespace)::"
    assert counted == {
        prefix + "hgemm_wmma(int, __half const*, __half const*, float*)": 21,
        prefix + "saxpy(int, float, float const*, float*)": 21,
        prefix + "sgemm_tiled(int, float const*, float const*, float*)": 21,
        prefix + "reduce_sum(int, float const*, float*)": 21,
        prefix + "tiny_kernel(float*)": 21,
        prefix + "fill(int, float, float*)": 2,
        prefix + "fill_half(int, float, __half*)": 2,
    }
    assert kernels["count"] == 109
    assert kernels["distinct_names"] == 7
    assert kernels["total_us"] == pytest.approx(26410.107, abs=1e-3)
    assert {k["name"]: k["count"] for k in kernels["top"]} == counted
    assert kernels["top"][0]["name"] == prefix + "hgemm_wmma(int, __half const*, __half const*, float*)"
    assert kernels["top"][0]["total_us"] == pytest.approx(12402.476, abs=1e-3)

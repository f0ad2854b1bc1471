"""classes.py: kernel names from Nsight Compute and from traces meet on their base name;
classes are compared kernel by kernel (the ncu side from a real export's analysis)."""
from __future__ import annotations

import json
import os
import subprocess

import classes
from conftest import BUILD_DIR, data_path


def test_base_names_of_both_spellings() -> None:
    # ncu prints the template's parameters (T1 *), CUPTI the substituted types.
    assert classes.base_name("void randomInit<float>(T1 *, int, int, unsigned int)") == "randomInit<float>"
    assert classes.base_name("void randomInit<float>(float*, int, int, unsigned int)") == "randomInit<float>"
    assert classes.base_name("saxpy(int, float, float const*, float*)") == "saxpy"
    assert classes.base_name(
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
        "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)") == (
        "at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >")
    assert classes.base_name("sm90_xmma_gemm_f16f16_f32_tn_n") == "sm90_xmma_gemm_f16f16_f32_tn_n"


def analyze(path: str) -> dict:
    kraken = os.path.join(BUILD_DIR, "src", "cli", "kraken")
    out = subprocess.run([kraken, "analyze", path, "--json", "--top", "1000"], stdout=subprocess.PIPE, check=True)
    return json.loads(out.stdout)


def test_compare_kernel_by_kernel() -> None:
    measured = analyze(data_path("ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv"))
    # The same two kernels as a CUPTI trace would name them, classified by name.
    named = {"kernels": {"top": [
        {"name": "void gemm_v1<float>(float*, float*, float*, int, int, int)", "bound": "compute", "side": "compute",
         "basis": "name"},
        {"name": "void randomInit<float>(float*, int, int, unsigned int)", "bound": "memory", "side": "memory",
         "basis": "name"},
        {"name": "void unrelated(int)", "bound": "latency", "side": "memory", "basis": "name"}]}}
    result = classes.compare(measured, named)
    assert result["kernels_measured"] == 2 and result["kernels_matched"] == 2
    rows = {r["kernel"]: r for r in result["kernels"]}
    gemm = rows["gemm_v1<float>"]
    assert gemm["name"]["bound"] == "compute" and gemm["ncu"]["bound"] == measured["kernels"]["top"][0]["bound"]
    assert gemm["bound_agrees"] == (gemm["ncu"]["bound"] == "compute")
    agree = sum(1 for r in result["kernels"] if r["bound_agrees"])
    assert result["bound_agreement"] == f"{agree}/2"
    assert classes.compare(measured, {"kernels": {"top": []}})["bound_agreement"] is None

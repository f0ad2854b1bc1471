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


# Names as the H100 run spelled them (ncu's CSV and kraken's CUPTI trace of the same kernels).
NCU_SAXPY = "<unnamed>::saxpy(int, float, const float *, float *)"
CUPTI_SAXPY = "(anonymous namespace)::saxpy(int, float, float const*, float*)"
NCU_TRANSPOSE = "void cudnn::nchwToNhwcKernel<float, float, float, 0, 1, 2>(cudnn::nchw2nhwc_params_t<T3>, const T1 *, T2 *)"
CUPTI_TRANSPOSE = ("void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, "
                   "(cudnnKernelDataType_t){}>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, float*)")
NCU_ADD = ("void at::vectorized_elementwise_kernel<2, at::CUDAFunctorOnSelf_add<long>, std::array<char *, 2>>"
           "(int, T2, T3)")
CUPTI_ADD = ("void at::native::vectorized_elementwise_kernel<2, at::native::CUDAFunctorOnSelf_add<long>, "
             "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<long>, std::array<char*, 2ul>)")


def entry(name: str, bound: str, side: str) -> dict:
    return {"name": name, "bound": bound, "side": side, "basis": "name"}


def test_anonymous_namespace_and_pointer_spellings_meet() -> None:
    assert classes.normalized(NCU_SAXPY) == classes.normalized(CUPTI_SAXPY) == "anon::saxpy"
    assert classes.normalized("void (anonymous namespace)::fill(int, float, float*)") == "anon::fill"
    index = classes.NameIndex({"kernels": {"top": [entry(CUPTI_SAXPY, "memory", "memory")]}})
    found, how = index.find(NCU_SAXPY)
    assert found is not None and found["name"] == CUPTI_SAXPY and how == "exact"


def test_template_arguments_meet_without_inner_namespaces() -> None:
    # The trace has the kernel twice with different data types: the cast value picks one.
    top = [entry(CUPTI_TRANSPOSE.format(0), "memory", "memory"), entry(CUPTI_TRANSPOSE.format(2), "latency", "memory"),
           entry(CUPTI_ADD, "latency", "memory")]
    index = classes.NameIndex({"kernels": {"top": top}})
    found, how = index.find(NCU_TRANSPOSE)
    assert found is not None and found["name"] == CUPTI_TRANSPOSE.format(2) and how == "unqualified"
    found, how = index.find(NCU_ADD)
    assert found is not None and found["name"] == CUPTI_ADD and how == "unqualified"


def test_name_without_templates_only_when_unique() -> None:
    top = [entry("void k<float, 4>(float*)", "memory", "memory")]
    found, how = classes.NameIndex({"kernels": {"top": top}}).find("void k<half, 8>(half *)")
    assert found is not None and how == "no-templates"
    top.append(entry("void k<double, 2>(double*)", "compute", "compute"))
    assert classes.NameIndex({"kernels": {"top": top}}).find("void k<half, 8>(half *)") == (None, None)
    assert classes.NameIndex({"kernels": {"top": top}}).find("void other(int)") == (None, None)


def test_the_recorded_h100_kernels_all_match() -> None:
    # The run's own recordings (examples/, written by ingest.py): ncu and kraken's CUPTI
    # tracer named every kernel differently, and matched none before the normalization.
    from conftest import SOURCE_DIR

    folder = os.path.join(SOURCE_DIR, "examples", "nvidia-h100-80gb-hbm3")
    for ncu, trace, kernels, respelled in (("ncu-kernel-mix.csv", "kernel-mix.cupti.json.gz", 5, 5),
                                           ("ncu-resnet50-train.csv", "resnet50-train.cupti.json.gz", 4, 3)):
        result = classes.compare(analyze(os.path.join(folder, ncu)), analyze(os.path.join(folder, trace)))
        assert result["kernels_measured"] == kernels and result["kernels_matched"] == kernels, ncu
        assert sum(r["name"]["name"] != r["ncu"]["name"] for r in result["kernels"]) == respelled, ncu

"""counters_check.py: the tracer's per-kernel counter ranges vs Nsight Compute's details page
(a real A100 export from the shared data), matched from mangled symbol to demangled name,
and the timing of a command."""
from __future__ import annotations

import json
import os
import sys

import counters_check
from conftest import data_path

NCU_A100 = "ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv"


def write_trace(path: str, ranges: list) -> None:
    """A trace as the tracer writes it with KRAKEN_CUPTI_COUNTERS=1 (only what is read)."""
    events = [{"ph": "X", "cat": "kernel", "name": "other", "pid": 0, "tid": 7, "ts": 1.0, "dur": 1.0,
               "args": {"correlation": 1}}]
    for i, (symbol, args) in enumerate(ranges):
        events.append({"ph": "X", "cat": "cuda_profiler_range", "name": symbol, "pid": 0, "tid": 0, "ts": 2.0 + i,
                       "dur": 1.0, "args": dict(args, correlation=i + 2, device=0)})
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events, "kraken_cupti_counter_kernels": len(ranges),
                   "kraken_cupti_counter_passes": 3, "kraken_cupti_kernels": 1}, f)


def test_identifiers_and_mangled_symbols_meet() -> None:
    assert counters_check.identifier("void randomInit<float>(T1 *, int, int, unsigned int)") == "randomInit"
    assert counters_check.identifier("void gemm_v1<float>(float *, float *, float *, int)") == "gemm_v1"
    assert counters_check.identifier("ns::saxpy(int, float)") == "saxpy"
    # As ncu 2025.3 names a kernel of an anonymous namespace (kernel_mix.cu, H100 run).
    assert counters_check.identifier("<unnamed>::saxpy(int, float, const float *, float *)") == "saxpy"
    assert counters_check.identifier("void (anonymous namespace)::fill<float>(int, float *)") == "fill"
    assert counters_check.symbol_has("_ZN42_GLOBAL__N__4898dce4_13_kernel_mix_cu_main5saxpyEifPKfPf", "saxpy")
    # The tracer's range names are demangled, as its kernel records are.
    assert counters_check.symbol_has("(anonymous namespace)::saxpy(int, float, float const*, float*)", "saxpy")
    assert not counters_check.symbol_has("(anonymous namespace)::saxpy2(int)", "saxpy")
    assert counters_check.symbol_has("_Z10randomInitIfEvPT_iij", "randomInit")
    assert not counters_check.symbol_has("_Z11randomInit2IfEvPT_iij", "randomInit")


def test_flops_count_fma_twice_and_dram_bytes_fall_back_to_read_plus_write() -> None:
    metrics = {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 10.0,
               "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 5.0,
               "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum": 1.0,
               "dram__bytes_read.sum": 300.0, "dram__bytes_write.sum": 100.0}
    assert counters_check.flops_of(metrics) == 10 + 2 * 5 + 2 * 1
    assert counters_check.dram_bytes_of(metrics) == 400
    assert counters_check.flops_of({"dram__bytes.sum": 1.0}) is None


def test_compare_with_a_real_ncu_export(tmp_path) -> None:
    ncu = counters_check.read_ncu_details(data_path(NCU_A100))
    init = next(name for name in ncu if name.startswith("void randomInit<float>"))
    gemm = next(name for name in ncu if name.startswith("void gemm_v1<float>"))
    # The A100 export: randomInit executed 838,860,800 ffma (2 launches, same count).
    assert ncu[init]["launches"] >= 2
    assert ncu[init]["flops"] == 2 * 838_860_800
    init_args = {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 838_860_800.0,
                 "dram__bytes_read.sum": ncu[init]["dram_bytes"] / 2, "dram__bytes_write.sum": ncu[init]["dram_bytes"] / 2}
    gemm_args = {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ncu[gemm]["flops"],  # twice ncu's
                 "dram__bytes_read.sum": 0.0, "dram__bytes_write.sum": 0.0}
    trace = str(tmp_path / "trace.json")
    write_trace(trace, [("_Z10randomInitIfEvPT_iij", init_args), ("_Z10randomInitIfEvPT_iij", init_args),
                        ("_Z7gemm_v1IfEvPfS0_S0_i", gemm_args), ("_Z8unknownv", {})])
    plain, counters = tmp_path / "plain.json", tmp_path / "counters.json"
    plain.write_text(json.dumps({"seconds": 2.0, "rc": 0}))
    counters.write_text(json.dumps({"seconds": 5.0, "rc": 0}))
    out = tmp_path / "compare.json"
    assert counters_check.main(["compare", "--trace", trace, "--ncu", data_path(NCU_A100), "--plain", str(plain),
                                "--counters", str(counters), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    rows = {row["kernel"]: row for row in result["kernels"]}
    assert rows["_Z10randomInitIfEvPT_iij"]["ranges"] == 2
    assert rows["_Z10randomInitIfEvPT_iij"]["ncu_kernel"] == init
    assert rows["_Z10randomInitIfEvPT_iij"]["flops_ratio"] == 1.0
    assert abs(rows["_Z10randomInitIfEvPT_iij"]["dram_bytes_ratio"] - 1.0) < 1e-12
    assert rows["_Z7gemm_v1IfEvPfS0_S0_i"]["flops_ratio"] == 2.0
    assert "ncu_kernel" not in rows["_Z8unknownv"]
    assert result["footer"] == {"kraken_cupti_counter_kernels": 4, "kraken_cupti_counter_passes": 3}
    assert result["timing"] == {"plain_s": 2.0, "counters_s": 5.0, "slowdown": 2.5}


def test_without_ncu_the_ranges_are_still_summarized(tmp_path, capsys) -> None:
    trace = str(tmp_path / "trace.json")
    write_trace(trace, [("_Z5saxpyifPKfPf", {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 4.0})])
    assert counters_check.main(["compare", "--trace", trace]) == 0
    printed = capsys.readouterr().out
    assert "1 profiled kernels in 1 names" in printed
    assert "no ncu CSV: counters not compared with Nsight Compute" in printed
    assert "metrics 0 in every range: none" in printed


def test_a_metric_zero_in_every_range_is_named(tmp_path, capsys) -> None:
    tensor = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"
    ffma = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
    trace = str(tmp_path / "trace.json")
    write_trace(trace, [("_Z5saxpyifPKfPf", {ffma: 4.0, tensor: 0.0}), ("_Z5saxpyifPKfPf", {ffma: 0.0, tensor: 0.0})])
    out = tmp_path / "compare.json"
    assert counters_check.main(["compare", "--trace", trace, "--out", str(out)]) == 0
    assert f"metrics 0 in every range: {tensor}" in capsys.readouterr().out
    assert json.loads(out.read_text())["zero_metrics"] == [tensor]


def test_run_times_the_command_and_keeps_its_exit_code(tmp_path) -> None:
    out = tmp_path / "run.json"
    assert counters_check.main(["run", "--out", str(out), "--", sys.executable, "-c", "raise SystemExit(3)"]) == 3
    run = json.loads(out.read_text())
    assert run["rc"] == 3 and run["seconds"] > 0
    assert os.path.basename(run["command"][0]).startswith("python")


def test_an_unreadable_trace_is_one_line_and_code_2(tmp_path, capsys) -> None:
    bad = tmp_path / "cut.json"
    bad.write_text('{"traceEvents": [')
    assert counters_check.main(["compare", "--trace", str(bad)]) == 2
    assert capsys.readouterr().err.startswith("counters_check: ")

"""features_check.py (gpu-validate.sh phase 9) on traces made by hand: the NVTX-started
window, the CUDA graph's kernel count, the counter ranges' pairing; and its command line."""
from __future__ import annotations

import json

import features_check
from conftest import write

FADD = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"
FMUL = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"


def kernel(ts: float, name: str = "add_kernel") -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "ts": ts, "dur": 1.0}


def nvtx_trace(first: int = 10, steps: int = 20, kernels_per_step: int = 3) -> dict:
    events = []
    for i in range(steps):
        begin = 1000.0 * i
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{first + i}", "ts": begin,
                       "dur": 900.0})
        events += [kernel(begin + 100.0 * (k + 1)) for k in range(kernels_per_step)]
    return {"traceEvents": events, "kraken_cupti_window_start_us": 0.0}


def test_a_window_from_its_nvtx_range_on() -> None:
    r = features_check.check_nvtx_window(nvtx_trace(), "ProfilerStep#10", 20)
    assert r["ok"] and r["first_range"] == "ProfilerStep#10" and r["ranges"] == 20
    assert r["kernels_per_step"] == [3] * 20 and r["kernels_before_first_range"] == 0
    assert r["other_ranges"] == 0 and r["other_ranges_top"] == {}


def test_other_nvtx_ranges_are_counted_by_name() -> None:
    trace = nvtx_trace()
    trace["traceEvents"] += [{"ph": "X", "cat": "user_annotation", "name": "cudnnConvolutionForward", "ts": 5.0,
                              "dur": 1.0}] * 3 + [{"ph": "X", "cat": "user_annotation", "name": "cublasSgemm",
                                                   "ts": 6.0, "dur": 1.0}]
    r = features_check.check_nvtx_window(trace, "ProfilerStep#10", 20)
    assert r["ok"] and r["other_ranges"] == 4
    assert r["other_ranges_top"] == {"cudnnConvolutionForward": 3, "cublasSgemm": 1}


def test_a_window_that_opened_early_or_lost_steps_is_not_ok() -> None:
    early = nvtx_trace()
    early["traceEvents"].append(kernel(-50.0))  # a kernel before the range's push
    r = features_check.check_nvtx_window(early, "ProfilerStep#10", 20)
    assert not r["ok"] and r["kernels_before_first_range"] == 1
    assert not features_check.check_nvtx_window(nvtx_trace(first=9), "ProfilerStep#10", 20)["ok"]
    assert not features_check.check_nvtx_window(nvtx_trace(steps=19), "ProfilerStep#10", 20)["ok"]
    unmarked = nvtx_trace()
    del unmarked["kraken_cupti_window_start_us"]  # no window: the whole run was traced
    assert not features_check.check_nvtx_window(unmarked, "ProfilerStep#10", 20)["ok"]


def graph_run(steps: int = 10, nodes: int = 4, warmup: int = 2) -> dict:
    return {"start_unix": 1000.0, "end_unix": 1001.0, "steps": steps, "warmup_steps": warmup,
            "facts": {"kernels_per_step": nodes, "graph_nodes": nodes}}


def graph_trace(replays: int = 12, nodes: int = 4, launch_lag_us: float = 5.0) -> dict:
    """`replays` replays of a graph of `nodes` kernels, each after its cudaGraphLaunch; replay
    2 (the first measured one after 2 warm-up replays) launched `launch_lag_us` after 1000 s."""
    events = []
    for r in range(replays):
        launch = 1e9 + launch_lag_us + 1000.0 * (r - 2)  # us: run.start_unix 1000 s
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "ts": launch, "dur": 3.0})
        for n in range(nodes):
            k = kernel(launch + 10.0 + n, "add" if n % 2 else "mul")
            k["args"] = {"graph id": 2, "graph node id": (2 << 32) + n}
            events.append(k)
    events.append(kernel(0.0, "fill"))  # launched before the graph, not one of its nodes
    return {"baseTimeNanoseconds": 0, "kraken_cupti_dropped_records": 0, "traceEvents": events}


def test_every_replayed_node_is_a_kernel() -> None:
    r = features_check.check_graph(graph_trace(), graph_run())
    assert r["ok"] and r["kernels"] == 48 and r["wanted"] == 48 and r["replays_per_node"] == [12]
    assert r["kernel_names"] == {"add": 24, "mul": 24} and r["nodes_seen"] == 4
    assert r["trace_minus_host_clock_us"] == 5.0
    # Run 10's trace sat ~0.8 ms before time.time(): still every replay, counted without a clock.
    early = features_check.check_graph(graph_trace(launch_lag_us=-800.0), graph_run())
    assert early["ok"] and early["trace_minus_host_clock_us"] == -800.0
    lost = graph_trace()
    lost["traceEvents"] = [e for i, e in enumerate(lost["traceEvents"]) if i != 7]  # one node of a replay
    r = features_check.check_graph(lost, graph_run())
    assert not r["ok"] and r["replays_per_node"] == [11, 12]
    assert not features_check.check_graph(graph_trace(replays=11), graph_run())["ok"]  # a replay missing
    assert not features_check.check_graph(graph_trace(nodes=3), graph_run())["ok"]  # a node never seen


def counter_range(name: str, fadd: float = 0.0, fmul: float = 0.0) -> dict:
    return {"ph": "X", "cat": "cuda_profiler_range", "name": name, "ts": 0.0, "dur": 1.0,
            "args": {FADD: fadd, FMUL: fmul, "correlation": 7}}


def test_a_range_with_the_other_kernels_count_is_counted() -> None:
    events = [counter_range("add", fadd=1 << 20) for _ in range(5)] + [counter_range("mul", fmul=4 << 20)
                                                                      for _ in range(5)]
    trace = {"traceEvents": events + [kernel(0.0)] * 10, "kraken_cupti_counter_batches": 1}
    r = features_check.check_counters(trace)
    assert r["ok"] and r["ranges"] == 10 and r["kernels"] == 10
    assert r["by_name"]["add"] == {"ranges": 5, "flops_or_bytes_median": 1 << 20, "unlike_the_median": 0}
    assert r["footer"] == {"kraken_cupti_counter_batches": 1}
    trace["traceEvents"].append(counter_range("add", fadd=4 << 20))  # a pair swapped with the other thread's
    r = features_check.check_counters(trace)
    assert not r["ok"] and r["ranges_unlike_their_kernel"] == 1
    assert not features_check.check_counters({"traceEvents": [kernel(0.0)]})["ok"]  # no ranges at all
    # An untied batch (a graph's kernels took ranges no launch announced) mixes kernels: not a mismatch.
    untied = {"traceEvents": [counter_range("__missing__", fadd=f) for f in (0.0, 1 << 20, 4 << 20)]}
    r = features_check.check_counters(untied)
    assert r["ok"] and r["ranges"] == 3 and r["ranges_untied"] == 3 and r["ranges_unlike_their_kernel"] == 0


def test_command_line(tmp_path, capsys) -> None:
    write(tmp_path, "t.json", nvtx_trace())
    out = tmp_path / "r.json"
    assert features_check.main(["nvtx-window", "--trace", str(tmp_path / "t.json"), "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith("ok nvtx-window: first range ProfilerStep#10 (wanted ProfilerStep#10)")
    assert json.loads(out.read_text())["ok"] is True
    assert features_check.main(["graph", "--trace", str(tmp_path / "t.json"), "--out", str(out)]) == 2
    assert features_check.main(["counters", "--trace", str(tmp_path / "missing.json"), "--out", str(out)]) == 2
    assert "features_check: " in capsys.readouterr().err

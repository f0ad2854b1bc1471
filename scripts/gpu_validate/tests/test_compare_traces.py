"""compare_traces.py on a real PyTorch profiler trace (tb_plugin ResNet-50 on a V100):
the trace against itself, against a copy that lost one kernel, and against a copy written
the way kraken's tracer writes (one event per line) and cut by a kill."""
from __future__ import annotations

import gzip
import json

import compare_traces
from conftest import data_path

TRACE = "kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"


def load() -> dict:
    with gzip.open(data_path(TRACE), "rt") as f:
        return json.load(f)


def test_a_trace_agrees_with_itself() -> None:
    result = compare_traces.compare(data_path(TRACE), data_path(TRACE))
    assert result["steps_compared"] == [5, 6, 7, 8, 9, 10]
    assert result["kernels"] == {"reference": 8772, "other": 8772, "diff_pct": 0.0}
    assert result["kernel_time_us"]["diff_pct"] == 0.0
    assert result["names_with_different_counts"] == []
    # All 8772 kernels ran between the first and last kernel the steps launched.
    assert result["gpu_window"]["reference"] == result["gpu_window"]["other"]
    assert result["gpu_window"]["reference"]["kernels"] == 8772


def test_a_launch_the_profiler_missed_still_counts_in_the_gpu_window(tmp_path) -> None:
    doc = load()
    events = doc["traceEvents"]
    step7 = next(e for e in events if e.get("name") == "ProfilerStep#7")
    launch = next(e for e in events if e.get("cat") == "Runtime" and "correlation" in e.get("args", {})
                  and step7["ts"] <= e["ts"] <= step7["ts"] + step7["dur"]
                  and any(k.get("cat") == "Kernel" and k["args"].get("correlation") == e["args"]["correlation"]
                          for k in events))
    events.remove(launch)  # its kernel has no launch record now
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc))
    result = compare_traces.compare(data_path(TRACE), str(other))
    assert result["kernels"]["other"] == 8771
    assert result["gpu_window"]["other"]["kernels"] == 8772


def test_a_missing_kernel_and_extra_steps_are_seen(tmp_path) -> None:
    doc = load()
    events = doc["traceEvents"]
    launches = {e["args"]["correlation"]: e["ts"] for e in events if e.get("cat") == "Runtime" and "correlation" in e.get("args", {})}
    step6 = next(e for e in events if e.get("name") == "ProfilerStep#6")
    victim = next(e for e in events if e.get("cat") == "Kernel"
                  and step6["ts"] <= launches.get(e["args"].get("correlation"), -1) <= step6["ts"] + step6["dur"])
    events.remove(victim)
    # A step only this trace has is not compared.
    events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#99", "ts": 1, "dur": 1, "pid": 1, "tid": 1})
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc))
    result = compare_traces.compare(data_path(TRACE), str(other))
    assert result["steps_compared"] == [5, 6, 7, 8, 9, 10] and 99 in result["other_steps"]
    assert result["kernels"]["other"] == 8771
    assert result["kernels"]["diff_pct"] == round(-1 / 8772 * 100, 4)
    assert result["kernel_time_us"]["other"] == round(result["kernel_time_us"]["reference"] - victim["dur"], 3)
    assert result["names_with_different_counts"] == [victim["name"]]


def test_a_cut_incremental_trace_is_read_to_its_last_whole_event(tmp_path) -> None:
    events = load()["traceEvents"]
    # kraken's tracer: every event on its own line, starting with its separator.
    lines = ['{"incrementalEvents": true, "traceEvents": ['] + [("," if i else "") + json.dumps(e)
                                                               for i, e in enumerate(events)]
    text = "\n".join(lines)
    cut = text[: text.index('"ProfilerStep#9"')]  # inside an event: it and all later ones are lost
    path = tmp_path / "cut.json"
    path.write_text(cut)
    kept = compare_traces.load_events(str(path))
    assert 0 < len(kept) < len(events) and all(isinstance(e, dict) for e in kept)
    result = compare_traces.compare(data_path(TRACE), str(path))
    assert 9 not in result["other_steps"] and 5 in result["steps_compared"]

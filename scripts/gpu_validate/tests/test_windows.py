"""windows.py with stand-in (cpu-spin) workers: window order, results, deadlines, the
agent windows on the NVML replay."""
from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

import windows
from conftest import BUILD_DIR, SOURCE_DIR


def test_pairs_most_informative_first() -> None:
    names = ["gemm", "elementwise", "resnet50-train", "bert-infer"]
    assert windows.pairs_of(names) == windows.PAIR_ORDER
    assert windows.pairs_of(["bert-infer", "gemm", "extra"]) == [("gemm", "bert-infer"), ("bert-infer", "extra"),
                                                                 ("gemm", "extra")]


def test_line_reader_times_out_and_reads_whole_lines() -> None:
    child = subprocess.Popen(["sh", "-c", "printf 'one\\ntw'; sleep 0.3; printf 'o\\n'"], stdout=subprocess.PIPE)
    reader = windows.LineReader(child.stdout)
    assert reader.readline(2) == "one"
    assert reader.readline(0.05) is None  # "tw" so far: not a line yet
    assert reader.readline(2) == "two"
    assert reader.readline(2) is None and reader.eof  # end of file
    child.wait()
    child.stdout.close()


def test_colocation_windows_with_stand_ins(tmp_path) -> None:
    out = tmp_path / "ts"
    code = windows.main(["colocation", "--workloads", "gemm,elementwise,bert-infer", "--stand-in", "--out", str(out),
                         "--seconds", "0.2", "--pause", "0.05"])
    assert code == 0
    index = json.loads((out / "windows.json").read_text())
    tags = [w["tag"] for w in index["windows"]]
    assert tags == ["solo-gemm", "solo-elementwise", "solo-bert-infer", "gemm+elementwise", "elementwise+bert-infer",
                    "gemm+bert-infer", "solo2-gemm", "solo2-elementwise", "solo2-bert-infer"]
    assert all(w["status"] == "ok" for w in index["windows"]) and index["stand_in"] is True
    pair = next(w for w in index["windows"] if w["tag"] == "gemm+elementwise")
    assert pair["members"] == ["gemm", "elementwise"]
    a = json.loads((out / pair["results"]["gemm"]).read_text())
    b = json.loads((out / pair["results"]["elementwise"]).read_text())
    assert a["window"] == b["window"] == "gemm+elementwise" and a["stand_in"] and a["workload"] == "cpu-spin"
    assert abs(a["start_unix"] - b["start_unix"]) < 0.1  # both got `run` at once
    assert a["pid"] != b["pid"] and index["workers"]["gemm"]["pid"] == a["pid"]


def test_windows_past_the_deadline_are_skipped(tmp_path) -> None:
    out = tmp_path / "late"
    code = windows.main(["colocation", "--workloads", "gemm,elementwise", "--stand-in", "--out", str(out),
                         "--seconds", "0.2", "--deadline", str(time.time() + 1)])
    assert code == 1  # nothing measured
    index = json.loads((out / "windows.json").read_text())
    assert index["windows"] == [] and len(index["skipped"]) == 5
    assert all(s["reason"] == "no time left before the deadline" for s in index["skipped"])


def test_a_worker_that_cannot_start_is_reported(tmp_path) -> None:
    # "gemm" without --stand-in needs torch, which is not installed here: the worker exits.
    try:
        import torch  # noqa: F401
        pytest.skip("torch is installed: the gemm worker would start")
    except ImportError:
        pass
    out = tmp_path / "broken"
    assert windows.main(["colocation", "--workloads", "gemm", "--out", str(out), "--seconds", "0.2"]) == 1
    index = json.loads((out / "windows.json").read_text())
    assert "exited with code 1" in index["workers"]["gemm"]["error"]
    assert [s["reason"] for s in index["skipped"]] == ["worker not running: gemm"] * 2
    assert "No module named 'torch'" in (out / "worker-gemm.log").read_text()


def test_agent_windows_on_the_replay(tmp_path, monkeypatch) -> None:
    kraken = os.path.join(BUILD_DIR, "src", "cli", "kraken")
    monkeypatch.setenv("KRAKEN_NVML_LIBRARY", os.path.join(BUILD_DIR, "src", "collectors", "nvml",
                                                           "libkraken_nvml_replay.so"))
    monkeypatch.setenv("KRAKEN_NVML_REPLAY", os.path.join(SOURCE_DIR, "tests", "fixtures", "nvml", "h100.nvml"))
    out = tmp_path / "agent"
    assert windows.main(["agent-overhead", "--workload", "gemm", "--stand-in", "--kraken", kraken, "--out", str(out),
                         "--seconds", "1.5", "--pause", "0.05"]) == 0
    index = json.loads((out / "windows.json").read_text())
    assert [w["tag"] for w in index["windows"]] == ["alone-1", "agent-100ms", "agent-10ms", "alone-2"]
    fast = next(w for w in index["windows"] if w["tag"] == "agent-10ms")
    assert fast["agent"]["exit_code"] == 0 and fast["agent"]["interval"] == "10ms"
    scrapes = fast["agent"]["scrapes"]
    assert scrapes and all("kraken_agent_sample_duration_seconds" in s for s in scrapes)
    if len(scrapes) >= 2:  # 10 ms passes: about 100 a second between scrapes
        assert scrapes[-1]["kraken_agent_samples_total"] - scrapes[0]["kraken_agent_samples_total"] >= 30
    assert "serving http://127.0.0.1:" in (out / "agent-10ms.log").read_text()

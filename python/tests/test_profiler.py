"""WorkloadProfiler on the NVML replay library, against `kraken profile` on the same capture.

h100.nvml frames 0-4 are idle; frames 5-9 run pids 11345 (16452157440 B, SM 99 %), 11327
(2690646016 B) and 11328 at device utilization 100 %. The test-only
KRAKEN_NVML_REPLAY_PID_MAP reports 11345 as the profiled Python process itself and 11327
as its first child, as src/cli/profile_cli_test.cc maps them onto the command kraken
profile starts. With 10 passes the two runs see frames 0-9 once each. The kernel timeline
(torch.profiler, kraken's CUPTI tracer) is in test_profiler_kernels.py.
"""
from __future__ import annotations

import json
import subprocess
import textwrap
import time
from pathlib import Path
from typing import Any, Dict

import pytest

import kraken
from conftest import PYTHON, kraken_json, python_env, run_kraken, wait_for_passes

PID_11345 = 16452157440
PID_11327 = 2690646016
# Keys of the run summary that describe what ran, not what was measured.
RUN_KEYS = ("command", "attached_pid", "exit_code", "tree_pids", "stored")

CPU_WORKLOAD = textwrap.dedent("""
    import json, os, subprocess, sys, time
    # The capture's pids become this process (11345) and its first child (11327).
    os.environ["KRAKEN_NVML_REPLAY_PID_MAP"] = f"11345:{os.getpid()},11327:self/0"
    from kraken import WorkloadProfiler

    # slow_interval=0: process utilization every pass, one per replayed frame (the
    # capture's frames are 1 s apart), as the CLI run below with --slow-interval 0.
    profiler = WorkloadProfiler(workload_name="cpu-loop", sampling_interval=50, max_samples=10,
                                metrics=["gpu_util", "memory"], store=False, slow_interval=0)
    # Started before the session, so that every pass finds it in the tree however late a
    # loaded machine would run a Popen inside the block.
    child = subprocess.Popen(["sleep", "60"])
    with profiler:
        total = 0
        # Until the session has taken its 10 passes (0.5 s idle, much longer loaded): a fixed
        # deadline would stop it early and the run would have fewer passes than the CLI's.
        while profiler.passes_taken < 10:       # a CPU workload, one step per iteration
            total += sum(i * i for i in range(2000))
            profiler.step()
    child.kill()
    assert profiler.passes_taken == 10
    print(json.dumps(profiler.summary.raw))
""")


def profile_until_sampled(out: Path, exit_code: int = 0) -> Dict[str, Any]:
    """`kraken profile --json` of 10 passes of 50 ms over `sh` and its first child (a
    sleep), exiting `exit_code`. The command outlasts the sampling however slow a loaded
    machine makes it: it ends once kraken has written --out, which kraken does when the
    pass limit is reached, before it waits for the command. (A fixed `sleep 2` ended first
    under load: the tree ended, and the run had fewer passes than the Python one.)"""
    script = ('sleep 60 & i=0; while [ ! -e "$0" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done; '
              f'kill $!; exit {exit_code}')
    return kraken_json("profile", "--out", str(out), "--interval", "50ms", "--slow-interval", "0", "--samples", "10",
                       "--", "sh", "-c", script, str(out), exit_code=exit_code)


def measured(summary: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in RUN_KEYS}


def run_child(code: str) -> Dict[str, Any]:
    r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=python_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_with_block_gives_the_figures_of_kraken_profile_on_the_same_capture(replay, tmp_path: Path) -> None:
    replay("h100.nvml", "11345:self/0,11327:self/0/0")
    cli = profile_until_sampled(tmp_path / "cli.json", exit_code=3)
    assert cli["passes"] == 10
    replay("h100.nvml", "")  # the child sets its own map
    python = run_child(CPU_WORKLOAD)
    assert measured(python) == measured(cli)
    gpu = python["gpus"][0]
    # The figures src/cli/profile_cli_test.cc pins for the same capture and mapping.
    assert (gpu["tree_sm_util_pct"]["p50"], gpu["tree_sm_util_pct"]["p90"], gpu["tree_sm_util_pct"]["p99"]) == \
           (49.5, 99, 99)
    assert gpu["device_util_pct"]["p50"] == 50 and gpu["device_util_pct"]["p99"] == 100
    assert python["memory_peak_bytes"] == PID_11345 + PID_11327
    assert (gpu["passes_present"], gpu["passes_shared"]) == (5, 5)
    assert (python["idle_gaps"]["count"], python["idle_gaps"]["longest_passes"], python["idle_gaps"]["total_s"]) == \
           (1, 5, 0.25)
    assert python["exit_code"] is None and python["stored"]["profile_id"] is None


def test_mig_run_has_exact_memory_and_unknown_utilization(replay, tmp_path: Path) -> None:
    replay("h100-mig.nvml", "21198:self/0")
    cli = profile_until_sampled(tmp_path / "cli.json")
    assert cli["passes"] == 10
    replay("h100-mig.nvml", "")
    python = run_child(CPU_WORKLOAD.replace('f"11345:{os.getpid()},11327:self/0"', 'f"21198:{os.getpid()}"'))
    assert measured(python) == measured(cli)
    assert python["gpus"][0]["tree_sm_util_pct"] is None and python["gpus"][0]["mig_gpu_instances"] == [2]
    assert python["memory_peak_bytes"] == 7847542784


def test_report_holds_steps_phases_and_the_cli_analyses_of_the_stored_run(replay, tmp_path: Path) -> None:
    replay("h100.nvml", "")
    db = str(tmp_path / "runs.db")
    profiler = kraken.WorkloadProfiler("phases", sampling_interval=20, db=db, metrics=["gpu_util", "power"])
    with profiler:
        profiler.mark("warmup")
        time.sleep(0.1)
        profiler.mark("train")
        for _ in range(5):
            time.sleep(0.02)
            profiler.step()
        wait_for_passes(profiler, 5)
    summary = profiler.summary
    profile_id = summary.stored["profile_id"]
    assert summary.stored["db"] == db and profile_id is not None
    assert summary.passes >= 5 and summary.interval_s == 0.02
    report = profiler.get_report()
    assert report.inputs == [str(profile_id)]
    assert report.analysis.to_dict() == kraken_json("analyze", str(profile_id), "--db", db)
    assert report.analysis.ranks[0].step_time["count"] == 5  # one step per step() call
    stored = kraken.Profile.load(profile_id, db=db).document
    assert [r["name"] for r in stored["profiler_ranges"]] == ["warmup", "train"]
    assert [d.raw for d in report.analyze_disaggregation_potential()] == \
           kraken_json("disagg", str(profile_id), "--db", db)["workloads"]
    assert report.analyze_temporal_patterns().raw == kraken_json("temporal", str(profile_id), "--db", db)
    assert report.summary() == run_kraken("analyze", str(profile_id), "--db", db).stdout
    assert set(report.metric_summaries) == {"gpu_util", "power"}
    assert {s["metric"] for s in report.metric_summaries["power"]} >= {"power_w"}
    assert report.diagnoses == report.analysis.diagnoses

    html = Path(report.save(tmp_path / "report.html"))
    run_kraken("report", str(profile_id), "--db", db, "--title", "phases", "-o", str(tmp_path / "cli.html"))
    assert html.read_bytes() == (tmp_path / "cli.html").read_bytes()
    # The disaggregation budget reaches the page and the analysis as on the command line.
    budget = Path(report.save(tmp_path / "budget.html", max_slowdown=1000))
    run_kraken("report", str(profile_id), "--db", db, "--title", "phases", "--max-slowdown", "1000",
               "-o", str(tmp_path / "cli-budget.html"))
    assert budget.read_bytes() == (tmp_path / "cli-budget.html").read_bytes() != html.read_bytes()
    assert [d.raw for d in report.analyze_disaggregation_potential(max_slowdown=1000)] == \
           kraken_json("disagg", str(profile_id), "--db", db, "--max-slowdown", "1000")["workloads"]
    as_json = json.loads(Path(report.save(tmp_path / "report.json")).read_text())
    assert as_json == report.to_dict()
    assert as_json["profile"] == summary.raw and as_json["analysis"] == report.analysis.raw
    with pytest.raises(ValueError, match="writes .html or .json"):
        report.save(tmp_path / "report.txt")
    assert not (tmp_path / "report.txt").exists()


def test_unstored_run_is_read_from_its_file(replay, tmp_path: Path) -> None:
    replay("h100.nvml", "")
    out = tmp_path / "run.json"
    profiler = kraken.WorkloadProfiler("unstored", sampling_interval=20, store=False, out=out, max_samples=3)
    with profiler:
        time.sleep(0.1)
    assert profiler.summary.stored == {"db": None, "profile_id": None, "file": str(out)}
    report = profiler.get_report()
    assert report.inputs == [str(out)]
    assert report.analysis.to_dict() == kraken_json("analyze", str(out))
    assert profiler.get_profile().document == json.loads(out.read_text())


def test_unknown_metrics_and_misuse_are_clear_errors(replay) -> None:
    with pytest.raises(ValueError) as error:
        kraken.WorkloadProfiler("x", metrics=["gpu_util", "fan_speed"])
    assert str(error.value) == ("unknown metric 'fan_speed'; valid metrics: gpu_util, memory, pcie_bw, nvlink, "
                                "power, clocks, kernel_timeline")
    with pytest.raises(ValueError, match="sampling_interval must be > 0 ms"):
        kraken.WorkloadProfiler("x", sampling_interval=0)
    profiler = kraken.WorkloadProfiler("x", store=False)
    with pytest.raises(kraken.InvalidArgumentError, match="is not running"):
        profiler.step()
    with pytest.raises(kraken.InvalidArgumentError, match="has not been stopped yet"):
        profiler.get_report()
    replay("h100.nvml", "")
    with profiler:
        with pytest.raises(kraken.InvalidArgumentError, match="is running already"):
            profiler.start()
    with pytest.raises(kraken.InvalidArgumentError, match="is not running"):
        profiler.stop()


def test_without_nvml_start_fails_with_the_library_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KRAKEN_NVML_LIBRARY", raising=False)
    profiler = kraken.WorkloadProfiler("x", store=False, nvml_library="/nonexistent/libnvidia-ml.so.1")
    with pytest.raises(kraken.KrakenError, match="cannot load the NVML library /nonexistent/libnvidia-ml.so.1"):
        with profiler:
            pytest.fail("the block must not run when sampling could not start")
    assert not profiler.running


def test_an_exception_in_the_block_stops_sampling_and_propagates(replay) -> None:
    replay("h100.nvml", "")
    profiler = kraken.WorkloadProfiler("failing", sampling_interval=20, store=False)
    with pytest.raises(ZeroDivisionError):
        with profiler:
            wait_for_passes(profiler, 1)
            1 / 0
    assert not profiler.running and profiler.summary.passes >= 1


def test_a_forked_child_cannot_stop_the_session_nor_remove_its_files(replay) -> None:
    import os
    replay("h100.nvml", "")
    profiler = kraken.WorkloadProfiler("forking", sampling_interval=20, store=False)
    with profiler:
        folder = profiler._workspace.path
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # a DataLoader-like worker
            os.close(read)
            try:
                profiler.step()
                message = "step() worked in the child"
            except kraken.InvalidArgumentError as error:
                message = str(error)
            os.write(write, message.encode())
            os.close(write)
            # What a child that exits normally runs at exit (weakref.finalize's atexit).
            profiler._workspace._finalizer()
            os._exit(0)
        os.close(write)
        message = os.read(read, 4096).decode()
        os.close(read)
        os.waitpid(pid, 0)
        assert f"was started by process {os.getpid()}; this forked child cannot step it" in message
        assert folder.exists()
        profiler.step()  # the session still runs in the parent
        wait_for_passes(profiler, 1)
    assert profiler.summary.passes >= 1

"""Shared fixtures of the Python package's tests.

The tests compare the package's results with the ``kraken`` binary's ``--json`` output for
the same inputs and settings, on the real files of ../shared/data (KRAKEN_DATA_DIR, else
the folder CMake was configured with). A missing data file fails the test: a comparison
must never pass because its input was not there.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict

import pytest

if TYPE_CHECKING:  # the package is imported by the tests, not by their fixtures
    import kraken

SOURCE_DIR = Path(os.environ.get("KRAKEN_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BUILD_DIR = Path(os.environ.get("KRAKEN_BUILD_DIR") or SOURCE_DIR / "build")
KRAKEN_BINARY = BUILD_DIR / "src" / "cli" / "kraken"
REPLAY_LIBRARY = BUILD_DIR / "src" / "collectors" / "nvml" / "libkraken_nvml_replay.so"
NVML_FIXTURES = SOURCE_DIR / "tests" / "fixtures" / "nvml"

# The real files the tests read (figures in the comments are the CLI's and the C++ tests').
RESNET_TRACE = "kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
ORION_RESNET = "orion/resnet50_4_fwd.csv"
ORION_BERT = "orion/bert_2_fwd.csv"
ORION_MOBILENET = "orion/mobilenetv2_4_fwd.csv"
ORION_RESNET_FB = "orion/resnet50_32_fb1.csv"
H100_CAPTURE = "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"
PHILLY_SERIES = "helios/philly_node_sequence.csv.gz"
DLRM_REFERENCE = "alibaba-dlrm-v2025/disaggregated_DLRM_trace.csv.gz"


def data_dir() -> Path:
    """$KRAKEN_DATA_DIR, else the CMake default, else ../shared/data beside the clone."""
    return Path(os.environ.get("KRAKEN_DATA_DIR") or os.environ.get("KRAKEN_DEFAULT_DATA_DIR")
                or SOURCE_DIR.parent / "shared" / "data")


def data(relative: str) -> str:
    """The absolute path of a shared data file; fails the test when it is missing."""
    path = data_dir() / relative
    if not path.exists():
        pytest.fail(f"real data file missing: {path}")
    return str(path)


def run_kraken(*args: str, check: bool = True, env: Dict[str, str] = None) -> subprocess.CompletedProcess:
    """Runs the kraken binary of the same build."""
    if not KRAKEN_BINARY.exists():
        pytest.fail(f"kraken binary missing: {KRAKEN_BINARY} (build it first)")
    result = subprocess.run([str(KRAKEN_BINARY), *args], capture_output=True, text=True, env=env)
    if check and result.returncode != 0:
        pytest.fail(f"kraken {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


def kraken_json(command: str, *args: str, exit_code: int = 0) -> Dict[str, Any]:
    """The document ``kraken COMMAND --json ARGS`` prints (it exits with `exit_code`)."""
    result = run_kraken(command, "--json", *args, check=False)
    if result.returncode != exit_code:
        pytest.fail(f"kraken {command} --json {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return json.loads(result.stdout)


@pytest.fixture(autouse=True)
def private_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own default store: nothing reaches ~/.local/share/kraken."""
    path = tmp_path / "kraken.db"
    monkeypatch.setenv("KRAKEN_STORAGE_PATH", str(path))
    return path


@pytest.fixture
def replay(monkeypatch: pytest.MonkeyPatch):
    """Points NVML at the replay library; returns a function (capture, pid map) that sets
    the capture and the test-only pid map (docs/nvml-capture-format.md)."""
    if not REPLAY_LIBRARY.exists():
        pytest.fail(f"NVML replay library missing: {REPLAY_LIBRARY}")
    monkeypatch.setenv("KRAKEN_NVML_LIBRARY", str(REPLAY_LIBRARY))

    def use(capture: str, pid_map: str) -> None:
        monkeypatch.setenv("KRAKEN_NVML_REPLAY", str(NVML_FIXTURES / capture))
        monkeypatch.setenv("KRAKEN_NVML_REPLAY_PID_MAP", pid_map)

    return use


def wait_for_passes(profiler: kraken.WorkloadProfiler, count: int) -> None:
    """Until the running session has taken `count` passes: on a loaded machine its sampling
    thread may not have run at all in a fixed few milliseconds."""
    deadline = time.monotonic() + 60
    while profiler.passes_taken < count:
        assert time.monotonic() < deadline, f"the session took {profiler.passes_taken} of {count} passes in 60 s"
        time.sleep(0.005)


def python_env(**extra: str) -> Dict[str, str]:
    """The environment for a child Python that imports the package under test."""
    env = dict(os.environ)
    env.update(extra)
    return env


PYTHON = sys.executable

__all__ = ["data", "data_dir", "run_kraken", "kraken_json", "python_env", "wait_for_passes", "PYTHON"]

"""examples/python/*.py run on the NVML replay (no GPU) and without PyTorch."""
from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

from conftest import NVML_FIXTURES, PYTHON, REPLAY_LIBRARY, RESNET_TRACE, SOURCE_DIR, data, python_env

EXAMPLES = SOURCE_DIR / "examples" / "python"


def run_example(name: str, *args: str) -> subprocess.CompletedProcess:
    # exec keeps the shell's pid, so `$$` maps the capture's busiest process (11345) onto
    # the example's Python process before it loads NVML.
    launcher = 'KRAKEN_NVML_REPLAY_PID_MAP=11345:$$ exec "$0" "$@"'
    env = python_env(KRAKEN_NVML_LIBRARY=str(REPLAY_LIBRARY), KRAKEN_NVML_REPLAY=str(NVML_FIXTURES / "h100.nvml"))
    return subprocess.run(["sh", "-c", launcher, PYTHON, str(EXAMPLES / name), *args], capture_output=True,
                          text=True, env=env, timeout=180)


def test_profile_and_analyze_without_torch(tmp_path: Path) -> None:
    r = run_example("profile_and_analyze.py", "--out", str(tmp_path), data(RESNET_TRACE))
    assert r.returncode == 0, r.stderr
    assert "gpu 0 NVIDIA H100 80GB HBM3: tree SM util p50/p90/p99" in r.stdout
    assert "memory peak 15.32 GiB" in r.stdout  # pid 11345's 16452157440 B
    assert (tmp_path / "cpu-loop.html").exists()
    assert "training, 8772 kernels, GPU idle 39.43 %" in r.stdout
    assert "disaggregation score 0.717, strategy dedicated" in r.stdout


def test_torch_example_runs_with_or_without_torch(tmp_path: Path) -> None:
    r = run_example("train_with_torch.py", "--out", str(tmp_path), "--steps", "20")
    assert r.returncode == 0, r.stderr
    if importlib.util.find_spec("torch") is None:  # the build machines: no PyTorch
        assert "PyTorch is not installed: skipping the torch part" in r.stdout
        assert "kernel timeline: none" in r.stdout
    else:
        assert "kernel timeline: torch.profiler" in r.stdout
    assert (tmp_path / "mlp-training.html").exists()

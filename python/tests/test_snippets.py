"""The README's five-line example and every ```python snippet of docs/python.md run as
written. Only two things are pointed at the test's own: the shared data folder
("../shared/data", relative to the clone, becomes KRAKEN_DATA_DIR) and the Prometheus URL
(a real Prometheus the test loads with DCGM history). NVML is the replay library with the
capture's busiest pid mapped onto the snippet's process; `model.train()` is a CPU loop."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import List

import pytest

from conftest import PYTHON, SOURCE_DIR, data_dir, python_env, REPLAY_LIBRARY, NVML_FIXTURES
from prometheus_server import PrometheusServer, week_end_s, week_of_history

DESIGN_URL = "http://prometheus.monitoring:9090"
MODEL = """
import os, time
os.environ["KRAKEN_NVML_REPLAY_PID_MAP"] = f"11345:{os.getpid()}"

class CpuModel:
    def train(self):
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            sum(i * i for i in range(2000))

model = CpuModel()
"""


def python_blocks(path: Path) -> List[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def run_snippet(code: str, cwd: Path, url: str = DESIGN_URL) -> subprocess.CompletedProcess:
    code = code.replace("../shared/data", str(data_dir())).replace(DESIGN_URL, url)
    env = python_env(KRAKEN_NVML_LIBRARY=str(REPLAY_LIBRARY), KRAKEN_NVML_REPLAY=str(NVML_FIXTURES / "h100.nvml"))
    return subprocess.run([PYTHON, "-c", MODEL + code], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120)


def test_the_readme_example_runs_and_writes_the_report(tmp_path: Path) -> None:
    readme = python_blocks(SOURCE_DIR / "README.md")
    assert len(readme) == 1 and "WorkloadProfiler" in readme[0]
    lines = [line for line in readme[0].splitlines() if line.strip()]
    assert len(lines) == 7  # the design's snippet: import, profiler, with + body, report, save
    r = run_snippet(readme[0], tmp_path)
    assert r.returncode == 0, r.stderr
    # No PyTorch, no CUPTI tracer here: kernel_timeline says so instead of failing.
    assert "KernelTimelineWarning: kernel_timeline: no kernel timeline can be recorded" in r.stderr
    page = (tmp_path / "profile_report.html").read_text()
    assert page.startswith("<!doctype html>") and "bert-training" in page


@pytest.fixture(scope="module")
def prometheus_url(tmp_path_factory: pytest.TempPathFactory):
    server = PrometheusServer(week_of_history(str(data_dir()), week_end_s()),
                              Path(tmp_path_factory.mktemp("prometheus")))
    try:
        yield server.url
    finally:
        server.close()


SNIPPETS = python_blocks(SOURCE_DIR / "docs" / "python.md")


def test_the_docs_show_every_api() -> None:
    text = "\n".join(SNIPPETS)
    for name in ("WorkloadProfiler", "PerformanceTroubleshooter", "DisaggregationAnalyzer", "InterferencePredictor",
                 "ColocationOptimizer", "analyze_temporal", "ClusterAnalyzer", "find_pooling_candidates"):
        assert name in text, f"docs/python.md has no snippet with {name}"


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_each_docs_snippet_runs_as_written(index: int, tmp_path: Path, prometheus_url: str) -> None:
    r = run_snippet(SNIPPETS[index], tmp_path, prometheus_url)
    assert r.returncode == 0, f"snippet {index} of docs/python.md failed:\n{SNIPPETS[index]}\n{r.stderr}"
    if "print(" in SNIPPETS[index]:
        assert r.stdout.strip(), f"snippet {index} printed nothing"

"""A real Prometheus for the ClusterAnalyzer tests, loaded with history built from the real
dcgm-exporter captures of ../shared/data/dcgm, as src/cli/prometheus_test_server.cc does
for the C++ tests: every matching sample line of a capture, its value unchanged, repeated
at every interval of the range, with pod labels added by the test (the captures were
taken without pods, except the A10G line of the DataDog fixture, whose own labels are kept).
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

PROMETHEUS = "/usr/bin/prometheus"
PROMTOOL = "/usr/bin/promtool"

# name{labels} value  (the captures have no timestamps)
_SAMPLE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)\{(.*)\}\s+(\S+)\s*$")


@dataclass
class Attribution:
    """Which lines of a capture go to which pod (mirrors CaptureAttribution in C++)."""

    data_file: str          # relative to the shared data folder
    hostname: str = ""      # only lines of this Hostname ("" = lines that already have a pod label)
    mig_instances: bool = False  # only lines with GPU_I_ID (else only lines without)
    namespace: str = ""
    pod: str = ""
    exported_spelling: bool = False  # exported_namespace/exported_pod + the exporter's own pod


def _has_label(labels: str, name: str) -> bool:
    return re.search(r'(^|,)\s*' + re.escape(name) + r'="', labels) is not None


def build_history(data_dir: str, attributions: List[Attribution], end_s: int, span_s: int,
                  interval_s: int) -> str:
    """OpenMetrics text of the attributed lines over [end_s - span_s, end_s]."""
    families: Dict[str, Dict[str, str]] = {}
    for a in attributions:
        text = (Path(data_dir) / a.data_file).read_text()
        for line in text.splitlines():
            match = _SAMPLE.match(line)
            if not match:
                continue
            name, labels, value = match.groups()
            if a.hostname:
                if f'Hostname="{a.hostname}"' not in labels:
                    continue
            elif not _has_label(labels, "pod"):
                continue
            if a.mig_instances != _has_label(labels, "GPU_I_ID"):
                continue
            extra = ""
            if a.pod:
                if a.exported_spelling:
                    extra = (f',exported_namespace="{a.namespace}",exported_pod="{a.pod}"'
                             ',namespace="gpu-operator",pod="nvidia-dcgm-exporter-5x2kq"')
                else:
                    extra = f',namespace="{a.namespace}",pod="{a.pod}"'
            families.setdefault(name, {}).setdefault(f"{name}{{{labels}{extra}}}", value)
    out: List[str] = []
    for name in sorted(families):
        out.append(f"# TYPE {name} gauge")
        for key, value in sorted(families[name].items()):
            out.extend(f"{key} {value} {t}" for t in range(end_s - span_s, end_s + 1, interval_s))
    out.append("# EOF")
    return "\n".join(out) + "\n"


def _plain_env() -> Dict[str, str]:
    """The environment for promtool and prometheus: without a sanitizer runtime preloaded
    for the interpreter (sanitizer builds), which is not theirs to load."""
    return {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrometheusServer:
    """promtool-created blocks served by a Prometheus on a free loopback port."""

    def __init__(self, openmetrics: str, work_dir: Path) -> None:
        self.work_dir = work_dir
        history = work_dir / "history.om"
        history.write_text(openmetrics)
        (work_dir / "prometheus.yml").write_text("global:\n  scrape_interval: 15s\n")
        data = work_dir / "data"
        with open(work_dir / "promtool.log", "w") as log:
            subprocess.run([PROMTOOL, "tsdb", "create-blocks-from", "openmetrics", "--max-block-duration=24h",
                            str(history), str(data)], check=True, stdout=log, stderr=subprocess.STDOUT,
                           env=_plain_env())
        self.port = _free_port()
        self.log = open(work_dir / "prometheus.log", "w")
        self.process: Optional[subprocess.Popen] = subprocess.Popen(
            [PROMETHEUS, f"--config.file={work_dir / 'prometheus.yml'}", f"--storage.tsdb.path={data}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--storage.tsdb.retention.time=30d"],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=work_dir, env=_plain_env())
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("prometheus exited: " + (work_dir / "prometheus.log").read_text()[-2000:])
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.25)
        self.close()
        raise RuntimeError("prometheus not ready after 60 s")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None
        self.log.close()


def week_end_s() -> int:
    """An end an hour back on a 5-minute grid: the whole range is in persisted blocks."""
    return int(time.time()) // 300 * 300 - 3600




A100_CAPTURE = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom"
T4_CAPTURE = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt"


def week_of_history(data_dir: str, end_s: int) -> str:
    """The tests' cluster: a week at 5-minute samples. The A100 node's whole GPU goes to
    ml/trainer-0 and its MIG instance 13 (1g.5gb) to ml/notebook-0, scraped without
    honorLabels (exported_* spelling); the T4 (driver 460) to ml/infer-t4; the A10G line
    keeps its own labels (namespace ray-llm)."""
    for relative in (A100_CAPTURE, T4_CAPTURE):
        if not (Path(data_dir) / relative).exists():
            raise FileNotFoundError(f"real data file missing: {Path(data_dir) / relative}")
    return build_history(data_dir, [
        Attribution(A100_CAPTURE, "ub20-a100-k8s", False, "ml", "trainer-0", True),
        Attribution(A100_CAPTURE, "ub20-a100-k8s", True, "ml", "notebook-0", True),
        Attribution(T4_CAPTURE, "424773df46e0", False, "ml", "infer-t4"),
        Attribution(T4_CAPTURE),
    ], end_s, 7 * 86400, 300)

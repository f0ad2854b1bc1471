"""Golden test: `kraken gpus --json` on the NVML replay of the capture recorded on a real
NVIDIA H100 (examples/nvidia-h100-80gb-hbm3/node.nvml.gz, `kraken record-nvml`, validation
run 2). The replay library reads plain captures, so the test inflates it first. What kraken
reports must equal what the capture holds, read here with gzip and plain line parsing.

Run by ctest with KRAKEN_BINARY, KRAKEN_NVML_REPLAY_LIBRARY and KRAKEN_SOURCE_DIR.
"""
from __future__ import annotations

import gzip
import json
import os
import pathlib
import subprocess
from typing import Dict

CAPTURE = os.path.join(os.environ["KRAKEN_SOURCE_DIR"], "examples", "nvidia-h100-80gb-hbm3", "node.nvml.gz")


def capture_sections(text: str) -> Dict[str, Dict[str, str]]:
    """The capture's `[section]` blocks as key -> value maps (frames included)."""
    sections: Dict[str, Dict[str, str]] = {}
    current: Dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
        elif " = " in line:
            key, value = line.split(" = ", 1)
            current[key] = value
    return sections


def test_gpus_on_the_replay_reports_the_recorded_h100(tmp_path: pathlib.Path) -> None:
    text = gzip.decompress(pathlib.Path(CAPTURE).read_bytes()).decode("utf-8")
    capture = tmp_path / "node.nvml"
    capture.write_text(text, encoding="utf-8")
    sections = capture_sections(text)
    frames = [name for name in sections if name.startswith("frame ")]
    assert len(frames) == 895
    assert sum(1 for name in frames if "gpu0.gpm.2" in sections[name]) == 894
    device, system, first = sections["device 0"], sections["system"], sections["frame 0"]

    out = subprocess.run([os.environ["KRAKEN_BINARY"], "gpus", "--json", "--nvml-library",
                          os.environ["KRAKEN_NVML_REPLAY_LIBRARY"]], check=True, capture_output=True, text=True,
                         env={**os.environ, "KRAKEN_NVML_REPLAY": str(capture)}).stdout
    report = json.loads(out)
    assert len(report["gpus"]) == 1
    gpu = report["gpus"][0]
    assert gpu["name"] == device["name"] == "NVIDIA H100 80GB HBM3"
    assert gpu["uuid"] == device["uuid"]
    assert gpu["driver_version"] == system["driver_version"] == "580.159.04"
    assert gpu["cuda_version"] == "13.0" and system["cuda_driver_version"] == "13000"
    total_bytes = int(first["gpu0.memory"].split()[0])
    assert gpu["memory_bytes"] == total_bytes == 85520809984
    assert gpu["compute_capability"] == "9.0" and device["compute_capability"] == "9 0"
    assert gpu["max_sm_clock_mhz"] == int(device["max_sm_clock_mhz"]) == 1980
    assert gpu["power_limit_w"] * 1000 == int(device["power_limit_mw"]) == 700000
    assert gpu["gpm_supported"] is True and device["gpm_supported"] == "1"
    assert gpu["cpus"] == device["cpu_affinity"] == "0-15"
    sample = {v["metric"]: v["value"] for v in report["sample"]["values"] if v["gpu"] == 0}
    assert sample["fb_total_bytes"] == total_bytes
    assert sample["power_w"] * 1000 == int(first["gpu0.power_mw"]) == 73967
    assert sample["sm_clock_mhz"] == int(first["gpu0.sm_clock_mhz"]) == 345
    assert sample["gpu_temp_c"] == int(first["gpu0.gpu_temp_c"]) == 35

"""The legacy :7070 contract: the real ``kraken serve`` driven as the scheduler's Python
client of the legacy profiler API drives it.

That client reads the endpoints with ``urllib`` and converts fields as it goes
(``float(profile["arithmetic_intensity"])``, ``KernelType[profile["kernel_type"]]``,
``result["workload_a"]["type"]``, ``result["sm_partition"]``); a ``null`` where it expects a
number raises ``TypeError`` and an unknown type name ``KeyError``. These tests repeat those
requests, reads and conversions (docs/compat.md, "Legacy :7070 API") against the binary of
this build on a free loopback port, with a fresh store each.
"""
from __future__ import annotations

import enum
import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

from conftest import KRAKEN_BINARY, data_dir

# The legacy service's predefined table, as its clients' tests expect it.
LEGACY_TABLE = {
    "resnet50": ("COMPUTE_BOUND", 85.0),
    "vgg16": ("COMPUTE_BOUND", 90.0),
    "bert": ("MIXED", 35.0),
    "gpt2": ("MIXED", 28.0),
    "mobilenet": ("COMPUTE_BOUND", 65.0),
}
NUMERIC_PROFILE_FIELDS = ("arithmetic_intensity", "compute_ratio", "memory_ratio", "mixed_ratio")


class KernelType(enum.Enum):
    """The client's kernel types: it looks the answer up by name."""

    COMPUTE_BOUND = "compute_bound"
    MEMORY_BOUND = "memory_bound"
    MIXED = "mixed"
    UNKNOWN = "unknown"


class Server:
    """A running ``kraken serve`` and the client calls made against it."""

    def __init__(self, process: subprocess.Popen, port: int, log: Path) -> None:
        self.process = process
        self.base = f"http://127.0.0.1:{port}"
        self.log = log

    def get(self, path: str) -> Dict[str, Any]:
        """GET and decode JSON, as the client's helper does."""
        with urllib.request.urlopen(self.base + path, timeout=30) as response:
            return json.loads(response.read().decode("utf-8"))

    def post(self, path: str, body: Dict[str, Any]) -> Dict[str, Any]:
        """POST a JSON body, as the client's helper does."""
        request = urllib.request.Request(self.base + path, data=json.dumps(body).encode("utf-8"),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read().decode("utf-8"))

    def stop(self) -> None:
        """SIGTERM, then wait: the server exits 0 on it."""
        self.process.terminate()
        assert self.process.wait(timeout=30) == 0, self.log.read_text()


def free_port() -> int:
    """A port nothing listens on now (the kernel's choice for a throwaway socket)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(db: Path, args: List[str], env: Optional[Dict[str, str]] = None,
                 port: Optional[int] = None) -> Server:
    """Starts the binary; with no port it is given --port 0 and the printed port is used."""
    if not KRAKEN_BINARY.exists():
        pytest.fail(f"kraken binary missing: {KRAKEN_BINARY} (build it first)")
    log = db.parent / f"serve-{time.monotonic_ns()}.log"
    command = [str(KRAKEN_BINARY), "serve", "--db", str(db), "--reference-data", str(data_dir()), *args]
    if port is None:
        command += ["--host", "127.0.0.1", "--port", "0"]
    with open(log, "w") as err:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        text = log.read_text()
        marker = "http://127.0.0.1:"
        if marker in text:
            printed = int(text.split(marker, 1)[1].split()[0])
            assert port is None or printed == port, text
            return Server(process, printed, log)
        if process.poll() is not None:
            pytest.fail(f"kraken serve exited {process.returncode}: {text}")
        time.sleep(0.05)
    process.kill()
    pytest.fail(f"kraken serve printed no address: {log.read_text()}")


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    """The default server: the legacy service's predefined table, 84 SMs."""
    running = start_server(tmp_path / "kraken.db", [])
    yield running
    running.stop()


def read_profile(profile: Dict[str, Any]) -> Dict[str, Any]:
    """The client's conversions of a profile; raises as the client would on null or a bad type."""
    converted: Dict[str, Any] = {name: float(profile[name]) for name in NUMERIC_PROFILE_FIELDS}
    converted["kernel_type"] = KernelType[profile["kernel_type"]]
    return converted


def test_health_with_and_without_trailing_slash(server: Server) -> None:
    for path in ("/health", "/health/"):
        assert server.get(path)["ok"] is True


@pytest.mark.parametrize("workload", sorted(LEGACY_TABLE))
def test_get_profile_converts_like_the_client(server: Server, workload: str) -> None:
    answer = server.get(f"/profile/{workload}")
    assert answer["ok"] is True and answer["workload"] == workload
    profile = read_profile(answer["profile"])
    kernel_type, intensity = LEGACY_TABLE[workload]
    assert profile["kernel_type"] is KernelType[kernel_type]
    assert profile["arithmetic_intensity"] == intensity
    assert answer["profile"]["source"] == "default" and answer["profile"]["measured"] is False
    assert "legacy table" in answer["profile"]["data_source"]
    assert abs(profile["compute_ratio"] + profile["memory_ratio"] + profile["mixed_ratio"] - 1.0) < 1e-9


def test_get_all_profiles_converts_every_profile(server: Server) -> None:
    for path in ("/profiles", "/profiles/"):
        answer = server.get(path)
        assert answer["count"] == len(answer["profiles"]) == 5
        converted = {workload: read_profile(profile) for workload, profile in answer["profiles"].items()}
        assert {w: (p["kernel_type"].name, p["arithmetic_intensity"]) for w, p in converted.items()} == LEGACY_TABLE


def test_unknown_profile_is_a_404_with_ok_false(server: Server) -> None:
    with pytest.raises(urllib.error.HTTPError) as raised:
        server.get("/profile/not-registered")
    assert raised.value.code == 404
    assert json.loads(raised.value.read().decode("utf-8"))["ok"] is False


def test_request_profile_of_a_known_and_an_unknown_model(server: Server) -> None:
    known = server.post("/profile", {"workload_id": "job-1", "model": "resnet50"})
    assert known["note"] == "Used pre-defined profile"
    assert read_profile(known["profile"])["arithmetic_intensity"] == 85.0
    unknown = server.post("/profile", {"workload_id": "job-2", "model": "llama-70b"})
    converted = read_profile(unknown["profile"])
    assert converted["kernel_type"] is KernelType.UNKNOWN and converted["arithmetic_intensity"] == 0.0
    assert read_profile(server.get("/profile/job-1")["profile"])["kernel_type"] is KernelType.COMPUTE_BOUND


def test_register_without_ratios_gets_the_legacy_defaults(server: Server) -> None:
    answer = server.post("/register/", {"workload_id": "etl", "kernel_type": "MEMORY_BOUND",
                                        "arithmetic_intensity": 4.0, "description": "scan"})
    profile = read_profile(answer["profile"])
    assert (profile["compute_ratio"], profile["memory_ratio"], profile["mixed_ratio"]) == (0.33, 0.33, 0.34)
    assert profile["kernel_type"] is KernelType.MEMORY_BOUND and profile["arithmetic_intensity"] == 4.0


def setup_colocation(server: Server, a: str, b: str) -> Dict[str, Any]:
    """The client's co-location setup: both profiles, then the pair; every read it makes."""
    profiles = {w: read_profile(server.get(f"/profile/{w}")["profile"]) for w in (a, b) if w in LEGACY_TABLE}
    result = server.get(f"/colocation?a={a}&b={b}")
    return {
        "profiles": profiles,
        "type_a": KernelType[result["workload_a"]["type"]],
        "type_b": KernelType[result["workload_b"]["type"]],
        "score": float(result["colocation_score"]),
        "recommendation": result["recommendation"],
        "sms_a": int(result["sm_partition"]["workload_a"]),
        "sms_b": int(result["sm_partition"]["workload_b"]),
    }


def test_integration_resnet_and_bert_share_a_gpu(server: Server) -> None:
    setup = setup_colocation(server, "resnet50", "bert")
    assert setup["type_a"] is KernelType.COMPUTE_BOUND
    assert setup["type_b"] is KernelType.MIXED
    assert setup["sms_a"] > setup["sms_b"], setup  # ResNet-50 gets more SMs than BERT
    assert setup["sms_a"] + setup["sms_b"] == 84  # the legacy service's sm_86 GPU
    assert (setup["sms_a"], setup["sms_b"]) == (50, 34)  # 84 x 0.825 / 1.375, docs/api.md
    assert 0.0 <= setup["score"] <= 1.0 and setup["recommendation"] in ("good", "moderate", "poor")


def test_integration_unknown_workload_is_unknown(server: Server) -> None:
    setup = setup_colocation(server, "resnet50", "never-registered")
    assert setup["type_a"] is KernelType.COMPUTE_BOUND
    assert setup["type_b"] is KernelType.UNKNOWN
    assert setup["score"] == 0.5
    assert (setup["sms_a"], setup["sms_b"]) == (42, 42)


def test_registered_profiles_outlive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "kraken.db"
    first = start_server(db, [])
    first.post("/register", {"workload_id": "nightly-etl", "kernel_type": "MEMORY_BOUND", "arithmetic_intensity": 3})
    first.stop()
    second = start_server(db, [])
    try:
        profile = read_profile(second.get("/profile/nightly-etl")["profile"])
        assert profile["kernel_type"] is KernelType.MEMORY_BOUND and profile["arithmetic_intensity"] == 3.0
    finally:
        second.stop()


def test_measured_set_and_legacy_sms(tmp_path: Path) -> None:
    measured = start_server(tmp_path / "kraken.db", ["--legacy-profiles", "measured", "--legacy-sms", "108"])
    try:
        answer = measured.get("/profile/resnet50")["profile"]
        assert answer["measured"] is True and answer["source"] == "measured"
        assert read_profile(answer)["arithmetic_intensity"] == 85.0  # Orion's list has no FLOP counts
        result = measured.get("/colocation?a=resnet50&b=bert")
        assert result["sm_partition"]["workload_a"] + result["sm_partition"]["workload_b"] == 108
        assert KernelType[result["workload_b"]["type"]] is KernelType.COMPUTE_BOUND  # Orion's measured BERT
    finally:
        measured.stop()


def test_profiler_host_and_port_are_honoured(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("KRAKEN_HOST", "KRAKEN_PORT")}
    port = free_port()
    env.update({"PROFILER_HOST": "127.0.0.1", "PROFILER_PORT": str(port)})
    running = start_server(tmp_path / "kraken.db", [], env=env, port=port)
    try:
        assert running.base.endswith(f":{port}")
        assert running.get("/health")["ok"] is True
    finally:
        running.stop()

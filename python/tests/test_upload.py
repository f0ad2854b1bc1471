"""WorkloadProfiler sessions travel to the central API (docs/upload.md) through the C API
path: the real ``kraken serve`` on loopback, down while the first session stops (its
profile waits in the spool), back for the second (both land, once each)."""
from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import List

import pytest

import kraken
from conftest import KRAKEN_BINARY


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_api(tmp_path: Path, port: int) -> subprocess.Popen:
    """``kraken serve`` with a token on `port`; returns once it listens."""
    log = open(tmp_path / f"serve-{time.monotonic_ns()}.log", "w")
    server = subprocess.Popen([str(KRAKEN_BINARY), "serve", "--host", "127.0.0.1", "--port", str(port), "--db",
                               str(tmp_path / "api.db"), "--token-file", str(tmp_path / "token")],
                              stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    pytest.fail("kraken serve did not listen")


def stored_sources(port: int) -> List[str]:
    """The sources of the profiles the API holds."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/profiles") as answer:
        return sorted(p["source"] for p in json.load(answer)["profiles"])


def test_sessions_upload_through_the_spool_when_the_api_comes_back(replay, tmp_path: Path) -> None:
    replay("h100.nvml", "")
    (tmp_path / "token").write_text("py-upload-token\n")
    port = free_port()
    spool = tmp_path / "spool"
    options = dict(sampling_interval=20, store=False, max_samples=3, upload_to=f"http://127.0.0.1:{port}",
                   token_file=tmp_path / "token", upload_spool=spool, upload_retry_for="0s")

    with kraken.WorkloadProfiler("while-down", **options):  # nobody listens yet
        time.sleep(0.1)
    assert len(list(spool.glob("*.upload"))) == 1

    server = start_api(tmp_path, port)
    try:
        with kraken.WorkloadProfiler("when-back", **options):
            time.sleep(0.1)
        assert list(spool.glob("*.upload")) == []
        assert stored_sources(port) == ["when-back", "while-down"]
    finally:
        server.kill()
        server.wait()


def test_a_bad_upload_url_fails_at_start(replay, tmp_path: Path) -> None:
    replay("h100.nvml", "")
    with pytest.raises(kraken.KrakenError) as error:
        kraken.WorkloadProfiler("x", store=False, upload_to="ftp://nowhere").start()
    assert "ftp://nowhere" in str(error.value)

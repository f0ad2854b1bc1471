#!/usr/bin/env python3
"""The scheduler extender on a large cluster (issue 15 target: 5,000 nodes filtered and
prioritized in < 200 ms each, RSS < 200 MB). Prints figures; never fails on time.

    python3 bench/extender_bench.py build/src/cli/kraken [NODES ...]   (default 5000 20000)

Starts the real `kraken extender` on a free loopback port and POSTs one pending pod with a
kraken.io/demand annotation and NODES A100 nodes (8 GPUs, 2 MPS replicas, one resident
each) to /filter and /prioritize, as kube-scheduler would. The time is the whole HTTP
round trip seen by the client; RSS is the extender's peak (VmHWM) after each request. A
request over the extender's node limit (15,000) shows how fast it is refused.
"""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any, Dict

DEMAND = "v1;type=training;busy=0.500;sm=0.450;dram=0.150;mem-gib=10.0"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pending_pod() -> Dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "bert-ft", "namespace": "ml", "annotations": {"kraken.io/demand": DEMAND}},
            "spec": {"containers": [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
            "status": {"phase": "Pending"}}


def gpu_node(i: int) -> Dict[str, Any]:
    resident = f"v1;pod=ml/etl-{i};gpu=0;type=training;busy=0.600;sm=0.300;dram=0.550;mem-gib=8.0"
    labels = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.count": "8",
              "nvidia.com/gpu.replicas": "2", "nvidia.com/gpu.sharing-strategy": "mps",
              "kubernetes.io/hostname": f"gpu-{i}"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"gpu-{i}", "labels": labels, "annotations": {"kraken.io/resident-demand": resident}},
            "status": {"capacity": {"cpu": "64", "nvidia.com/gpu": "16"},
                       "allocatable": {"cpu": "63", "nvidia.com/gpu": "16"}}}


def peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    return float("nan")


def post(url: str, body: bytes) -> int:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def main() -> None:
    kraken = sys.argv[1] if len(sys.argv) > 1 else "build/src/cli/kraken"
    sizes = [int(n) for n in sys.argv[2:]] or [5000, 20000]
    port = free_port()
    extender = subprocess.Popen([kraken, "extender", "--listen", f"127.0.0.1:{port}", "--prefix", "/kraken"],
                                stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        for n in sizes:
            body = json.dumps({"pod": pending_pod(), "nodes": {"items": [gpu_node(i) for i in range(n)]}}).encode()
            for verb in ("filter", "prioritize"):
                start = time.monotonic()
                status = post(f"http://127.0.0.1:{port}/kraken/{verb}", body)
                elapsed_ms = (time.monotonic() - start) * 1000
                print(f"{n} nodes ({len(body) / 1e6:.1f} MB) {verb}: HTTP {status} in {elapsed_ms:.0f} ms, "
                      f"peak RSS {peak_rss_mb(extender.pid):.1f} MB")
    finally:
        extender.terminate()
        extender.wait()


if __name__ == "__main__":
    main()

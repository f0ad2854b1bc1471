"""ClusterAnalyzer against `kraken analyze --prometheus --json`, on a real Prometheus
loaded with a week of history built from the real dcgm-exporter captures (values unchanged,
pods attributed by the test as src/cli/prometheus_cluster_test.cc does)."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterator, Tuple

import pytest

import kraken
from conftest import data_dir, kraken_json
from prometheus_server import PrometheusServer, week_end_s, week_of_history

MIB = 1024.0 * 1024.0


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tuple[PrometheusServer, int]]:
    end = week_end_s()
    server = PrometheusServer(week_of_history(str(data_dir()), end), Path(tmp_path_factory.mktemp("prometheus")))
    try:
        yield server, end
    finally:
        server.close()


def test_utilization_is_the_cli_document_per_pod(prometheus: Tuple[PrometheusServer, int]) -> None:
    server, end = prometheus
    cluster = kraken.ClusterAnalyzer(prometheus=server.url, gpu_model="a100-40gb-sxm")
    usage = cluster.analyze_utilization(timerange="7d", namespace="ml", end=end)
    cli = kraken_json("analyze", "--prometheus", server.url, "--namespace", "ml", "--range", "7d",
                      "--end", str(end), "--gpu-model", "a100-40gb-sxm")
    assert usage.raw == cli
    pods = {p.pod: p for p in usage.pods}
    assert set(pods) == {"trainer-0", "notebook-0", "infer-t4"}
    # The capture's own values: GR engine active 0.995630, FB used 4845 MiB.
    trainer = pods["trainer-0"]
    assert trainer.gpu_busy["p95"] == 0.99563 and trainer.memory_bytes["max"] == 4845 * MIB
    assert trainer.action == "keep"
    assert pods["notebook-0"].mig_profile == "1g.5gb"
    assert pods["infer-t4"].action == "reclaim" and pods["infer-t4"].gpu_model == "t4"
    assert dataclasses.asdict(usage.gpus) == cli["gpus"]
    assert (usage.gpus.now, usage.gpus.saved, usage.gpus.saved_gpu_hours) == (2, 1, 168)


def test_pooling_candidates_are_the_pods_the_analysis_pools(prometheus: Tuple[PrometheusServer, int]) -> None:
    server, end = prometheus
    cluster = kraken.ClusterAnalyzer(prometheus=server.url, gpu_model="a100-40gb-sxm")
    with pytest.raises(ValueError, match="call analyze_utilization"):
        cluster.find_pooling_candidates()
    cluster.analyze_utilization(timerange="7d", namespace="ml", end=end)
    candidates = cluster.find_pooling_candidates(min_savings=0.2, max_perf_impact=0.1)
    assert [(c.pod.pod, c.action, c.gpu_fraction_freed, c.perf_impact) for c in candidates] == \
           [("infer-t4", "reclaim", 1.0, 0.0)]
    # 1 of 2 GPUs saved: asking for more than half frees nothing worth acting on.
    assert cluster.find_pooling_candidates(min_savings=0.6) == []


def test_one_pod_and_an_unreachable_server(prometheus: Tuple[PrometheusServer, int]) -> None:
    server, end = prometheus
    usage = kraken.ClusterAnalyzer(server.url).analyze_utilization("1d", namespace="ray-llm", end=end)
    assert usage.raw == kraken_json("analyze", "--prometheus", server.url, "--namespace", "ray-llm", "--range", "1d",
                                    "--end", str(end))
    assert [p.pod for p in usage.pods] == ["ray-1111111"]
    # The MIG slowdown budget, in % as the CLI flag; the document gives it as a ratio.
    budget = kraken.ClusterAnalyzer(server.url).analyze_utilization("1d", namespace="ray-llm", end=end,
                                                                    max_slowdown=1000)
    assert budget.raw == kraken_json("analyze", "--prometheus", server.url, "--namespace", "ray-llm", "--range", "1d",
                                     "--end", str(end), "--max-slowdown", "1000")
    assert (usage.raw["max_slowdown"], budget.raw["max_slowdown"]) == (0.1, 10)
    with pytest.raises(kraken.KrakenError, match=r"max_slowdown \(--max-slowdown\) must be between 0 and 1000"):
        kraken.ClusterAnalyzer(server.url).analyze_utilization("1d", namespace="ml", max_slowdown=-1)
    with pytest.raises(kraken.UnavailableError, match="127.0.0.1:9"):
        kraken.ClusterAnalyzer("http://127.0.0.1:9", timeout_s=2).analyze_utilization("1d", namespace="ml")
    with pytest.raises(ValueError, match="needs namespace="):
        kraken.ClusterAnalyzer(server.url).analyze_utilization("1d")
    with pytest.raises(FileNotFoundError, match="kubeconfig"):
        kraken.ClusterAnalyzer(server.url, kubeconfig="/nonexistent/kubeconfig")

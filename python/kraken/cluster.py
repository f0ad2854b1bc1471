"""``kraken analyze --prometheus`` from Python: per-pod GPU use from the dcgm-exporter
history a cluster's Prometheus keeps, and the pods whose GPUs could be pooled
(docs/kubernetes.md)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from . import _native
from ._results import build, raw_field

#: Pool actions that free GPU capacity (docs/kubernetes.md, "Pooling candidates").
POOLING_ACTIONS = ("reclaim", "mig-slice", "share")


@dataclass
class PodUsage:
    """One pod's use of one GPU or MIG instance over the range.

    Attributes:
        gpu_busy, sm_active, tensor_active, dram_active, memory_bytes: {"mean", "p95",
            "max", "basis"} (fractions 0..1, bytes), None when the DCGM field is absent.
        compute_p95: the share of the whole GPU's SMs it keeps busy (p95).
        action: "reclaim", "mig-slice", "share", "keep" or "unknown".
        detail: the rule's reason ("idle: busy p95 0.0%, memory 0.0%").
        smaller_gpu: a smaller catalog GPU that would still carry it, or "".
    """

    namespace: str
    pod: str
    node: str
    gpu_uuid: str
    gpu_model: str
    mig_profile: str
    gpu_busy: Optional[Dict[str, Any]]
    sm_active: Optional[Dict[str, Any]]
    tensor_active: Optional[Dict[str, Any]]
    dram_active: Optional[Dict[str, Any]]
    memory_bytes: Optional[Dict[str, Any]]
    samples_span_s: float
    compute_p95: float
    compute_measured: bool
    action: str
    detail: str
    smaller_gpu: str
    raw: Dict[str, Any] = raw_field()


@dataclass
class GpuAccounting:
    """Physical GPUs the pods hold now, reclaimed (idle), after pooling, saved, and the
    saved GPU-hours over the range."""

    now: int
    reclaimed: int
    after: int
    saved: int
    saved_gpu_hours: float


@dataclass
class ClusterUtilization:
    """The document of ``kraken analyze --prometheus URL --json``.

    Attributes:
        source: the query, range, step, windows, series and points read.
        pods: one entry per pod and GPU.
        groups: pods placed together (share) or on one GPU's MIG slices.
        gpus: the GPU accounting.
        assumptions: what the figures assume.
    """

    source: Dict[str, Any]
    pods: List[PodUsage]
    groups: List[Dict[str, Any]]
    gpus: GpuAccounting
    assumptions: List[str]
    raw: Dict[str, Any] = raw_field()


@dataclass
class PoolingCandidate:
    """A pod whose GPU capacity pooling would free.

    ``gpu_fraction_freed``: 1.0 for an idle GPU (reclaim); None for MIG slices and shared
    GPUs, whose freed share the cluster analysis reports only for the cluster as a whole
    (``ClusterUtilization.gpus``). ``perf_impact``: 0.0 for an idle GPU; None otherwise,
    the cluster analysis does not predict interference (check with InterferencePredictor
    on the pods' profiles before acting)."""

    pod: PodUsage
    action: str
    gpu_fraction_freed: Optional[float]
    perf_impact: Optional[float]


class ClusterAnalyzer:
    """Reads a cluster's DCGM history from Prometheus.

    Example::

        cluster = ClusterAnalyzer(prometheus="http://prometheus.monitoring:9090")
        usage = cluster.analyze_utilization(timerange="7d", namespace="ml")
        for c in cluster.find_pooling_candidates(min_savings=0.2, max_perf_impact=0.1):
            print(c.pod.pod, c.action, c.pod.detail)
    """

    def __init__(self, prometheus: str, kubeconfig: Optional[str] = None, *, gpu_model: Optional[str] = None,
                 timeout_s: Optional[float] = None) -> None:
        """Args:
            prometheus: the server, ``http(s)://HOST:PORT[/PREFIX]``.
            kubeconfig: a kubeconfig file for annotations (kept for ``kraken annotate``;
                the analyses here only read Prometheus). It must exist.
            gpu_model: catalog id for GPUs whose series carry no modelName.
            timeout_s: per HTTP request (default 60).
        """
        if kubeconfig is not None and not os.path.isfile(os.fspath(kubeconfig)):
            raise FileNotFoundError(f"kubeconfig: {os.fspath(kubeconfig)}: no such file")
        self.prometheus = prometheus
        self.kubeconfig = None if kubeconfig is None else os.fspath(kubeconfig)
        self.gpu_model = gpu_model
        self.timeout_s = timeout_s
        self._last: Optional[ClusterUtilization] = None

    def analyze_utilization(self, timerange: str = "7d", namespace: Optional[str] = None, *,
                            pod: Optional[str] = None, step: Optional[str] = None,
                            end: Optional[int] = None, max_slowdown: Optional[float] = None,
                            explain: bool = False) -> ClusterUtilization:
        """Per-pod GPU use and pooling actions of one namespace.

        Args:
            timerange: how far back, a Prometheus duration ("7d", "36h").
            namespace: the Kubernetes namespace (required).
            pod: one pod only.
            step: query resolution ("60s"; default auto).
            end: end of the range, Unix seconds (default now).
            max_slowdown: expected slowdown in % a recommended MIG slice may cost (0-1000,
                default 10; ``kraken analyze --prometheus --max-slowdown``).
            explain: per-pod inputs and rule terms in ``raw``.

        Raises:
            ValueError: no namespace.
            KrakenError: the library's message (an unreachable server is an UnavailableError).
        """
        if not namespace:
            raise ValueError("analyze_utilization needs namespace= (the Kubernetes namespace of the pods)")
        options = {"namespace": namespace, "pod": pod, "range": timerange, "step": step, "end": end,
                   "gpu_model": self.gpu_model, "timeout": self.timeout_s, "max_slowdown": max_slowdown,
                   "explain": explain or None}
        doc = _native.load_json(_native.library().call_one("kraken_cluster_analyze", self.prometheus, options))
        self._last = build(ClusterUtilization, doc, pods=[build(PodUsage, p) for p in doc.get("pods") or []],
                           groups=list(doc.get("groups") or []), gpus=build(GpuAccounting, doc.get("gpus")),
                           assumptions=list(doc.get("assumptions") or []))
        return self._last

    def find_pooling_candidates(self, min_savings: float = 0.2, max_perf_impact: float = 0.1, *,
                                usage: Optional[ClusterUtilization] = None) -> List[PoolingCandidate]:
        """The pods whose GPUs pooling would free, from the last :meth:`analyze_utilization`
        (or `usage`).

        Args:
            min_savings: the share of the GPUs held now that pooling must free
                (``gpus.saved / gpus.now`` of the analysis) for any candidate to be
                returned: below it the list is empty.
            max_perf_impact: a candidate whose predicted slowdown (fraction) is above it
                is left out; candidates without a prediction (MIG slices, shared GPUs) are
                kept with ``perf_impact`` None.

        Raises:
            ValueError: no analysis to read (call analyze_utilization first), or a
                threshold out of range.
        """
        if not 0 <= min_savings <= 1:
            raise ValueError(f"min_savings must be in [0, 1], got {min_savings}")
        if max_perf_impact < 0:
            raise ValueError(f"max_perf_impact must be >= 0, got {max_perf_impact}")
        usage = usage or self._last
        if usage is None:
            raise ValueError("no cluster analysis yet: call analyze_utilization(timerange=..., namespace=...) first")
        gpus = usage.gpus
        if gpus.now == 0 or gpus.saved / gpus.now < min_savings:
            return []
        candidates: List[PoolingCandidate] = []
        for pod in usage.pods:
            if pod.action not in POOLING_ACTIONS:
                continue
            idle = pod.action == "reclaim"
            impact = 0.0 if idle else None
            if impact is not None and impact > max_perf_impact:
                continue
            candidates.append(PoolingCandidate(pod=pod, action=pod.action, gpu_fraction_freed=1.0 if idle else None,
                                               perf_impact=impact))
        return candidates

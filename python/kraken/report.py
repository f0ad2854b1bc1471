"""The result of a :class:`~kraken.WorkloadProfiler` run: the run summary (``kraken profile
--json``), the analysis of the recorded profile (``kraken analyze --json``), the HTML/JSON
report and the follow-up analyses."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _native
from ._results import build, build_optional, raw_field
from .analysis import Analysis, Diagnosis, analysis_from_document, analyze_options
from .disagg import DisaggregationResult, disagg_document, result_from_entry
from .temporal import TemporalAnalysis, analyze_temporal

#: Which sampled series (kraken metric names, src/model/metrics.h) each profiler metric
#: names; Report.metric_summaries groups the analysis' series summaries by them.
METRIC_SERIES: Dict[str, Sequence[str]] = {
    "gpu_util": ("gpu_util_pct", "mem_copy_util_pct", "process_sm_util_pct", "process_mem_util_pct",
                 "gr_engine_active_ratio", "sm_active_ratio", "sm_occupancy_ratio", "tensor_active_ratio",
                 "dram_active_ratio", "encoder_util_pct", "decoder_util_pct"),
    "memory": ("fb_used_bytes", "fb_free_bytes", "fb_total_bytes", "fb_reserved_bytes", "process_used_memory_bytes",
               "allocator_allocated_bytes", "allocator_reserved_bytes", "cuda_allocated_bytes"),
    "pcie_bw": ("pcie_tx_bytes_per_s", "pcie_rx_bytes_per_s", "pcie_replay_count"),
    "nvlink": ("nvlink_tx_bytes_per_s", "nvlink_rx_bytes_per_s"),
    "power": ("power_w", "power_limit_w", "energy_mj", "gpu_temp_c", "mem_temp_c"),
    "clocks": ("sm_clock_mhz", "mem_clock_mhz"),
}


@dataclass
class UtilizationStats:
    """Percentiles of a utilization over every pass (percent)."""

    samples: int
    p50: float
    p90: float
    p99: float
    mean: float
    max: float


@dataclass
class GpuUsage:
    """One GPU the profiled processes used (``gpus[]`` of ``kraken profile --json``).
    Utilizations are None where NVML does not report them (MIG)."""

    index: int
    name: str
    mig_gpu_instances: List[int]
    passes_present: int
    passes_shared: int
    tree_sm_util_pct: Optional[UtilizationStats]
    device_util_pct: Optional[UtilizationStats]
    tree_memory_peak_bytes: float


@dataclass
class IdleGaps:
    """Runs of passes in which the profiled processes kept no GPU busy."""

    known: bool
    basis: str
    count: int
    longest_passes: int
    total_passes: int
    longest_s: float
    total_s: float


@dataclass
class ProfileSummary:
    """The run summary of a profiling session: the document of ``kraken profile --json``
    (docs/profile.md), key for key."""

    command: List[str]
    attached_pid: Optional[int]
    exit_code: Optional[int]
    stop_reason: str
    passes: int
    interval_s: float
    tree_pids: List[int]
    workload_type: Dict[str, Any]
    bound: Dict[str, Any]
    gpus: List[GpuUsage]
    memory_peak_bytes: float
    idle_gaps: IdleGaps
    periodicity: Dict[str, Any]
    stored: Dict[str, Any]
    raw: Dict[str, Any] = raw_field()


def summary_from_document(doc: Dict[str, Any]) -> ProfileSummary:
    """A :class:`ProfileSummary` from the session's stop document."""
    gpus = [build(GpuUsage, g, tree_sm_util_pct=build_optional(UtilizationStats, g.get("tree_sm_util_pct")),
                  device_util_pct=build_optional(UtilizationStats, g.get("device_util_pct")))
            for g in doc.get("gpus") or []]
    return build(ProfileSummary, doc, gpus=gpus, idle_gaps=build(IdleGaps, doc.get("idle_gaps")))


class Report:
    """What :meth:`WorkloadProfiler.get_report` returns.

    Attributes:
        workload_name: the profiler's name.
        profile: the run summary (GPUs used, utilization percentiles, memory peak, idle
            gaps).
        analysis: ``kraken analyze --json`` of the recorded profile (and kernel trace).
        kernel_timeline: what recorded kernels ("torch.profiler", "cupti"), or None.
        inputs: what the analyses read: the stored profile id (in store ``db``) or, when
            the run was not stored, its file; then any kernel trace file.
        db: the store of a stored run.
        metrics: the profiler's metric names.
    """

    def __init__(self, workload_name: str, summary: ProfileSummary, inputs: Sequence[str], *,
                 metrics: Sequence[str], device: Optional[str], kernel_timeline: Optional[str],
                 db: Optional[str] = None, workspace: Any = None) -> None:
        self.workload_name = workload_name
        self.profile = summary
        self.inputs = list(inputs)
        self.db = db
        self.metrics = list(metrics)
        self.device = device
        self.kernel_timeline = kernel_timeline
        # Keeps the temporary folder holding the inputs alive as long as the report.
        self._workspace = workspace
        text = _native.library().call_inputs("kraken_analyze", self.inputs, analyze_options(device=device, db=db))
        self.analysis: Analysis = analysis_from_document(_native.load_json(text))

    def kraken_inputs(self) -> List[str]:
        """The report's inputs, so a Report is accepted wherever inputs are."""
        return list(self.inputs)

    def kraken_db(self) -> Optional[str]:
        """The store a stored run's id is read from."""
        return self.db

    @property
    def diagnoses(self) -> List[Diagnosis]:
        """Every diagnosis of the analysis, most severe first."""
        return self.analysis.diagnoses

    @property
    def metric_summaries(self) -> Dict[str, List[Dict[str, Any]]]:
        """The analysis' series summaries (metric, entity, samples, mean, p50, p95, max)
        grouped by the profiler metric that names them, for the requested metrics."""
        groups: Dict[str, List[Dict[str, Any]]] = {m: [] for m in self.metrics if m in METRIC_SERIES}
        for rank in self.analysis.ranks:
            for summary in rank.raw.get("series") or []:
                for group in groups:
                    if summary.get("metric") in METRIC_SERIES[group]:
                        groups[group].append(summary)
        return groups

    def to_dict(self) -> Dict[str, Any]:
        """The report as one JSON-ready dict: the run summary and the analysis documents
        exactly as the library returned them."""
        return {"workload_name": self.workload_name, "metrics": self.metrics, "kernel_timeline": self.kernel_timeline,
                "inputs": self.inputs, "profile": self.profile.raw, "analysis": self.analysis.raw}

    def summary(self) -> str:
        """The readable analysis (``kraken analyze`` text) of the recorded profile."""
        return _native.library().call_inputs("kraken_analyze", self.inputs,
                                             dict(analyze_options(device=self.device, db=self.db), output="text"))

    def html(self, gpu_hour_cost: Optional[float] = None, max_slowdown: Optional[float] = None) -> str:
        """The self-contained HTML page of ``kraken report`` for the recorded profile.

        Args:
            gpu_hour_cost: $ per GPU-hour for the cost figures (``--gpu-hour-cost``).
            max_slowdown: expected slowdown in % a recommended MIG slice may cost in the
                disaggregation section (``--max-slowdown``; the library's default 10).
        """
        options = {"device": self.device, "gpu_hour_cost": gpu_hour_cost, "title": self.workload_name,
                   "db": self.db, "max_slowdown": max_slowdown}
        return _native.library().call_inputs("kraken_report", self.inputs, options)

    def save(self, path: Union[str, "os.PathLike[str]"], gpu_hour_cost: Optional[float] = None,
             max_slowdown: Optional[float] = None) -> str:
        """Writes the report: HTML for a ``.html``/``.htm`` path (``kraken report``, with
        :meth:`html`'s options), JSON for ``.json`` (:meth:`to_dict`). Written atomically (a temp file renamed), so a
        failure leaves no partial file. Returns the path.

        Raises:
            ValueError: another suffix.
        """
        path = os.fspath(path)
        suffix = os.path.splitext(path)[1].lower()
        if suffix in (".html", ".htm"):
            content = self.html(gpu_hour_cost, max_slowdown)
        elif suffix == ".json":
            content = json.dumps(self.to_dict(), indent=2) + "\n"
        else:
            raise ValueError(f"{path}: Report.save writes .html or .json, not {suffix or 'a file without suffix'!r}")
        folder = os.path.dirname(os.path.abspath(path))
        fd, temp = tempfile.mkstemp(prefix=".kraken-report-", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(content)
            os.replace(temp, path)
        except BaseException:
            if os.path.exists(temp):
                os.unlink(temp)
            raise
        return path

    def analyze_disaggregation_potential(self, *, links: Optional[Sequence[str]] = None,
                                         price: Optional[float] = None,
                                         max_slowdown: Optional[float] = None) -> List[DisaggregationResult]:
        """``kraken disagg`` of the recorded profile: one result per GPU it used (and per
        rank of a kernel trace). ``max_slowdown``: the expected slowdown in % a MIG slice
        may cost (``--max-slowdown``)."""
        doc = disagg_document(self.inputs, links, price, db=self.db, max_slowdown=max_slowdown)
        return [result_from_entry(entry) for entry in doc.get("workloads") or []]

    def analyze_temporal_patterns(self, *, series: Optional[Sequence[str]] = None,
                                  horizon: Optional[str] = None) -> TemporalAnalysis:
        """``kraken temporal`` of the recorded profile's series: periodicity, peak and
        idle phases."""
        return analyze_temporal(self.inputs[:1], series=series, horizon=horizon, db=self.db)

    def __repr__(self) -> str:
        return (f"<kraken.Report {self.workload_name!r}: {len(self.profile.gpus)} GPU(s), "
                f"{self.profile.passes} passes, {len(self.diagnoses)} diagnoses>")


__all__ = ["Report", "ProfileSummary", "GpuUsage", "IdleGaps", "UtilizationStats", "METRIC_SERIES",
           "summary_from_document"]

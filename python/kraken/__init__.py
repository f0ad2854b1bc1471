"""kraken: what GPU workloads really use, and what to do about it.

This package is the Python face of kraken's C library, libkraken.so (loaded with ctypes on
first use; no compiler, any CPython >= 3.8). Every result holds exactly the figures of the
``kraken`` command's ``--json`` output for the same inputs and settings.

Profile a block of code::

    from kraken import WorkloadProfiler
    profiler = WorkloadProfiler(workload_name="bert-training", sampling_interval=100,  # ms
                                metrics=["gpu_util", "memory", "kernel_timeline", "pcie_bw"])
    with profiler:
        model.train()
    report = profiler.get_report()
    report.save("profile_report.html")

Analyse what other tools recorded (PyTorch/Kineto traces, Nsight Compute CSV, nvidia-smi
logs, dcgm-exporter scrapes) or a stored profile id:

- :func:`analyze` / :class:`PerformanceTroubleshooter`: characterization and diagnoses.
- :class:`DisaggregationAnalyzer`: score, strategy, performance impact, savings.
- :class:`InterferencePredictor`, :class:`ColocationOptimizer`: sharing a GPU.
- :func:`analyze_temporal`: periodicity and forecasts of utilization series.
- :class:`ClusterAnalyzer`: per-pod use and pooling candidates from Prometheus.
- :class:`MultiTenancyPlanner`: tenants' workloads on GPUs with their SLAs checked.
- :class:`Profile`, :func:`list_profiles`, :func:`import_files`: the profile store.

Errors from the library are :class:`KrakenError` subclasses carrying its message.
The library is found through ``KRAKEN_LIBRARY``, else beside this package, else the system
loader (libkraken.so.0). docs/python.md documents the API.
"""
from __future__ import annotations

from ._version import __version__
from .analysis import Analysis, Diagnosis, PerformanceTroubleshooter, RankAnalysis, Timeline, analyze, analyze_text
from .cluster import ClusterAnalyzer, ClusterUtilization, GpuAccounting, PodUsage, PoolingCandidate
from .colocation import (ColocationOptimizer, GpuAssignment, InterferencePrediction, InterferencePredictor,
                         LatencyPrediction, Placement, Prediction, SharingMode)
from .disagg import (DisaggregationAnalyzer, DisaggregationResult, LinkModel, PerfImpact, Savings, ScorePart,
                     Strategy)
from .errors import (AbiVersionError, InternalError, InvalidArgumentError, InvalidInputError, KrakenError,
                     KrakenIOError, LibraryNotFoundError, NotFoundError, UnavailableError, UnsupportedError)
from .kernel_timeline import KernelTimelineWarning
from .profile import ImportResult, Profile, Series, StoredProfile, import_files, list_profiles
from .profiler import VALID_METRICS, WorkloadProfiler
from .report import GpuUsage, IdleGaps, ProfileSummary, Report, UtilizationStats
from .temporal import Periodicity, TemporalAnalysis, TemporalSeries, analyze_temporal
from .tenants import GpuAllocation, MultiTenancyPlanner, TenantPlan, WorkloadAllocation, plan_tenants
from .trace_diff import diff


def library_version() -> str:
    """The release of the loaded libkraken.so (loads it)."""
    from . import _native
    return _native.library().version()


def library_path() -> str:
    """Where the loaded libkraken.so came from (loads it)."""
    from . import _native
    return _native.library().path


__all__ = [
    "__version__", "library_version", "library_path",
    "WorkloadProfiler", "VALID_METRICS", "Report", "ProfileSummary", "GpuUsage", "IdleGaps", "UtilizationStats",
    "KernelTimelineWarning",
    "analyze", "analyze_text", "Analysis", "RankAnalysis", "Timeline", "Diagnosis", "PerformanceTroubleshooter",
    "DisaggregationAnalyzer", "DisaggregationResult", "ScorePart", "Strategy", "PerfImpact", "Savings", "LinkModel",
    "InterferencePredictor", "InterferencePrediction", "ColocationOptimizer", "Placement", "GpuAssignment",
    "SharingMode", "Prediction", "LatencyPrediction",
    "analyze_temporal", "TemporalAnalysis", "TemporalSeries", "Periodicity",
    "diff",
    "ClusterAnalyzer", "ClusterUtilization", "PodUsage", "GpuAccounting", "PoolingCandidate",
    "MultiTenancyPlanner", "TenantPlan", "GpuAllocation", "WorkloadAllocation", "plan_tenants",
    "Profile", "Series", "StoredProfile", "ImportResult", "list_profiles", "import_files",
    "KrakenError", "InvalidInputError", "NotFoundError", "KrakenIOError", "UnsupportedError", "UnavailableError",
    "InternalError", "InvalidArgumentError", "LibraryNotFoundError", "AbiVersionError",
]

"""``kraken analyze`` from Python: characterize traces, captures and stored profiles, and
the diagnoses behind :class:`PerformanceTroubleshooter`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _native
from ._inputs import InputLike, inputs_and_db, path_option
from ._results import build, build_list, build_optional, raw_field


@dataclass
class Timeline:
    """Where the GPU time went in a window (``timeline`` in ``kraken analyze --json``).
    Times in microseconds."""

    start_us: float
    total_us: float
    busy_us: float
    idle_us: float
    idle_pct: float
    compute_us: float
    comm_us: float
    exposed_comm_us: float
    memcpy_us: float
    exposed_memcpy_us: float
    gpu_events: int


@dataclass
class Diagnosis:
    """One plain-language finding with the figures behind it (docs/analysis.md).

    Attributes:
        id: a stable identifier ("gpu_idle", "host_to_device_copies", ...).
        severity: "high", "medium" or "low".
        source: the input it is about.
        rank: the trace's rank, or None.
        summary: one sentence.
        evidence: the figures the rule read, by name.
        recommendation: what to change.
    """

    id: str
    severity: str
    source: Optional[str]
    rank: Optional[int]
    summary: str
    evidence: Dict[str, Any]
    recommendation: str


@dataclass
class RankAnalysis:
    """One input profile (a rank of a trace, a capture, a stored profile) characterized.

    ``timeline`` is None for sampled inputs (NVML, nvidia-smi, DCGM), which have no kernel
    timeline; ``raw`` holds every other key of the rank (streams, steps, launch, memory,
    kernels, series, import_counters).
    """

    source: str
    format: str
    rank: Optional[int]
    world_size: Optional[int]
    vendor: str
    device: Optional[Dict[str, Any]]
    window: str
    timeline: Optional[Timeline]
    step_time: Optional[Dict[str, Any]]
    workload: Optional[Dict[str, Any]]
    diagnoses: List[Diagnosis]
    raw: Dict[str, Any] = raw_field()


@dataclass
class Analysis:
    """The document of ``kraken analyze INPUT... --json`` (docs/json-output.md).

    Attributes:
        ranks: one entry per input profile.
        workload: the combined workload type and bound ("type", "confidence", "bound",
            "bound_mix", "profiles").
        kernels: kernel count, total time and the top kernels.
        diagnoses: every diagnosis, most severe first.
        raw: the whole document.
    """

    kraken_version: str
    ranks: List[RankAnalysis]
    workload: Dict[str, Any]
    kernels: Dict[str, Any]
    diagnoses: List[Diagnosis]
    raw: Dict[str, Any] = raw_field()

    def to_dict(self) -> Dict[str, Any]:
        """The document exactly as the library returned it."""
        return self.raw


def _rank(doc: Dict[str, Any]) -> RankAnalysis:
    diagnoses = [build(Diagnosis, dict(d, source=doc.get("source"), rank=doc.get("rank")))
                 for d in doc.get("diagnoses") or []]
    return build(RankAnalysis, doc, timeline=build_optional(Timeline, doc.get("timeline")), diagnoses=diagnoses)


def analysis_from_document(doc: Dict[str, Any]) -> Analysis:
    """An :class:`Analysis` from a ``kraken analyze --json`` document."""
    return build(Analysis, doc, ranks=[_rank(r) for r in doc.get("ranks") or []],
                 diagnoses=build_list(Diagnosis, doc.get("diagnoses")))


def analyze_options(device: Optional[str] = None, window: Optional[str] = None,
                    thresholds: Optional[str] = None, top: Optional[int] = None,
                    format: Optional[str] = None, db: Any = None) -> Dict[str, Any]:
    """The option object of kraken_analyze (keys mirror ``kraken analyze``'s flags)."""
    return {"device": device, "window": window, "thresholds": thresholds, "top": top, "format": format,
            "db": path_option(db)}


def analyze(inputs: Union[InputLike, Iterable[InputLike]], *, device: Optional[str] = None,
            window: Optional[str] = None, thresholds: Optional[str] = None, top: Optional[int] = None,
            format: Optional[str] = None, db: Any = None) -> Analysis:
    """Characterize traces, captures or stored profiles: ``kraken analyze INPUT... --json``.

    Args:
        inputs: one path or stored profile id, or a list (a trace gives one rank per rank).
        device: catalog device for the roofline (``kraken devices``); default: the one the
            input ran on.
        window: "trace" or "steps" (the headline timeline over the ProfilerSteps).
        thresholds: the fixed arithmetic-intensity scheme "10,50" of older tools.
        top: how many kernels to list.
        format: force an importer (``kraken formats``) instead of sniffing.
        db: the profile store stored ids are read from (default: the CLI's).

    Raises:
        KrakenError: the library's message, e.g. naming the file and byte of a bad input.
    """
    strings, db = inputs_and_db(inputs, db, "inputs")
    text = _native.library().call_inputs("kraken_analyze", strings,
                                          analyze_options(device, window, thresholds, top, format, db))
    return analysis_from_document(_native.load_json(text))


def analyze_text(inputs: Union[InputLike, Iterable[InputLike]], **options: Any) -> str:
    """The readable report of ``kraken analyze INPUT...`` (same options as :func:`analyze`)."""
    strings, options["db"] = inputs_and_db(inputs, options.get("db"), "inputs")
    return _native.library().call_inputs("kraken_analyze", strings, dict(analyze_options(**options), output="text"))


class PerformanceTroubleshooter:
    """Diagnoses a profile: what holds it back and what to change.

    Example::

        for d in PerformanceTroubleshooter(profile="trace.json.gz").diagnose():
            print(d.severity, d.summary, d.recommendation)
    """

    def __init__(self, profile: Union[InputLike, Iterable[InputLike]], *, device: Optional[str] = None,
                 db: Any = None) -> None:
        """Args:
            profile: a trace or capture path, a stored profile id, a :class:`~kraken.Profile`
                or :class:`~kraken.Report`, or a list of them.
            device: catalog device for the roofline (default: the one the input ran on).
            db: the store that ids are read from.
        """
        self.inputs, self.db = inputs_and_db(profile, db, "profile")
        self.device = device

    def diagnose(self) -> List[Diagnosis]:
        """Every diagnosis of ``kraken analyze --json`` for the profile, most severe first
        (empty when nothing is wrong)."""
        return analyze(self.inputs, device=self.device, db=self.db).diagnoses

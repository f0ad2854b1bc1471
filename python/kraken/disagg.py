"""``kraken disagg`` from Python: how well a workload would run on disaggregated, pooled or
shared GPUs, the strategy that suits it, its slowdown and what it frees
(docs/disaggregation.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from . import _native
from ._inputs import InputLike, inputs_and_db, path_option
from ._results import build, build_list, raw_field


@dataclass
class ScorePart:
    """One part of the score (decoupling, network or temporal). ``measured`` False: it
    could not be measured and is left out of the score. ``raw`` has the part's own
    figures (imbalance, correlation, cv, burst_ratio, periodicity, period_s)."""

    measured: bool
    value: float
    raw: Dict[str, Any] = raw_field()


@dataclass
class Strategy:
    """The recommended sharing strategy: "dedicated", "remote-pool friendly", "MIG slice",
    "MPS share", ... with the rule's reason and, for a MIG slice, its profile; and the
    expected slowdown a MIG slice was allowed to cost (``mig_max_slowdown``, a fraction)."""

    name: str
    reason: str
    mig_profile: str
    mig_max_slowdown: Optional[float] = None

    def __str__(self) -> str:
        return self.name


@dataclass
class PerfImpact:
    """Expected slowdown under the strategy as a fraction (0.05 = 5 % slower), with its
    range ``lo``..``hi``."""

    expected: float
    lo: float
    hi: float


@dataclass
class Savings:
    """What the strategy frees at ``price_per_gpu_hour`` (US$), low and high ends."""

    price_per_gpu_hour: float
    gpu_fraction_lo: float
    gpu_fraction_hi: float
    gpu_hours_freed_per_hour_lo: float
    gpu_hours_freed_per_hour_hi: float
    per_hour_lo: float
    per_hour_hi: float
    per_month_lo: float
    per_month_hi: float


@dataclass
class LinkComponent:
    """One kind of traffic over a modelled link and the time it adds (seconds)."""

    name: str
    operations: int
    bytes: float
    added_lo_s: float
    added_hi_s: float


@dataclass
class LinkModel:
    """The modelled slowdown behind one remote link ("100Gbps,5us")."""

    link: str
    bytes_per_s: float
    latency_s: float
    measured: bool
    slowdown_lo: float
    slowdown_hi: float
    saturated: bool
    components: List[LinkComponent]


@dataclass
class DisaggregationResult:
    """One workload's entry of ``kraken disagg --json``.

    Attributes:
        workload: its name (the input, with the GPU/phase for captures).
        score: 0..1, the weighted mean of the measured parts.
        breakdown: the parts by name ("decoupling", "network", "temporal").
        strategy: the recommended strategy.
        perf_impact: expected slowdown and its range.
        savings: GPU fraction and money freed.
        links: the network model per link.
        raw: the whole entry (``explain`` when asked for).
    """

    workload: str
    source_kind: str
    workload_type: str
    device: str
    score: float
    parts_measured: int
    breakdown: Dict[str, ScorePart]
    strategy: Strategy
    perf_impact: PerfImpact
    savings: Savings
    links: List[LinkModel]
    raw: Dict[str, Any] = raw_field()


def result_from_entry(doc: Dict[str, Any]) -> DisaggregationResult:
    """A :class:`DisaggregationResult` from one entry of the document's ``workloads``."""
    parts = {name: build(ScorePart, part) for name, part in (doc.get("parts") or {}).items()}
    links = [build(LinkModel, link, components=build_list(LinkComponent, link.get("components")))
             for link in doc.get("links") or []]
    return build(DisaggregationResult, doc, breakdown=parts, strategy=build(Strategy, doc.get("strategy")),
                 perf_impact=build(PerfImpact, doc.get("impact")), savings=build(Savings, doc.get("savings")),
                 links=links)


def disagg_document(inputs: Sequence[str], links: Optional[Sequence[str]] = None, price: Optional[float] = None,
                    reference: Any = None, explain: bool = False, db: Any = None,
                    max_slowdown: Optional[float] = None) -> Dict[str, Any]:
    """The ``kraken disagg --json`` document for `inputs`."""
    options = {"link": list(links) if links else None, "price": price, "reference": path_option(reference),
               "explain": explain or None, "db": path_option(db), "max_slowdown": max_slowdown}
    return _native.load_json(_native.library().call_inputs("kraken_disagg", list(inputs), options))


class DisaggregationAnalyzer:
    """Disaggregation potential of a profile.

    Example::

        result = DisaggregationAnalyzer(profile_data="trace.json.gz").evaluate()
        print(result.score, result.strategy, result.perf_impact.lo, result.perf_impact.hi)
    """

    def __init__(self, profile_data: Union[InputLike, Iterable[InputLike]], *,
                 links: Optional[Sequence[str]] = None, price: Optional[float] = None,
                 reference: Any = None, explain: bool = False, workload: Optional[str] = None,
                 db: Any = None, max_slowdown: Optional[float] = None) -> None:
        """Args:
            profile_data: a trace/capture path or stored profile id (or a list, a
                :class:`~kraken.Profile`, a :class:`~kraken.Report`).
            links: remote links to model, "100Gbps,5us" (the first is scored; default as
                the CLI: 100Gbps,5us, 25Gbps,10us, 400Gbps,2us).
            price: US$ per GPU-hour for the savings (default 2.5).
            reference: the disaggregated DLRM trace (alibaba-dlrm-v2025) to compare with.
            explain: keep every formula term (in ``raw["explain"]``).
            workload: which workload :meth:`evaluate` returns when the inputs hold several.
            db: the store that ids are read from.
            max_slowdown: expected slowdown in % a recommended MIG slice may cost
                (default 10, as ``kraken disagg --max-slowdown``).
        """
        self.inputs, self.db = inputs_and_db(profile_data, db, "profile_data")
        self.links = links
        self.price = price
        self.reference = reference
        self.explain = explain
        self.workload = workload
        self.max_slowdown = max_slowdown

    def evaluate_all(self) -> List[DisaggregationResult]:
        """One result per workload of the inputs (a trace: one per rank; a capture: one per
        GPU or MIG instance and phase)."""
        doc = disagg_document(self.inputs, self.links, self.price, self.reference, self.explain, self.db,
                              self.max_slowdown)
        return [result_from_entry(entry) for entry in doc.get("workloads") or []]

    def evaluate(self) -> DisaggregationResult:
        """The result of the one workload (or of ``workload=``).

        Raises:
            ValueError: the inputs hold several workloads and none was chosen, or the
                chosen one does not exist (the message lists them).
        """
        results = self.evaluate_all()
        names = [r.workload for r in results]
        if self.workload is not None:
            for result in results:
                if result.workload == self.workload:
                    return result
            raise ValueError(f"no workload named {self.workload!r}; the inputs hold: {', '.join(names)}")
        if len(results) != 1:
            raise ValueError(f"the inputs hold {len(results)} workloads ({', '.join(names)}): pass workload=NAME "
                             "or call evaluate_all()")
        return results[0]

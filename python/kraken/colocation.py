"""``kraken colocate`` from Python: interference of workloads sharing a GPU (time-slicing,
MPS, MIG) and the placement of many workloads on few GPUs (docs/colocation.md)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _native
from ._inputs import InputLike, input_strings, inputs_and_db
from ._results import build, build_optional, raw_field

#: The sharing modes kraken predicts.
MODES = ("timeslice", "mps", "mig")
#: What :meth:`InterferencePredictor.predict` can report.
METRICS = ("latency", "throughput")
#: The constraint keys :meth:`ColocationOptimizer.optimize` understands.
CONSTRAINTS = ("max_memory_gb", "min_qos", "max_interference")


@dataclass
class LatencyPrediction:
    """p99 request latency of a request-driven workload alone and co-located (ms);
    ``p99_colocated_ms`` and ``p99_increase`` are None when the queue is overloaded."""

    unit: str
    p99_alone_ms: Optional[float]
    p99_colocated_ms: Optional[float]
    p99_increase: Optional[float]
    overloaded: bool


@dataclass
class Prediction:
    """One workload's predicted effect of sharing.

    Attributes:
        name: the workload (as kraken names the input).
        slowdown: time per unit of work, shared / alone (>= 1): the throughput effect.
        latency: the p99 latency prediction, or None when none was made (not a
            request-driven workload).
        penalty: what QoS limits compare against: the p99 increase when predicted, else
            the slowdown.
        contended_resource: the largest part of the extra time.
        fits_memory: whether both fit the GPU's memory.
        qos: {"max": limit or None, "ok": bool}.
    """

    name: str
    slowdown: Optional[float]
    latency: Optional[LatencyPrediction]
    penalty: Optional[float]
    contended_resource: str
    fits_memory: bool
    qos: Dict[str, Any]
    raw: Dict[str, Any] = raw_field()


@dataclass
class SharingMode:
    """One way to share a GPU ("timeslice", "mps", "mig") and what each workload gets."""

    mode: str
    label: str
    feasible: bool
    infeasible_reason: Optional[str]
    sm_shares: List[float]
    memory_shares: List[float]
    mig_profiles: List[str]
    split_suggested: bool
    all_qos_ok: bool
    score: Optional[float]
    predictions: List[Prediction]
    notes: List[str]


def _prediction(doc: Dict[str, Any]) -> Prediction:
    return build(Prediction, doc, latency=build_optional(LatencyPrediction, doc.get("latency")))


def _mode(doc: Dict[str, Any]) -> SharingMode:
    return build(SharingMode, doc, predictions=[_prediction(p) for p in doc.get("predictions") or []],
                 notes=list(doc.get("notes") or []))


@dataclass
class InterferencePrediction:
    """What `secondary` does to `primary` (and back) sharing one GPU in one mode.

    Attributes:
        mode: the sharing mode with every prediction.
        primary, secondary: the two workloads' predictions.
        score: pair score 0..1 (1 = no interference), None when the mode is infeasible.
        metrics: the requested metrics: "throughput" -> primary's slowdown, "latency" ->
            primary's p99 increase (None when not predicted).
        raw: the whole ``kraken colocate --json`` document.
    """

    mode: SharingMode
    primary: Optional[Prediction]
    secondary: Optional[Prediction]
    score: Optional[float]
    metrics: Dict[str, Optional[float]]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def _check_names(kind: str, given: Sequence[str], valid: Sequence[str]) -> None:
    unknown = [name for name in given if name not in valid]
    if unknown:
        raise ValueError(f"unknown {kind} {', '.join(map(repr, unknown))}; valid: {', '.join(valid)}")


def _fraction_text(value: float) -> str:
    return repr(float(value))


class InterferencePredictor:
    """Predicts the interference between two workloads sharing one GPU.

    Example::

        p = InterferencePredictor().predict(primary="bert.csv", secondary="resnet.csv",
                                            metrics=["latency", "throughput"], mode="mps")
        print(p.primary.slowdown, p.metrics)
    """

    def __init__(self, *, device: Optional[str] = None, timeslice_ms: Optional[float] = None,
                 db: Any = None) -> None:
        """Args:
            device: the GPU they would share (catalog id or name); default: the one the
                inputs ran on.
            timeslice_ms: time-slice length assumed for time-slicing (default 2).
            db: the store that ids are read from.
        """
        self.device = device
        self.timeslice_ms = timeslice_ms
        self.db = db

    def predict(self, primary: InputLike, secondary: InputLike, metrics: Sequence[str] = METRICS,
                mode: str = "timeslice", *, sm_split: Optional[str] = None,
                rates: Optional[Mapping[str, float]] = None, explain: bool = False) -> InterferencePrediction:
        """``kraken colocate --json --mode MODE PRIMARY SECONDARY``.

        Args:
            primary, secondary: one input each (path, stored id, Profile).
            metrics: what to report in ``metrics``: "latency", "throughput".
            mode: "timeslice", "mps" or "mig".
            sm_split: MPS SM percentages "60,40" (default: kraken suggests one).
            rates: requests/s of request-driven workloads, keyed "primary"/"secondary",
                for queueing in the p99 latency.
            explain: keep every formula term (``raw``).

        Raises:
            ValueError: an unknown metric or mode (the message lists the valid ones).
            KrakenError: the library's message (a bad input file, an unknown device).
        """
        metrics = list(metrics)
        _check_names("metric", metrics, METRICS)
        _check_names("mode", [mode], MODES)
        one = input_strings(primary, "primary")
        two = input_strings(secondary, "secondary")
        if len(one) != 1 or len(two) != 1:
            raise ValueError("primary and secondary take one input each")
        _, db = inputs_and_db([primary, secondary], self.db, "primary/secondary")
        rate_option = None
        if rates:
            _check_names("rates key", list(rates), ("primary", "secondary"))
            # Workloads are named by position ("1", "2") as --rate accepts.
            rate_option = {("1" if key == "primary" else "2"): float(value) for key, value in rates.items()}
        options = {"mode": mode, "sm_split": sm_split, "device": self.device, "timeslice_ms": self.timeslice_ms,
                   "rate": rate_option, "explain": explain or None, "db": db}
        doc = _native.load_json(_native.library().call_pair("kraken_predict_interference", one[0], two[0], options))
        modes = [_mode(m) for m in doc.get("modes") or []]
        if len(modes) != 1:
            raise RuntimeError(f"libkraken answered {len(modes)} sharing modes for one requested mode")
        chosen = modes[0]
        first = chosen.predictions[0] if chosen.predictions else None
        second = chosen.predictions[1] if len(chosen.predictions) > 1 else None
        values: Dict[str, Optional[float]] = {}
        if "throughput" in metrics:
            values["throughput"] = first.slowdown if first else None
        if "latency" in metrics:
            values["latency"] = first.latency.p99_increase if first and first.latency else None
        return InterferencePrediction(mode=chosen, primary=first, secondary=second, score=chosen.score,
                                      metrics=values, raw=doc)


@dataclass
class GpuAssignment:
    """One GPU of a placement: which workloads share it and how.

    ``workloads`` are kraken's names of the inputs; ``labels`` the names given to
    :meth:`ColocationOptimizer.add_workload` (the same when kraken's workloads could not be
    matched one to one with the added ones)."""

    gpu: int
    workloads: List[str]
    labels: List[str]
    reason: str
    sharing: Optional[SharingMode]


@dataclass
class Placement:
    """The result of ``kraken colocate --optimize --json``: workloads packed onto GPUs."""

    feasible: bool
    method: str
    gpus_available: int
    gpus_used: Optional[int]
    total_interference: Optional[float]
    gpus: List[GpuAssignment]
    reasons: List[str]
    raw: Dict[str, Any] = raw_field()


class ColocationOptimizer:
    """Places workloads on the fewest GPUs, then with the least interference.

    Example::

        opt = ColocationOptimizer()
        opt.add_workload("bert", profile="bert_2_fwd.csv")
        opt.add_workload("resnet", profile="resnet50_4_fwd.csv")
        plan = opt.optimize(constraints={"max_memory_gb": 40, "min_qos": 0.7, "max_interference": 0.5}, gpus=2)
    """

    def __init__(self, *, device: Optional[str] = None, mode: Optional[str] = None,
                 max_per_gpu: Optional[int] = None, timeslice_ms: Optional[float] = None, db: Any = None) -> None:
        """Args:
            device: the GPU model they would share (default: the one the inputs ran on).
            mode: restrict sharing to "timeslice", "mps" or "mig" (default: any).
            max_per_gpu: most workloads on one GPU (default 4).
            timeslice_ms: time-slice length assumed for time-slicing.
            db: the store that ids are read from.
        """
        if mode is not None:
            _check_names("mode", [mode], MODES)
        self.device = device
        self.mode = mode
        self.max_per_gpu = max_per_gpu
        self.timeslice_ms = timeslice_ms
        self.db = db
        self._workloads: List[Tuple[str, str]] = []
        self._objects: List[Any] = []  # what was added, for the store of stored profiles

    @property
    def workloads(self) -> List[Tuple[str, str]]:
        """(name, input) of every added workload, in order."""
        return list(self._workloads)

    def add_workload(self, name: str, profile: InputLike) -> "ColocationOptimizer":
        """Adds one workload. `profile`: a trace, capture, kernel list or stored id giving
        its profile (one input). Returns self, so calls chain."""
        inputs = input_strings(profile, "profile")
        if len(inputs) != 1:
            raise ValueError(f"workload {name!r}: one input per workload, got {len(inputs)}")
        if any(existing == name for existing, _ in self._workloads):
            raise ValueError(f"workload {name!r} is added already")
        self._workloads.append((name, inputs[0]))
        self._objects.append(profile)
        return self

    def optimize(self, constraints: Optional[Mapping[str, float]] = None, gpus: int = 1) -> Placement:
        """Places the added workloads on at most `gpus` GPUs.

        Constraints (all optional):
            max_memory_gb: memory per GPU in GB (10^9 bytes) instead of the device's.
            min_qos: the share of its solo speed every workload must keep, 0 < q <= 1;
                a workload may slow down at most by 1/q (0.8 -> slowdown <= 1.25; for
                request-driven workloads the p99 latency increase).
            max_interference: the extra time any workload may suffer, as a fraction
                (0.3 -> slowdown <= 1.3). With min_qos too, the stricter one applies.

        Raises:
            ValueError: an unknown constraint (the message lists the valid ones) or a
                value out of range; fewer than two workloads.
            KrakenError: the library's message.
        """
        constraints = dict(constraints or {})
        _check_names("constraint", list(constraints), CONSTRAINTS)
        if len(self._workloads) < 2:
            raise ValueError("add at least two workloads before optimize()")
        if gpus < 1:
            raise ValueError(f"gpus must be >= 1, got {gpus}")
        limits: List[float] = []
        qos = constraints.get("min_qos")
        if qos is not None:
            if not 0 < qos <= 1:
                raise ValueError(f"min_qos must be in (0, 1], got {qos}")
            limits.append(1.0 / qos)
        interference = constraints.get("max_interference")
        if interference is not None:
            if interference < 0:
                raise ValueError(f"max_interference must be >= 0, got {interference}")
            limits.append(1.0 + interference)
        memory = constraints.get("max_memory_gb")
        if memory is not None and not memory > 0:
            raise ValueError(f"max_memory_gb must be > 0, got {memory}")
        inputs, db = inputs_and_db(self._objects, self.db, "workloads")
        options = {"gpus": int(gpus), "gpu_memory": None if memory is None else _fraction_text(memory) + "GB",
                   "max_slowdown": min(limits) if limits else None, "max_per_gpu": self.max_per_gpu,
                   "mode": self.mode, "device": self.device, "timeslice_ms": self.timeslice_ms, "db": db}
        doc = _native.load_json(_native.library().call_inputs("kraken_colocate_optimize", inputs, options))
        return self._placement(doc)

    def _placement(self, doc: Dict[str, Any]) -> Placement:
        # kraken names workloads after their inputs; map back to the added names when the
        # inputs gave one workload each (a multi-rank trace gives several).
        names = [w.get("name") for w in doc.get("workloads") or []]
        labels: Dict[str, str] = {}
        if len(names) == len(self._workloads):
            labels = {kraken_name: added for kraken_name, (added, _) in zip(names, self._workloads)}
        placement = doc.get("placement") or {}
        gpus = [build(GpuAssignment, g, labels=[labels.get(w, w) for w in g.get("workloads") or []],
                      sharing=_mode(g["sharing"]) if g.get("sharing") else None)
                for g in placement.get("gpus") or []]
        return build(Placement, placement, gpus=gpus, reasons=list(placement.get("reasons") or []), raw=doc)


__all__ = ["ColocationOptimizer", "InterferencePredictor", "InterferencePrediction", "Placement", "GpuAssignment",
           "SharingMode", "Prediction", "LatencyPrediction"]

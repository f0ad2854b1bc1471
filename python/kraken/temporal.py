"""``kraken temporal`` from Python: periodicity, peak/idle phases and forecast accuracy of
utilization series (docs/temporal.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from . import _native
from ._inputs import InputLike, inputs_and_db, path_option
from ._results import build, build_optional, raw_field


@dataclass
class Periodicity:
    """The periodicity test of one series.

    Attributes:
        verdict: "periodic", "no significant period", "constant", "too short", ...
        reason: why, with the figures.
        period: the period in axis units (ns or iterations) when periodic, else None.
        period_points, acf, strength, complete_cycles: the detected period's figures.
        peak: {start, length, mean_level, recurrence} of the busiest phase, when periodic.
        idle_windows: the idle phases, when periodic.
    """

    verdict: str
    reason: str
    period: Optional[float]
    period_points: Optional[int]
    acf: Optional[float]
    strength: Optional[float]
    complete_cycles: Optional[float]
    peak: Optional[Dict[str, Any]]
    idle_windows: Optional[List[Any]]
    raw: Dict[str, Any] = raw_field()


@dataclass
class TemporalSeries:
    """One series analysed: its grid, periodicity (whole series and training part) and
    forecast evaluation (``forecast["horizons"]`` with MASE per horizon)."""

    index: int
    name: str
    unit: str
    axis: str
    error: Optional[str]
    grid: Optional[Dict[str, Any]]
    periodicity: Optional[Periodicity]
    training_periodicity: Optional[Periodicity]
    forecast: Optional[Dict[str, Any]]
    raw: Dict[str, Any] = raw_field()


@dataclass
class TemporalFile:
    """One input and its series."""

    source: str
    format: str
    clock: str
    series: List[TemporalSeries]


@dataclass
class TemporalAnalysis:
    """The document of ``kraken temporal INPUT... --json``."""

    options: Dict[str, Any]
    files: List[TemporalFile]
    raw: Dict[str, Any] = raw_field()

    @property
    def series(self) -> List[TemporalSeries]:
        """Every series of every input, in order."""
        return [s for f in self.files for s in f.series]


def _series(doc: Dict[str, Any]) -> TemporalSeries:
    return build(TemporalSeries, doc, periodicity=build_optional(Periodicity, doc.get("periodicity")),
                 training_periodicity=build_optional(Periodicity, doc.get("training_periodicity")))


def analyze_temporal(inputs: Union[InputLike, Iterable[InputLike]], *, series: Optional[Sequence[str]] = None,
                     horizon: Optional[str] = None, format: Optional[str] = None,
                     db: Any = None) -> TemporalAnalysis:
    """Periodicity and forecast of the series of `inputs`: ``kraken temporal --json``.

    Args:
        inputs: series files (Helios, GenAI, PAI, nvidia-smi/DCGM captures, kraken
            profiles) or stored ids.
        series: names or indices of the series to analyse (default: the file's default
            series, docs/temporal.md).
        horizon: forecast horizons, "1h,24h".
        format: force an importer.
        db: the store that ids are read from.
    """
    strings, db = inputs_and_db(inputs, db, "inputs")
    options = {"series": list(series) if series else None, "horizon": horizon, "format": format,
               "db": path_option(db)}
    doc = _native.load_json(_native.library().call_inputs("kraken_temporal", strings, options))
    files = [build(TemporalFile, f, series=[_series(s) for s in f.get("series") or []]) for f in doc.get("files") or []]
    return build(TemporalAnalysis, doc, files=files)

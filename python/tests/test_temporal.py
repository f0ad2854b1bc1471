"""analyze_temporal() against `kraken temporal --json`."""
from __future__ import annotations

import pytest

import kraken
from conftest import PHILLY_SERIES, data, kraken_json


def test_periodicity_and_forecast_are_the_cli_figures() -> None:
    path = data(PHILLY_SERIES)
    result = kraken.analyze_temporal(path, horizon="1h,24h")
    cli = kraken_json("temporal", path, "--horizon", "1h,24h")
    assert result.raw == cli
    series = result.series[0]
    expected = cli["files"][0]["series"][0]
    assert series.name == "philly_node_sequence/active" and series.unit == "servers"
    assert series.periodicity.verdict == expected["periodicity"]["verdict"] == "no significant period"
    assert series.periodicity.period is None
    assert series.grid["points"] == 106243
    assert [h["mase"] for h in series.forecast["horizons"]] == [h["mase"] for h in expected["forecast"]["horizons"]]


def test_an_unknown_series_is_the_library_error() -> None:
    with pytest.raises(kraken.KrakenError, match="nope"):
        kraken.analyze_temporal(data(PHILLY_SERIES), series=["nope"])

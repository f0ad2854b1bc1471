"""DisaggregationAnalyzer against `kraken disagg --json`."""
from __future__ import annotations

import dataclasses

import pytest

import kraken
from conftest import DLRM_REFERENCE, H100_CAPTURE, RESNET_TRACE, SOURCE_DIR, data, kraken_json


def test_score_strategy_impact_breakdown_and_savings_are_the_cli_figures() -> None:
    trace = data(RESNET_TRACE)
    result = kraken.DisaggregationAnalyzer(profile_data=trace).evaluate()
    cli = kraken_json("disagg", trace)["workloads"][0]
    assert result.raw == cli
    assert result.score == cli["score"] == 0.7166117489
    assert result.parts_measured == 2
    assert str(result.strategy) == "dedicated" and result.strategy.reason == cli["strategy"]["reason"]
    assert dataclasses.asdict(result.perf_impact) == cli["impact"]
    assert (result.perf_impact.lo, result.perf_impact.hi) == (cli["impact"]["lo"], cli["impact"]["hi"])
    assert dataclasses.asdict(result.savings) == cli["savings"]
    assert set(result.breakdown) == {"decoupling", "network", "temporal"}
    assert result.breakdown["network"].value == cli["parts"]["network"]["value"]
    assert result.breakdown["decoupling"].measured is False
    assert result.breakdown["temporal"].raw["period_s"] == 0.178
    assert [link.link for link in result.links] == ["100Gbps,5us", "25Gbps,10us", "400Gbps,2us"]
    assert result.links[0].components[1].operations == 11922  # API calls


def test_links_price_and_reference_are_the_cli_flags() -> None:
    trace = data(RESNET_TRACE)
    result = kraken.DisaggregationAnalyzer(trace, links=["25Gbps,10us"], price=4.0, explain=True,
                                           reference=data(DLRM_REFERENCE)).evaluate()
    cli = kraken_json("disagg", trace, "--link", "25Gbps,10us", "--price", "4", "--explain",
                      "--reference", data(DLRM_REFERENCE))
    assert result.raw == cli["workloads"][0]
    assert result.savings.price_per_gpu_hour == 4.0
    assert "explain" in result.raw


def test_max_slowdown_is_the_cli_flag() -> None:
    bert = str(SOURCE_DIR / "examples" / "nvidia-h100-80gb-hbm3" / "bert-infer.cupti.json.gz")
    default = kraken.DisaggregationAnalyzer(bert).evaluate()
    assert str(default.strategy) == "time-sliced" and default.strategy.mig_max_slowdown == 0.1
    assert default.perf_impact.expected <= 0.1
    result = kraken.DisaggregationAnalyzer(bert, max_slowdown=20).evaluate()
    assert result.raw == kraken_json("disagg", bert, "--max-slowdown", "20")["workloads"][0]
    assert (str(result.strategy), result.strategy.mig_profile) == ("MIG slice", "3g.40gb")
    assert result.strategy.mig_max_slowdown == 0.2


def test_a_capture_with_several_workloads_needs_a_choice() -> None:
    capture = data(H100_CAPTURE)
    analyzer = kraken.DisaggregationAnalyzer(profile_data=capture)
    everything = analyzer.evaluate_all()
    cli = kraken_json("disagg", capture)["workloads"]
    assert [r.raw for r in everything] == cli
    assert len(everything) > 1
    with pytest.raises(ValueError, match=f"the inputs hold {len(cli)} workloads"):
        analyzer.evaluate()
    chosen = kraken.DisaggregationAnalyzer(capture, workload=cli[-1]["workload"]).evaluate()
    assert chosen.raw == cli[-1]
    with pytest.raises(ValueError, match="no workload named 'nope'"):
        kraken.DisaggregationAnalyzer(capture, workload="nope").evaluate()


def test_a_bad_link_is_the_library_error() -> None:
    with pytest.raises(kraken.InvalidInputError, match="link"):
        kraken.DisaggregationAnalyzer(data(RESNET_TRACE), links=["fast"]).evaluate()

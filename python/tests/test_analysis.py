"""analyze(), analyze_text() and PerformanceTroubleshooter against `kraken analyze`."""
from __future__ import annotations

import dataclasses

import kraken
from conftest import H100_CAPTURE, ORION_BERT, RESNET_TRACE, data, kraken_json, run_kraken


def test_analysis_of_a_kineto_trace_is_the_cli_document_figure_for_figure() -> None:
    trace = data(RESNET_TRACE)
    result = kraken.analyze(trace)
    cli = kraken_json("analyze", trace)
    assert result.to_dict() == cli
    rank = result.ranks[0]
    assert dataclasses.asdict(rank.timeline) == cli["ranks"][0]["timeline"]
    # docs/report.md: ResNet-50 tb_plugin workers 0 on a V100: idle 39.43081476 %, 8,772
    # kernels, training, 4 diagnoses.
    assert rank.timeline.idle_pct == 39.43081476
    assert rank.timeline.busy_us == 603558
    assert result.kernels["count"] == 8772
    assert result.workload["type"] == "training"
    assert rank.device["catalog_id"] == "v100-sxm2"
    assert len(result.diagnoses) == 4
    assert [d.id for d in result.diagnoses] == [d["id"] for d in cli["diagnoses"]]
    assert result.diagnoses[0].evidence == cli["diagnoses"][0]["evidence"]


def test_options_reach_the_library_as_the_cli_flags() -> None:
    trace = data(RESNET_TRACE)
    result = kraken.analyze(trace, window="steps", top=3, device="a100-40gb-sxm")
    assert result.to_dict() == kraken_json("analyze", trace, "--window", "steps", "--top", "3",
                                           "--device", "a100-40gb-sxm")
    assert len(result.kernels["top"]) == 3


def test_sampled_capture_and_kernel_list_have_no_timeline() -> None:
    capture = data(H100_CAPTURE)
    result = kraken.analyze([capture, data(ORION_BERT)])
    assert result.to_dict() == kraken_json("analyze", capture, data(ORION_BERT))
    assert [r.format for r in result.ranks][-1] == "orion-csv"
    assert all(r.timeline is None for r in result.ranks)


def test_text_output_is_the_cli_text() -> None:
    trace = data(RESNET_TRACE)
    assert kraken.analyze_text(trace) == run_kraken("analyze", trace).stdout


def test_troubleshooter_diagnoses_are_the_cli_diagnoses() -> None:
    trace = data(RESNET_TRACE)
    diagnoses = kraken.PerformanceTroubleshooter(profile=trace).diagnose()
    cli = kraken_json("analyze", trace)["diagnoses"]
    assert [dataclasses.asdict(d) for d in diagnoses] == cli
    idle = diagnoses[0]
    assert idle.id == "gpu_idle" and idle.severity == "medium"
    assert idle.evidence["idle_pct"] == 39.43081476
    assert "num_workers" in idle.recommendation

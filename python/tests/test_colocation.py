"""InterferencePredictor and ColocationOptimizer against `kraken colocate --json`."""
from __future__ import annotations

import dataclasses

import pytest

import kraken
from conftest import ORION_BERT, ORION_MOBILENET, ORION_RESNET, ORION_RESNET_FB, data, kraken_json


@pytest.mark.parametrize("mode", ["timeslice", "mps", "mig"])
def test_each_mode_is_the_cli_prediction(mode: str) -> None:
    resnet, bert = data(ORION_RESNET), data(ORION_BERT)
    p = kraken.InterferencePredictor().predict(primary=resnet, secondary=bert, metrics=["latency", "throughput"],
                                               mode=mode)
    cli = kraken_json("colocate", "--mode", mode, resnet, bert)
    assert p.raw == cli
    assert len(cli["modes"]) == 1
    assert p.mode.mode == mode and p.mode.feasible == cli["modes"][0]["feasible"]
    predictions = cli["modes"][0]["predictions"]
    if mode == "mig":  # a V100 has no MIG
        assert p.mode.infeasible_reason == "v100-pcie does not support MIG"
        assert p.primary is None and p.metrics == {"throughput": None, "latency": None}
        return
    assert p.primary.slowdown == predictions[0]["slowdown"]
    assert p.secondary.slowdown == predictions[1]["slowdown"]
    assert p.metrics["throughput"] == predictions[0]["slowdown"]
    assert p.metrics["latency"] is None  # kernel lists are not request-driven
    assert p.score == cli["modes"][0]["score"]
    if mode == "mps":
        assert p.score == 0.2314421417  # the pair score the server tests pin
        assert p.mode.label == "mps 40/60"
        assert p.primary.slowdown == 1.619802903


def test_latency_with_a_request_rate_is_the_cli_p99() -> None:
    resnet, other = data(ORION_RESNET), data(ORION_RESNET_FB)
    p = kraken.InterferencePredictor().predict(resnet, other, metrics=["latency"], mode="mps",
                                               sm_split="100,100", rates={"primary": 30})
    cli = kraken_json("colocate", "--mode", "mps", "--sm-split", "100,100", "--rate", "resnet50_4_fwd=30",
                      resnet, other)
    assert p.raw == cli
    latency = cli["modes"][0]["predictions"][0]["latency"]
    assert latency is not None
    assert dataclasses.asdict(p.primary.latency) == latency
    assert p.metrics == {"latency": latency["p99_increase"]}


def test_bad_metric_and_mode_list_the_valid_ones() -> None:
    predictor = kraken.InterferencePredictor()
    with pytest.raises(ValueError, match="unknown metric 'p99'; valid: latency, throughput"):
        predictor.predict(data(ORION_RESNET), data(ORION_BERT), metrics=["p99"])
    with pytest.raises(ValueError, match="unknown mode 'vgpu'; valid: timeslice, mps, mig"):
        predictor.predict(data(ORION_RESNET), data(ORION_BERT), mode="vgpu")


def test_optimize_is_the_cli_placement_with_constraints_as_flags() -> None:
    files = {"resnet": data(ORION_RESNET), "bert": data(ORION_BERT), "mobilenet": data(ORION_MOBILENET)}
    optimizer = kraken.ColocationOptimizer()
    for name, path in files.items():
        optimizer.add_workload(name, profile=path)
    plan = optimizer.optimize(constraints={"max_memory_gb": 40, "min_qos": 0.7, "max_interference": 0.5}, gpus=2)
    # min_qos 0.7 -> slowdown <= 1/0.7 = 1.43; max_interference 0.5 -> <= 1.5: the stricter.
    cli = kraken_json("colocate", "--optimize", "--gpus", "2", "--gpu-memory", "40.0GB",
                      "--max-slowdown", repr(1 / 0.7), *files.values())
    assert plan.raw == cli
    placement = cli["placement"]
    assert plan.feasible == placement["feasible"] and plan.gpus_used == placement["gpus_used"]
    assert plan.total_interference == placement["total_interference"]
    assert [g.workloads for g in plan.gpus] == [g["workloads"] for g in placement["gpus"]]
    names = {"resnet50_4_fwd": "resnet", "bert_2_fwd": "bert", "mobilenetv2_4_fwd": "mobilenet"}
    assert [g.labels for g in plan.gpus] == [[names[w] for w in g["workloads"]] for g in placement["gpus"]]
    for gpu, expected in zip(plan.gpus, placement["gpus"]):
        if gpu.sharing is not None:
            assert [p.slowdown for p in gpu.sharing.predictions] == \
                   [p["slowdown"] for p in expected["sharing"]["predictions"]]
            assert all(p.penalty <= 1 / 0.7 for p in gpu.sharing.predictions)


def test_optimize_rejects_unknown_constraints_and_bad_values() -> None:
    optimizer = kraken.ColocationOptimizer().add_workload("a", data(ORION_RESNET)).add_workload("b", data(ORION_BERT))
    with pytest.raises(ValueError, match="unknown constraint 'max_gpus'; valid: max_memory_gb, min_qos, "
                                         "max_interference"):
        optimizer.optimize(constraints={"max_gpus": 2}, gpus=2)
    with pytest.raises(ValueError, match=r"min_qos must be in \(0, 1\]"):
        optimizer.optimize(constraints={"min_qos": 1.5}, gpus=2)
    with pytest.raises(ValueError, match="add at least two workloads"):
        kraken.ColocationOptimizer().add_workload("a", data(ORION_RESNET)).optimize(gpus=1)
    with pytest.raises(ValueError, match="is added already"):
        optimizer.add_workload("a", data(ORION_BERT))

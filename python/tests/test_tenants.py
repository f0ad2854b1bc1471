"""MultiTenancyPlanner against `kraken plan tenants --json` on the real Orion profiles."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import kraken
from conftest import ORION_MOBILENET, ORION_RESNET, ORION_RESNET_FB, data, run_kraken

GPUS = ["a100-40gb-sxm:mig=a", "a100-40gb-sxm=b", "v100-sxm2@2.5=c"]


def _planner() -> kraken.MultiTenancyPlanner:
    planner = kraken.MultiTenancyPlanner(gpus=GPUS)
    planner.add_tenant("search", [
        {"name": "mobilenet-infer", "profile": data(ORION_MOBILENET), "type": "inference", "p99_ms": 40,
         "rate_per_s": 20},
        {"name": "resnet50-infer", "profile": data(ORION_RESNET), "type": "inference", "p99_ms": 60,
         "rate_per_s": 10}])
    planner.add_tenant("research", [
        {"name": "resnet50-train", "profile": data(ORION_RESNET_FB), "type": "training", "min_throughput": 0.5}])
    return planner


@pytest.mark.parametrize("objective", ["cost", "performance", "balanced"])
def test_plan_is_the_cli_plan(objective: str, tmp_path: Path) -> None:
    plan = _planner().plan(optimize=objective)
    rows = [["tenant", "workload", "profile", "type", "p99_ms", "rate_per_s", "min_throughput"],
            ["search", "mobilenet-infer", data(ORION_MOBILENET), "inference", "40", "20", ""],
            ["search", "resnet50-infer", data(ORION_RESNET), "inference", "60", "10", ""],
            ["research", "resnet50-train", data(ORION_RESNET_FB), "training", "", "", "0.5"]]
    path = tmp_path / "tenants.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    cli = json.loads(run_kraken("plan", "tenants", str(path), "--gpus", ",".join(GPUS), "--optimize", objective,
                                "--json").stdout)
    assert plan.raw == cli
    assert plan.objective == objective
    assert plan.all_placed is True
    assert all(w.sla["ok"] for w in plan.workloads)
    mobilenet = plan.allocation("mobilenet-infer")
    assert mobilenet.p99_ms is not None and mobilenet.p99_ms <= 40
    assert [g.name for g in plan.gpus] == ["a", "b", "c"]
    if objective == "cost":
        assert plan.gpus_used == 1 and plan.usd_per_hour == 1.99


def test_bad_inputs_raise() -> None:
    with pytest.raises(ValueError):
        kraken.MultiTenancyPlanner(gpus=[])
    with pytest.raises(ValueError):
        kraken.MultiTenancyPlanner(gpus=GPUS).plan()
    with pytest.raises(ValueError):
        kraken.MultiTenancyPlanner(gpus=GPUS).add_tenant("t", [{"name": "x", "profile": "p", "latency": 3}])
    with pytest.raises(kraken.InvalidInputError, match="--optimize expects"):
        _planner().plan(optimize="cheapest")

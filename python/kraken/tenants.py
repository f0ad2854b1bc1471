"""``kraken plan tenants`` from Python: tenants' workloads with SLAs (p99 latency for
inference, a minimum share of solo throughput for training) placed on the available GPUs,
each SLA checked with kraken's co-location model (docs/tenants.md)."""
from __future__ import annotations

import csv
import os
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

from . import _native
from ._results import build, build_list, raw_field

#: The objectives :meth:`MultiTenancyPlanner.plan` accepts.
OBJECTIVES = ("cost", "performance", "balanced")
_COLUMNS = ("tenant", "workload", "profile", "type", "p99_ms", "rate_per_s", "min_throughput")


@dataclass
class WorkloadAllocation:
    """Where one workload runs and whether its SLA holds there.

    Attributes:
        gpu: the GPU's name, None when no GPU meets its SLA (``why`` says which refused).
        sharing: "alone", "timeslice", "mps 45% SMs" or "mig 3g".
        slowdown: time per unit of work shared / alone on that GPU.
        speed_vs_profiled: roofline speed of that GPU against the one it was profiled on.
        p99_ms: predicted p99 (inference with a rate), else None.
        sla: {"p99_ms", "min_throughput", "ok", "check"}.
    """

    tenant: str
    name: str
    type: str
    gpu: Optional[str]
    sharing: str
    slowdown: float
    speed_vs_profiled: float
    p99_ms: Optional[float]
    sla: Dict[str, Any]
    why: str
    raw: Dict[str, Any] = raw_field()


@dataclass
class GpuAllocation:
    """One available GPU: its workloads and how they share it ("idle" when none)."""

    name: str
    model: str
    mig_allowed: bool
    usd_per_hour: float
    workloads: List[str]
    mode: str
    raw: Dict[str, Any] = raw_field()


@dataclass
class TenantPlan:
    """The allocation plan: `kraken plan tenants --json`, figure for figure."""

    objective: str
    gpus_used: int
    usd_per_hour: float
    all_placed: bool
    gpus: List[GpuAllocation]
    workloads: List[WorkloadAllocation]
    notes: List[str]
    raw: Dict[str, Any] = raw_field()

    def allocation(self, workload: str) -> WorkloadAllocation:
        """The allocation of the workload named `workload` (KeyError when none)."""
        for w in self.workloads:
            if w.name == workload:
                return w
        raise KeyError(workload)


class MultiTenancyPlanner:
    """Plans which GPU, MIG slice or share each tenant's workload gets.

    Example::

        planner = MultiTenancyPlanner(gpus=["a100-40gb-sxm:mig", "a100-40gb-sxm", "v100-sxm2"])
        planner.add_tenant("search", [{"name": "bert", "profile": "bert.json.gz", "type": "inference",
                                       "p99_ms": 20, "rate_per_s": 50}])
        planner.add_tenant("research", [{"name": "resnet", "profile": "resnet.csv", "type": "training",
                                         "min_throughput": 0.6}])
        plan = planner.plan(optimize="cost")

    Args:
        gpus: the available GPUs, each "MODEL[:mig][@USD_PER_HOUR][=NAME]" (catalog ids of
            ``kraken devices``; ":mig" allows MIG slices on it).
        prices: a price catalog CSV for the GPUs' $/hour (docs/cost.md); None = built-in.
    """

    def __init__(self, gpus: Sequence[str], prices: Optional[str] = None) -> None:
        if not gpus:
            raise ValueError("MultiTenancyPlanner needs at least one GPU")
        self.gpus = list(gpus)
        self.prices = prices
        self._rows: List[Dict[str, Any]] = []

    def add_tenant(self, tenant: str, workloads: Sequence[Mapping[str, Any]]) -> None:
        """Adds a tenant's workloads: mappings with "name", "profile" (a file or a stored
        id), "type" ("inference" or "training"), and the SLA: "p99_ms" with "rate_per_s"
        for inference, "min_throughput" (0..1 of its solo throughput) for training."""
        for w in workloads:
            unknown = set(w) - {"name", "profile", "type", "p99_ms", "rate_per_s", "min_throughput"}
            if unknown:
                raise ValueError(f"workload keys not understood: {sorted(unknown)}")
            if "name" not in w or "profile" not in w:
                raise ValueError("every workload needs a name and a profile")
            self._rows.append({"tenant": tenant, "workload": w["name"], "profile": os.fspath(w["profile"]),
                               "type": w.get("type", "training"), "p99_ms": w.get("p99_ms", ""),
                               "rate_per_s": w.get("rate_per_s", ""), "min_throughput": w.get("min_throughput", "")})

    def plan(self, optimize: str = "balanced") -> TenantPlan:
        """The allocation for `optimize` ("cost", "performance" or "balanced")."""
        if not self._rows:
            raise ValueError("no tenants: call add_tenant first")
        with tempfile.TemporaryDirectory(prefix="kraken-tenants-") as folder:
            path = os.path.join(folder, "tenants.csv")
            with open(path, "w", newline="", encoding="utf-8") as f:
                writer = csv.DictWriter(f, fieldnames=_COLUMNS)
                writer.writeheader()
                writer.writerows(self._rows)
            return plan_tenants(path, self.gpus, optimize=optimize, prices=self.prices)


def plan_tenants(tenants_csv: str, gpus: Sequence[str], optimize: str = "balanced",
                 prices: Optional[str] = None) -> TenantPlan:
    """`kraken plan tenants TENANTS_CSV --gpus ... --optimize ... --json` (profile paths in
    the file are relative to it)."""
    options: Dict[str, Any] = {"gpus": list(gpus), "optimize": optimize}
    if prices is not None:
        options["prices"] = prices
    doc = _native.load_json(_native.library().call_one("kraken_plan_tenants", os.fspath(tenants_csv), options))
    return build(TenantPlan, doc, gpus=build_list(GpuAllocation, doc.get("gpus")),
                 workloads=build_list(WorkloadAllocation, doc.get("workloads")), notes=list(doc.get("notes") or []))

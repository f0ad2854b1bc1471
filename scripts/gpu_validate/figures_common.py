"""What every part of figures.py shares: reading a run's JSON documents, the throughput of
a measured (not stand-in) result, the overhead between two throughputs, and how a figure
prints (NOT_MEASURED when there is none).
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional

NOT_MEASURED = "not measured"


def read_json(path: str) -> Optional[Any]:
    """The document at `path`, or None when absent or unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def pct(value: Optional[float]) -> str:
    return NOT_MEASURED if value is None else f"{value:+.2f} %"


def overhead_pct(alone: Optional[float], with_tool: Optional[float]) -> Optional[float]:
    """Throughput lost to a tool, in percent of the run with it: (alone / with - 1) x 100."""
    if not alone or not with_tool:
        return None
    return (alone / with_tool - 1.0) * 100.0


def throughput(result: Optional[Dict[str, Any]]) -> Optional[float]:
    """A measured (not stand-in) result's throughput per second."""
    if not result or result.get("stand_in") or not result.get("throughput_per_s"):
        return None
    return float(result["throughput_per_s"])


def measured_on_gpu(root: str) -> bool:
    """Whether the run had a GPU (run.json's mode); a rehearsal measures nothing."""
    return (read_json(os.path.join(root, "run.json")) or {}).get("mode") == "gpu"


def fmt(value: Optional[float], digits: int = 3) -> str:
    return NOT_MEASURED if value is None else f"{value:.{digits}f}"

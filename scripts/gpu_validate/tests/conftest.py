"""Shared fixtures of the gpu_validate helpers' tests.

`fake_torch` imports the stand-ins for torch, torchvision and transformers of
fake_node/python, which record the calls the workloads make (no GPU, no PyTorch here).
They check the helpers' control flow (which calls, in which order, what gets written), not
PyTorch's behaviour: the GPU run does that. Paths: KRAKEN_BUILD_DIR (the build under test), KRAKEN_SOURCE_DIR, and the
shared data folder (KRAKEN_DATA_DIR, else the build's default, else ../shared/data).
"""
from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict, List

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
HELPERS = os.path.dirname(HERE)
sys.path.insert(0, HELPERS)
SOURCE_DIR = os.environ.get("KRAKEN_SOURCE_DIR") or os.path.dirname(os.path.dirname(HELPERS))
BUILD_DIR = os.environ.get("KRAKEN_BUILD_DIR") or os.path.join(SOURCE_DIR, "build")


def data_path(relative: str) -> str:
    """A file of the shared data; the test fails (never skips) when it is missing."""
    base = (os.environ.get("KRAKEN_DATA_DIR") or os.environ.get("KRAKEN_DEFAULT_DATA_DIR")
            or os.path.join(SOURCE_DIR, "..", "shared", "data"))
    path = os.path.join(base, relative)
    assert os.path.exists(path), f"shared data file missing: {path} (set KRAKEN_DATA_DIR)"
    return path


def write(root: Any, rel: str, doc: Any) -> None:
    """Writes `doc` (text as is, anything else as JSON) at `rel` under the results folder `root`."""
    path = os.path.join(str(root), rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))


def window(tp: float, stand_in: bool = False) -> Dict[str, Any]:
    """A workloads.py result of `tp` kernels a second (a stand-in's when `stand_in`)."""
    return {"throughput_per_s": tp, "unit": "kernels", "stand_in": stand_in}


FAKE_NODE = os.path.join(HERE, "fake_node")
STAND_IN_MODULES = ("torch", "torch.profiler", "torchvision", "transformers")


@pytest.fixture
def fake_torch(monkeypatch: pytest.MonkeyPatch) -> List[Any]:
    """Imports the stand-ins for torch, torchvision and transformers (fake_node/python);
    returns the list their calls are recorded in."""
    for name in STAND_IN_MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(os.path.join(FAKE_NODE, "python"))
    import torch

    del torch.stand_in_calls[:]
    yield torch.stand_in_calls
    for name in STAND_IN_MODULES:
        sys.modules.pop(name, None)

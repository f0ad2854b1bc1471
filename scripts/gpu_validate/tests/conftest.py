"""Shared fixtures of the gpu_validate helpers' tests.

`fake_torch` installs stand-ins for torch, torchvision and transformers that record the
calls the workloads make (no GPU, no PyTorch here). They check the helpers' control flow
(which calls, in which order, what gets written), not PyTorch's behaviour: the GPU run
does that. Paths: KRAKEN_BUILD_DIR (the build under test), KRAKEN_SOURCE_DIR, and the
shared data folder (KRAKEN_DATA_DIR, else the build's default, else ../shared/data).
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import types
from typing import Any, List

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


class FakeTensor:
    """Enough of a tensor for the workloads: in-place add, chaining, backward."""

    def __init__(self, calls: List[Any], what: str) -> None:
        self.calls = calls
        self.what = what

    def add_(self, value: float) -> "FakeTensor":
        self.calls.append("add_")
        return self

    def backward(self) -> None:
        self.calls.append("backward")


class FakeModel:
    """A model whose .to/.half/.eval chain and whose call records its inputs."""

    def __init__(self, calls: List[Any], name: str) -> None:
        self.calls = calls
        self.name = name

    def to(self, device: str) -> "FakeModel":
        self.calls.append((self.name, "to", device))
        return self

    def half(self) -> "FakeModel":
        self.calls.append((self.name, "half"))
        return self

    def eval(self) -> "FakeModel":
        self.calls.append((self.name, "eval"))
        return self

    def parameters(self) -> List[Any]:
        return []

    def __call__(self, *args: Any, **kwargs: Any) -> FakeTensor:
        self.calls.append((self.name, "forward", sorted(kwargs)))
        return FakeTensor(self.calls, "output")


class FakeProfile:
    """torch.profiler.profile: counts steps; exports a Chrome trace with its ProfilerSteps."""

    def __init__(self, calls: List[Any], activities: Any = None, profile_memory: bool = False) -> None:
        self.calls = calls
        self.steps = 0
        calls.append(("profile", tuple(activities or ()), profile_memory))

    def __enter__(self) -> "FakeProfile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.calls.append("profile-exit")

    def step(self) -> None:
        self.steps += 1

    def export_chrome_trace(self, path: str) -> None:
        events = [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "ts": i * 10.0, "dur": 9.0,
                   "pid": 1, "tid": 1} for i in range(self.steps)]
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"traceEvents": events}, f)


def make_fake_torch(calls: List[Any]) -> types.ModuleType:
    """A module named torch with the attributes scripts/gpu_validate/workloads.py uses."""
    torch = types.ModuleType("torch")
    torch.__version__ = "0.0+stand-in"  # type: ignore[attr-defined]
    torch.float16 = "float16"  # type: ignore[attr-defined]
    torch.backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(benchmark=True))  # type: ignore[attr-defined]
    torch.cuda = types.SimpleNamespace(  # type: ignore[attr-defined]
        is_available=lambda: True, synchronize=lambda: calls.append("sync"),
        get_device_name=lambda index: "Stand-in GPU",
        nvtx=types.SimpleNamespace(range_push=lambda name: calls.append(("push", name)),
                                   range_pop=lambda: calls.append(("pop",))))
    tensor = lambda *a, **k: FakeTensor(calls, "tensor")  # noqa: E731
    torch.randn = torch.empty_like = torch.zeros = torch.ones_like = tensor  # type: ignore[attr-defined]
    torch.randint = lambda low, high, size, device=None: FakeTensor(calls, "ids")  # type: ignore[attr-defined]
    torch.mm = lambda a, b, out=None: calls.append("mm")  # type: ignore[attr-defined]
    torch.mul = lambda x, s, out=None: calls.append("mul")  # type: ignore[attr-defined]
    torch.add = lambda x, s, out=None: calls.append("add")  # type: ignore[attr-defined]
    torch.inference_mode = contextlib.nullcontext  # type: ignore[attr-defined]
    torch.optim = types.SimpleNamespace(  # type: ignore[attr-defined]
        SGD=lambda params, lr, momentum: types.SimpleNamespace(
            zero_grad=lambda set_to_none=True: calls.append("zero_grad"), step=lambda: calls.append("opt-step")))
    torch.nn = types.SimpleNamespace(CrossEntropyLoss=lambda: (lambda out, labels: FakeTensor(calls, "loss")))  # type: ignore[attr-defined]
    torch.profiler = types.SimpleNamespace(  # type: ignore[attr-defined]
        ProfilerActivity=types.SimpleNamespace(CPU="CPU", CUDA="CUDA"),
        profile=lambda activities=None, profile_memory=False: FakeProfile(calls, activities, profile_memory))
    return torch


@pytest.fixture
def fake_torch(monkeypatch: pytest.MonkeyPatch) -> List[Any]:
    """Installs the stand-ins for torch, torch.profiler, torchvision and transformers;
    returns the list their calls are recorded in."""
    calls: List[Any] = []
    torch = make_fake_torch(calls)
    profiler = types.ModuleType("torch.profiler")
    profiler.ProfilerActivity = torch.profiler.ProfilerActivity  # type: ignore[attr-defined]
    profiler.profile = torch.profiler.profile  # type: ignore[attr-defined]
    torchvision = types.ModuleType("torchvision")
    torchvision.models = types.SimpleNamespace(  # type: ignore[attr-defined]
        resnet50=lambda weights=None: FakeModel(calls, "resnet50"))
    transformers = types.ModuleType("transformers")
    transformers.BertConfig = lambda: types.SimpleNamespace(vocab_size=30522)  # type: ignore[attr-defined]
    transformers.BertModel = lambda config: FakeModel(calls, "bert")  # type: ignore[attr-defined]
    for name, module in (("torch", torch), ("torch.profiler", profiler), ("torchvision", torchvision),
                         ("transformers", transformers)):
        monkeypatch.setitem(sys.modules, name, module)
    return calls

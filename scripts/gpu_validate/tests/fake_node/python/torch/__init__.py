"""A stand-in for torch (tests of scripts/gpu_validate only; no GPU, no PyTorch here).

It has exactly the attributes workloads.py, versions.py and kraken's WorkloadProfiler use,
does no work (a synchronize sleeps 1 ms, as a short GPU step would) and records every call
in `stand_in_calls`, so that tests can check the helpers' control flow: which calls, in
which order, what gets written. It says nothing about PyTorch itself.
"""
import contextlib
import ctypes
import os
import time
import types

__version__ = "0.0+stand-in"
stand_in_calls = []
float16 = "float16"
version = types.SimpleNamespace(cuda="13.0")


def _record(call):
    stand_in_calls.append(call)


class _Tensor:
    def add_(self, value):
        _record("add_")
        return self

    def mul_(self, value):
        _record("mul_")
        return self

    def backward(self):
        _record("backward")


def _tensor(*args, **kwargs):
    return _Tensor()


randn = empty_like = zeros = ones_like = _tensor


def randint(low, high, size, device=None):
    return _Tensor()


def mm(a, b, out=None):
    _record("mm")


def mul(x, scale, out=None):
    _record("mul")


def add(x, value, out=None):
    _record("add")


inference_mode = contextlib.nullcontext


def _synchronize():
    _record("sync")
    if _cuda_call is not None:
        _cuda_call()  # a CUDA call: where the tracer may detach CUPTI after its window
    time.sleep(0.001)


class _Stream:
    def wait_stream(self, other):
        _record("wait_stream")


class _CUDAGraph:
    def replay(self):
        _record("replay")


cuda = types.SimpleNamespace(
    Stream=_Stream,
    current_stream=lambda: _Stream(),
    stream=lambda s: contextlib.nullcontext(),
    CUDAGraph=_CUDAGraph,
    graph=lambda g: contextlib.nullcontext(),
    is_available=lambda: True,
    synchronize=_synchronize,
    get_device_name=lambda index=0: "Stand-in GPU",
    get_device_properties=lambda index=0: types.SimpleNamespace(
        name="Stand-in GPU", major=9, minor=0, multi_processor_count=132, total_memory=80 << 30),
    nvtx=types.SimpleNamespace(range_push=lambda name: _record(("push", name)), range_pop=lambda: _record(("pop",))),
)
backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(benchmark=True, version=lambda: 91000,
                                                             is_available=lambda: True))
optim = types.SimpleNamespace(SGD=lambda params, lr, momentum: types.SimpleNamespace(
    zero_grad=lambda set_to_none=True: _record("zero_grad"), step=lambda: _record("opt-step")))
nn = types.SimpleNamespace(CrossEntropyLoss=lambda: (lambda output, labels: _Tensor()))

from . import profiler  # noqa: E402  (torch.profiler, as in PyTorch)

# What the CUDA driver does when a process starts using CUDA with CUDA_INJECTION64_PATH set
# (as src/collectors/cupti's kraken_fake_cuda_app does): load the library, call its
# InitializeInjection. Only with KRAKEN_CUPTI_LIBRARY set (the tests' fake libcupti), so
# kraken's tracer records made-up kernels for this process.
# A synchronize is then a CUDA call the fake libcupti shows to its subscriber
# (kraken_fake_cuda_api_call).
_cuda_call = None
if os.environ.get("CUDA_INJECTION64_PATH") and os.environ.get("KRAKEN_CUPTI_LIBRARY"):
    ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"]).InitializeInjection()
    _cuda_call = getattr(ctypes.CDLL(os.environ["KRAKEN_CUPTI_LIBRARY"]), "kraken_fake_cuda_api_call", None)

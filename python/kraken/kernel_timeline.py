"""Kernel timelines for :class:`~kraken.WorkloadProfiler` (metric "kernel_timeline").

NVML samples say how busy a GPU was, not which kernels ran. A kernel timeline comes from
one of two recorders, tried in this order:

1. **PyTorch** (``"torch" in sys.modules``): ``torch.profiler`` records the block; its
   Kineto trace is exported to a file and imported by kraken's own Kineto importer.
2. **kraken's CUPTI tracer**, when this process was started with it
   (``CUDA_INJECTION64_PATH`` names ``libkraken_cupti.so``, e.g. under ``kraken profile
   --kernels``): the native session's ``kernel_capture`` (docs/c-api.md) reads the trace
   the tracer writes for this process and merges the session's kernels into the profile.

When neither is possible, a :class:`KernelTimelineWarning` says so and how to enable one,
and the profile has NVML samples only.
"""
from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

from . import _native


class KernelTimelineWarning(UserWarning):
    """No kernel timeline can be recorded in this process."""


class KernelRecorder:
    """Records kernels while a profiler runs; `stop` returns the trace files to import."""

    #: What recorded the timeline, for the report ("torch.profiler", "cupti").
    name = ""

    def start(self) -> None:
        """Starts recording (the profiler's start)."""

    def step(self) -> None:
        """Marks a step boundary (the profiler's step)."""

    def session_options(self) -> Dict[str, Any]:
        """Options this recorder adds to the native session's start (kraken_session_start)."""
        return {}

    def stop(self, directory: Path) -> List[str]:
        """Stops recording; the trace files (in kraken-readable formats) to import."""
        raise NotImplementedError

    def merged_into_run(self, run: Dict[str, Any]) -> bool:
        """Whether the session merged this recorder's kernels into the run's profile
        (`run`: the session's stop document), rather than handing trace files over."""
        return False


class TorchRecorder(KernelRecorder):
    """torch.profiler around the block; the Kineto trace goes to ``torch_trace.json``."""

    name = "torch.profiler"

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.profiler: Any = None
        self.cuda = bool(torch.cuda.is_available())

    def start(self) -> None:
        activities = [self.torch.profiler.ProfilerActivity.CPU]
        if self.cuda:
            activities.append(self.torch.profiler.ProfilerActivity.CUDA)
        else:
            warnings.warn("kernel_timeline: torch.cuda is not available, so torch.profiler records CPU "
                          "operators only (no GPU kernels)", KernelTimelineWarning, stacklevel=4)
        # torch.profiler writes ProfilerStep#N ranges (which kraken's step analysis reads)
        # only when a schedule is given; without one its step() just counts. This
        # schedule records every step of the block, as the schedule-less profile does.
        record = self.torch.profiler.ProfilerAction.RECORD
        self.profiler = self.torch.profiler.profile(activities=activities, schedule=lambda _step: record)
        self.profiler.start()

    def step(self) -> None:
        # ProfilerStep#N ranges: kraken's step-time analysis reads them.
        self.profiler.step()

    def stop(self, directory: Path) -> List[str]:
        # Each step() closes ProfilerStep#N and opens #N+1, so the range open now began at
        # the last step() (at start() when there was none) and stop() closes it: the tail
        # of the block after the last step the caller marked, not a step. Left in, it is
        # one step more than the caller's (and the NVML rank's) and skews the step-time
        # figures. Its number is torch.profiler's step counter.
        open_step = int(self.profiler.step_num)
        self.profiler.stop()
        path = directory / "torch_trace.json"
        self.profiler.export_chrome_trace(str(path))
        drop_profiler_step(path, open_step)
        return [str(path)]


def drop_profiler_step(path: Path, step_number: int) -> bool:
    """Removes the ProfilerStep#`step_number` ranges (its CPU range and the GPU range
    torch.profiler derives from it) from the Kineto trace at `path`, in place. Every other
    event is kept byte for byte. Returns whether any was removed; a file that is not a
    Kineto JSON object is left as it is, for the importer to report.

    The edit is libkraken's (kraken_remove_profiler_step): it streams the trace with
    bounded memory and replaces the file by a rename, never leaving it half-written."""
    return _native.library().remove_profiler_step(os.fspath(path), int(step_number))


def cupti_injected(environ: Optional[Mapping[str, str]] = None) -> bool:
    """Whether this process was started with kraken's CUPTI tracer injected: the native
    session's own check for ``kernel_capture`` (src/app/session_kernels.cc), made first so
    that a process without the tracer gets the warning of :func:`choose_recorder`."""
    env = os.environ if environ is None else environ
    injection = env.get("CUDA_INJECTION64_PATH", "")
    return os.path.basename(injection).startswith("libkraken_cupti")


class CuptiRecorder(KernelRecorder):
    """The kernels the injected tracer writes for this process, through the native
    session's ``kernel_capture``: at stop it waits one flush period of the tracer
    (KRAKEN_CUPTI_FLUSH_MS), reads the trace where the tracer writes it (KRAKEN_CUPTI_OUTPUT)
    and merges the kernels of the session's time into the stored profile."""

    name = "cupti"

    def session_options(self) -> Dict[str, Any]:
        """The session reads the tracer's trace itself (kernel_capture)."""
        return {"kernel_capture": True}

    def stop(self, directory: Path) -> List[str]:
        """No file to add: the session merged the kernels into the run's profile."""
        return []

    def merged_into_run(self, run: Dict[str, Any]) -> bool:
        """Whether the run's "kernels" holds any; else warns with the session's reason (no
        trace, no kernel during the block) and the run has NVML samples only."""
        kernels = run.get("kernels") or {}
        if int(kernels.get("kernels") or 0) > 0:
            return True
        why = kernels.get("note") or "; ".join(kernels.get("problems") or []) or "no kernel was recorded"
        warnings.warn(f"kernel_timeline: {why}", KernelTimelineWarning, stacklevel=4)
        return False


def choose_recorder() -> Optional[KernelRecorder]:
    """The recorder this process can use, or None after a warning saying how to get one."""
    torch = sys.modules.get("torch")
    if torch is not None:
        return TorchRecorder(torch)
    if cupti_injected():
        return CuptiRecorder()
    warnings.warn(
        "kernel_timeline: no kernel timeline can be recorded in this process: PyTorch is not imported and "
        "the process was not started with kraken's CUPTI tracer. Either import torch before starting the "
        "profiler (torch.profiler then records the kernels), or start Python with the tracer: "
        "`kraken profile --kernels -- python SCRIPT` or CUDA_INJECTION64_PATH=/path/to/libkraken_cupti.so "
        "(docs/kernel-capture.md). This profile has NVML samples only.",
        KernelTimelineWarning, stacklevel=4)
    return None

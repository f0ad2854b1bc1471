"""WorkloadProfiler: profile a block of Python code on the GPUs it uses.

The sampling runs in libkraken on a C++ thread (a profiling session, the same code as
``kraken profile``): NVML is read every ``sampling_interval`` ms and each pass is
attributed to this process and its children. No Python code runs while it samples and
the GIL is not needed, so the profiled loop is not slowed by the sampling.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading
import weakref
from pathlib import Path
from types import TracebackType
from typing import Any, List, Optional, Sequence, Type

from . import _native
from .errors import InvalidArgumentError
from .kernel_timeline import KernelRecorder, choose_recorder
from .profile import Profile
from .report import METRIC_SERIES, ProfileSummary, Report, summary_from_document

#: What WorkloadProfiler(metrics=...) accepts.
VALID_METRICS = tuple(METRIC_SERIES) + ("kernel_timeline",)
#: The default metrics: every NVML group (no kernel timeline: it costs tracing overhead).
DEFAULT_METRICS = tuple(METRIC_SERIES)


def _remove_folder(path: str, owner_pid: int) -> None:
    # A forked child (a DataLoader worker) inherits the finalizer: only the process that
    # made the folder removes it.
    if os.getpid() == owner_pid:
        shutil.rmtree(path, ignore_errors=True)


class _Workspace:
    """A private temporary folder for the run's files, removed when the last object that
    holds it (the profiler, its reports) is gone."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="kraken-profile-"))
        self._finalizer = weakref.finalize(self, _remove_folder, str(self.path), os.getpid())


def _interval_text(milliseconds: float) -> str:
    """100 -> "100ms", 12.5 -> "12.5ms" (the library's duration syntax)."""
    if milliseconds <= 0:
        raise ValueError(f"sampling_interval must be > 0 ms, got {milliseconds}")
    if float(milliseconds).is_integer():
        return f"{int(milliseconds)}ms"
    return f"{float(milliseconds):.6f}".rstrip("0").rstrip(".") + "ms"


class WorkloadProfiler:
    """Profiles the GPU use of this process (and its children) while a block runs.

    Example::

        from kraken import WorkloadProfiler
        profiler = WorkloadProfiler(workload_name="bert-training", sampling_interval=100,  # ms
                                    metrics=["gpu_util", "memory", "kernel_timeline", "pcie_bw"])
        with profiler:
            model.train()
        report = profiler.get_report()
        report.save("profile_report.html")
    """

    def __init__(self, workload_name: str, sampling_interval: float = 100,
                 metrics: Sequence[str] = DEFAULT_METRICS, device: Optional[str] = None, db: Any = None, *,
                 store: bool = True, out: Any = None, pids: Optional[Sequence[int]] = None,
                 max_samples: Optional[int] = None, nvml_library: Optional[str] = None,
                 upload_to: Optional[str] = None, token_file: Any = None, upload_spool: Any = None,
                 upload_retry_for: Optional[str] = None, slow_interval: float = 1000) -> None:
        """Args:
            workload_name: names the run (the stored profile's source, the report title).
            sampling_interval: milliseconds between NVML passes.
            metrics: what to collect, any of VALID_METRICS: "gpu_util", "memory",
                "pcie_bw", "nvlink", "power", "clocks" (NVML groups; every pass reads them
                all, the report lists these) and "kernel_timeline" (a kernel timeline
                through torch.profiler or kraken's CUPTI tracer, see kraken.kernel_timeline).
            device: catalog device (``kraken devices``) the analyses compare against;
                default: the one NVML reports.
            db: the profile store to save the run in (default: the CLI's,
                $KRAKEN_STORAGE_PATH, else ~/.local/share/kraken/kraken.db).
            store: False keeps the run out of any store.
            out: also write the profile to this file (kraken export JSON).
            pids: follow these processes' trees instead of this process's.
            max_samples: stop sampling after this many passes.
            nvml_library: the NVML library to load (default $KRAKEN_NVML_LIBRARY, else
                libnvidia-ml.so.1).
            upload_to: also send the profile to this kraken API ("http://HOST:PORT") when
                the session stops, through the on-disk spool with retries (docs/upload.md).
            token_file: file holding that API's bearer token.
            upload_spool: the spool folder (default $XDG_STATE_HOME/kraken/upload-spool).
            upload_retry_for: how long to retry an unreachable API, e.g. "30s".
            slow_interval: milliseconds between a GPU's slow NVML reads (energy, PCIe
                throughput, process utilization), as ``kraken profile --slow-interval``;
                0 reads them every pass.

        Raises:
            ValueError: an unknown metric (the message lists the valid ones), a bad
                interval.
        """
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [m for m in metrics if m not in VALID_METRICS]
        if unknown:
            raise ValueError(f"unknown metric{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                             f"valid metrics: {', '.join(VALID_METRICS)}")
        self.workload_name = workload_name
        self.sampling_interval = sampling_interval
        self.metrics = metrics
        self.device = device
        self.db = None if db is None else os.fspath(db)
        self.store = store
        self.out = None if out is None else os.fspath(out)
        self.pids = list(pids) if pids is not None else None
        self.max_samples = max_samples
        self.nvml_library = nvml_library
        self.upload_to = upload_to
        self.token_file = None if token_file is None else os.fspath(token_file)
        self.upload_spool = None if upload_spool is None else os.fspath(upload_spool)
        self.upload_retry_for = upload_retry_for
        self._interval = _interval_text(sampling_interval)
        if slow_interval < 0:
            raise ValueError(f"slow_interval must be >= 0 ms, got {slow_interval}")
        self._slow_interval = "0" if slow_interval == 0 else _interval_text(slow_interval)
        self._lock = threading.Lock()
        self._handle: Any = None
        self._owner_pid = 0  # the process that started the session
        self._workspace: Optional[_Workspace] = None
        self._recorder: Optional[KernelRecorder] = None
        self._summary: Optional[ProfileSummary] = None
        self._profile_path: Optional[str] = None
        self._traces: List[str] = []
        self._recorder_name: Optional[str] = None

    # ---- lifecycle -----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether sampling has started and not been stopped."""
        return self._handle is not None

    @property
    def passes_taken(self) -> int:
        """The sampling passes taken so far: while running, read from the sampling thread
        (with ``max_samples`` set, a caller can wait until all are taken instead of guessing
        how long a loaded machine needs); after stop, the run's; 0 before any run."""
        with self._lock:
            if self._handle is not None:
                return _native.library().session_passes(self._handle)
            return self._summary.passes if self._summary is not None else 0

    def start(self) -> "WorkloadProfiler":
        """Starts sampling (and kernel recording). Returns self.

        Raises:
            KrakenError: NVML cannot be loaded (the library's message), or the profiler
                runs already.
        """
        with self._lock:
            if self._handle is not None:
                raise InvalidArgumentError(f"profiler {self.workload_name!r} is running already", 7)
            workspace = _Workspace()
            profile_path = self.out or str(workspace.path / "profile.json")
            options = {"name": self.workload_name, "interval": self._interval, "slow_interval": self._slow_interval,
                       "store": self.store,
                       "db": self.db, "out": profile_path, "pids": self.pids, "samples": self.max_samples,
                       "nvml_library": self.nvml_library}
            if self.upload_to is not None:
                options.update({"upload_to": self.upload_to, "token_file": self.token_file,
                                "upload_spool": self.upload_spool, "upload_retry_for": self.upload_retry_for})
            recorder = choose_recorder() if "kernel_timeline" in self.metrics else None
            if recorder is not None:
                options.update(recorder.session_options())
            handle = _native.library().session_start(options)
            if recorder is not None:
                try:
                    recorder.start()
                except BaseException:
                    _native.library().session_free(handle)  # nothing half-started is left
                    raise
            self._handle = handle
            self._recorder = recorder
            self._owner_pid = os.getpid()
            self._workspace = workspace
            self._profile_path = profile_path
            self._summary = None
            self._traces = []
        return self

    def step(self) -> None:
        """Ends the current step and begins the next (steps are stored as step
        annotations; with torch.profiler recording, also ``profiler.step()``). Cheap: one
        C call, no Python work on the sampling side."""
        # Under the lock: stop() frees the session, which must not race with a step
        # from another thread (include/kraken/kraken.h).
        with self._lock:
            handle = self._require_running("step")
            _native.library().session_step(handle)
            if self._recorder is not None:
                self._recorder.step()

    def mark(self, name: str) -> None:
        """Begins a phase named `name` now; the phase before it ends now (phases are
        stored as profiler ranges)."""
        with self._lock:
            handle = self._require_running("mark")
            _native.library().session_mark(handle, name)

    def stop(self) -> ProfileSummary:
        """Stops sampling, saves the run and returns its summary (``kraken profile --json``).

        Raises:
            KrakenError: the profiler is not running, or saving failed.
        """
        with self._lock:
            handle = self._require_running("stop")
            self._handle = None
            recorder, self._recorder = self._recorder, None
            self._recorder_name = None
            try:
                text = _native.library().session_stop(handle)
            finally:
                _native.library().session_free(handle)
                # After sampling stopped, so writing the trace is not profiled; also when
                # saving failed, so that no recorder is left running.
                if recorder is not None and self._workspace is not None:
                    self._traces = recorder.stop(self._workspace.path)
                    self._recorder_name = recorder.name if self._traces else None
            document = _native.load_json(text)
            if recorder is not None and recorder.merged_into_run(document):
                self._recorder_name = recorder.name  # the kernels are in the stored profile
            self._summary = summary_from_document(document)
            return self._summary

    def __enter__(self) -> "WorkloadProfiler":
        return self.start()

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        # Stopped even when the block raised: what was measured is kept; the block's
        # exception propagates.
        if self._handle is not None:
            self.stop()

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        # A forked child holds a copy of the handle without the sampling thread: only the
        # process that started the session may free it (docs/c-api.md).
        if handle is not None and getattr(self, "_owner_pid", 0) == os.getpid():
            try:
                _native.library().session_free(handle)  # stops without saving
            except Exception:
                pass

    def _require_running(self, call: str) -> Any:
        handle = self._handle
        if handle is None:
            raise InvalidArgumentError(f"WorkloadProfiler.{call}(): profiler {self.workload_name!r} is not running "
                                       "(use it as `with profiler:` or call start() first)", 7)
        if self._owner_pid != os.getpid():
            raise InvalidArgumentError(f"WorkloadProfiler.{call}(): profiler {self.workload_name!r} was started by "
                                       f"process {self._owner_pid}; this forked child cannot {call} it (children "
                                       "are profiled as descendants of that process)", 7)
        return handle

    # ---- results ---------------------------------------------------------------------------

    @property
    def summary(self) -> ProfileSummary:
        """The run summary of the last stop()."""
        if self._summary is None:
            raise InvalidArgumentError(f"profiler {self.workload_name!r} has not been stopped yet", 7)
        return self._summary

    def get_report(self) -> Report:
        """The report of the last run: run summary, analysis, diagnoses; ``save()`` writes
        HTML or JSON.

        Raises:
            KrakenError: the profiler has not run and stopped yet.
        """
        summary = self.summary
        assert self._profile_path is not None
        stored = summary.stored or {}
        if stored.get("profile_id") is not None:
            # The stored profile keeps the steps and phases; the export file's importer
            # reads only its series (docs/store.md), so prefer the store.
            inputs, db = [str(stored["profile_id"])], stored.get("db")
        else:
            inputs, db = [self._profile_path], None
        return Report(self.workload_name, summary, inputs + self._traces, metrics=self.metrics, device=self.device,
                      kernel_timeline=self._recorder_name, db=db, workspace=self._workspace)

    def get_profile(self) -> Profile:
        """The whole recorded profile (series of every GPU and of the profiled processes)."""
        self.summary  # raises when not stopped
        assert self._profile_path is not None
        profile = Profile.from_file(self._profile_path)
        stored = self.summary.stored or {}
        profile.id = stored.get("profile_id")
        profile.keep_alive = self._workspace  # its file lives in the run's temporary folder
        return profile

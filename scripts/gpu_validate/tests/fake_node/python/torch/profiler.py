"""torch.profiler stand-in with PyTorch's step semantics (as its documentation and
torch/profiler/profiler.py describe them), so that the tests catch what the GPU run met:
- ProfilerStep#N ranges are recorded only when a `schedule` is given (without one PyTorch
  keeps recording but marks no steps: run 1's traces had none);
- `schedule(wait, warmup, active, repeat)` says per step number whether to record, and the
  last active step of a cycle is RECORD_AND_SAVE: when it ends (step() or exit) the trace
  stops and `on_trace_ready(prof)` is called, once per cycle;
- export_chrome_trace writes the steps of the last stopped cycle.
It records calls in torch.stand_in_calls; it measures nothing."""
import json
import time

from . import _record

ProfilerActivity = type("ProfilerActivity", (), {"CPU": "CPU", "CUDA": "CUDA"})


class ProfilerAction:
    NONE, WARMUP, RECORD, RECORD_AND_SAVE = "NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE"


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    _record(("schedule", wait, warmup, active, repeat))
    cycle = wait + warmup + active

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


class profile:  # noqa: N801 - PyTorch's name
    def __init__(self, activities=None, profile_memory=False, schedule=None, on_trace_ready=None, **kwargs):
        self.record_steps = schedule is not None
        self.schedule = schedule or (lambda step: ProfilerAction.RECORD)
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.action = self.schedule(0)
        self.cycle = None  # ProfilerStep numbers of the cycle being recorded
        self.saved = []  # those of the last stopped cycle
        self.start_us = time.time() * 1e6
        _record(("profile", tuple(activities or ()), profile_memory))

    def _end_step(self):
        if self.record_steps and self.cycle is not None:
            self.cycle.append(self.step_num)

    def _stop_cycle(self):
        self.saved, self.cycle = self.cycle or [], None
        _record("trace-ready")
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def start(self):
        _record("profile-start")
        if self.action in _RECORDING:
            self.cycle = []

    def stop(self):
        _record("profile-stop")
        self._end_step()
        if self.cycle is not None:
            self._stop_cycle()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def step(self):
        self._end_step()
        previous = self.action
        self.step_num += 1
        self.action = self.schedule(self.step_num)
        if previous == ProfilerAction.RECORD_AND_SAVE:
            self._stop_cycle()
        if self.action in _RECORDING and self.cycle is None:
            self.cycle = []

    def export_chrome_trace(self, path):
        _record(("export", path))
        events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "ts": self.start_us + i * 10.0,
                   "dur": 9.0, "pid": 1, "tid": 1} for i in self.saved]
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "traceEvents": events}, f)

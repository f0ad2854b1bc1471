"""torch.profiler stand-in: counts steps; exports a Chrome trace with its ProfilerSteps."""
import json
import time

from . import _record

ProfilerActivity = type("ProfilerActivity", (), {"CPU": "CPU", "CUDA": "CUDA"})


class profile:  # noqa: N801 - PyTorch's name
    def __init__(self, activities=None, profile_memory=False, **kwargs):
        self.steps = 0
        self.start_us = time.time() * 1e6
        _record(("profile", tuple(activities or ()), profile_memory))

    def start(self):
        _record("profile-start")

    def stop(self):
        _record("profile-stop")

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def step(self):
        self.steps += 1

    def export_chrome_trace(self, path):
        events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "ts": self.start_us + i * 10.0,
                   "dur": 9.0, "pid": 1, "tid": 1} for i in range(self.steps)]
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "traceEvents": events}, f)

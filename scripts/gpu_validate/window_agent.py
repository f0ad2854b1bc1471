"""`kraken agent` run beside a workload worker for windows.py's agent-overhead windows:
started at one sampling interval, its /metrics scraped every second in a thread (the
pass durations and counts the figures report), stopped with SIGTERM.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
import urllib.request
from typing import Dict, List, Optional

def scrape(url: str) -> Dict[str, float]:
    """kraken_agent_* values of one /metrics scrape, by metric name (labels dropped)."""
    with urllib.request.urlopen(url, timeout=2) as response:
        text = response.read().decode()
    values = {}
    for line in text.splitlines():
        if line.startswith("kraken_agent_"):  # NAME{Hostname="..."} VALUE
            head, _, value = line.rpartition(" ")
            try:
                values[head.split("{", 1)[0]] = float(value)
            except ValueError:
                pass
    return values


class Agent:
    """`kraken agent` at one interval, with /metrics scraped every second in a thread."""

    def __init__(self, kraken: str, interval: str, out_dir: str) -> None:
        self.log_path = os.path.join(out_dir, f"agent-{interval}.log")
        self.db = os.path.join(out_dir, f"agent-{interval}.db")
        self.argv = [kraken, "agent", "--listen", "127.0.0.1:0", "--interval", interval, "--db", self.db,
                     "--retention", "0"]
        self.process: Optional[subprocess.Popen] = None
        self.url = ""
        self.scrapes: List[Dict[str, float]] = []
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def start(self, timeout_s: float = 20) -> str:
        """Starts it and waits for its first pass; '' when ready, else why not."""
        with open(self.log_path, "w", encoding="utf-8") as log:
            self.process = subprocess.Popen(self.argv, stdout=log, stderr=log)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.process.poll() is None:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                found = re.search(r"serving (http://[0-9.]+:[0-9]+/metrics)", f.read())
            if found:
                self.url = found.group(1)
                try:
                    if scrape(self.url).get("kraken_agent_samples_total", 0) >= 1:
                        break
                except OSError:
                    pass
            time.sleep(0.1)
        if not self.url or self.process.poll() is not None:
            return f"kraken agent did not start (log {os.path.basename(self.log_path)})"
        self._thread = threading.Thread(target=self._scrape_loop, daemon=True)
        self._thread.start()
        return ""

    def _scrape_loop(self) -> None:
        while not self._stop.wait(1.0):
            try:
                values = scrape(self.url)
                values["time_unix"] = time.time()
                self.scrapes.append(values)
            except OSError:
                pass

    def stop(self) -> Optional[int]:
        """SIGTERM (the agent commits and exits 0); returns its exit code."""
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

#!/usr/bin/env python3
"""How long `import kraken` takes in a fresh interpreter (target: < 100 ms).

    PYTHONPATH=build/python python3 bench/python_import_time.py [RUNS]

Each run is a new process that times only the import statement (the interpreter's own
start is not counted); the library is not loaded by the import (it is on first use), so
the first call's load is timed separately. Prints the median, min and max in ms.
"""
from __future__ import annotations

import statistics
import subprocess
import sys

IMPORT = "import time; t = time.perf_counter(); import kraken; print((time.perf_counter() - t) * 1e3)"
LOAD = ("import time, kraken; t = time.perf_counter(); kraken.library_version(); "
        "print((time.perf_counter() - t) * 1e3)")


def measure(code: str, runs: int) -> list:
    return [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
            for _ in range(runs)]


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    imports = measure(IMPORT, runs)
    loads = measure(LOAD, runs)
    print(f"import kraken ({runs} fresh interpreters, {sys.executable}): median {statistics.median(imports):.1f} ms, "
          f"min {min(imports):.1f} ms, max {max(imports):.1f} ms (target < 100 ms)")
    print(f"first call, loading libkraken.so: median {statistics.median(loads):.1f} ms, min {min(loads):.1f} ms")


if __name__ == "__main__":
    main()

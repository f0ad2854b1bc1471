#!/usr/bin/env python3
"""kraken around a PyTorch training loop, with the kernel timeline from torch.profiler.

    python3 examples/python/train_with_torch.py [--out DIR] [--steps N]

With PyTorch installed, a small MLP trains for N steps (on the GPU when there is one)
inside WorkloadProfiler(metrics=[..., "kernel_timeline"]): NVML samples the GPU, and
torch.profiler records the kernels, which kraken imports into the same report. Without
PyTorch the torch part is skipped (said so) and the same profiler runs around a plain
Python loop, so the script runs anywhere the kraken package does (NVML replay included,
see profile_and_analyze.py).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

try:
    import torch
except ImportError:
    torch = None

import kraken


def train_step_torch(model, optimizer, batch, target) -> None:
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(batch), target)
    loss.backward()
    optimizer.step()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="folder for the HTML report")
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    metrics = ["gpu_util", "memory", "pcie_bw"]
    if torch is None:
        print("PyTorch is not installed: skipping the torch part (no model, no kernel timeline); "
              "profiling a plain Python loop instead")
    else:
        metrics.append("kernel_timeline")
    profiler = kraken.WorkloadProfiler(workload_name="mlp-training", sampling_interval=50, metrics=metrics,
                                       store=False)
    if torch is not None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
        model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024))
        model = model.to(device)
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
        batch = torch.randn(256, 1024, device=device)
        target = torch.randn(256, 1024, device=device)
        with profiler:
            for _ in range(args.steps):
                train_step_torch(model, optimizer, batch, target)
                profiler.step()
            if device == "cuda":
                torch.cuda.synchronize()
    else:
        with profiler:
            for _ in range(args.steps):
                deadline = time.monotonic() + 0.02
                while time.monotonic() < deadline:
                    sum(range(1000))
                profiler.step()

    summary = profiler.summary
    print(f"{summary.passes} NVML passes, {len(summary.gpus)} GPU(s) used, "
          f"memory peak {summary.memory_peak_bytes / 2**30:.2f} GiB")
    report = profiler.get_report()
    print(f"kernel timeline: {report.kernel_timeline or 'none'}")
    for diagnosis in report.diagnoses:
        print(f"  [{diagnosis.severity}] {diagnosis.summary}")
    print(f"report: {report.save(out / 'mlp-training.html')}")


if __name__ == "__main__":
    main()

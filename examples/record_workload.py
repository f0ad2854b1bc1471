"""Records the PyTorch profiler traces kraken ships as examples.

A small convolutional network is trained for a few steps and then run in inference
mode, each under torch.profiler with ProfilerStep annotations, so the traces show a
training step structure (forward, backward, optimizer) and a forward-only workload.
Usage: python3 record_workload.py OUT_DIR
"""
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule


def model():
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10))


def record(out_dir, name, step_fn, steps=8):
    sched = schedule(wait=1, warmup=2, active=steps - 3, repeat=1)
    path = os.path.join(out_dir, f"{name}.pt.trace.json.gz")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched,
                 record_shapes=True, profile_memory=True,
                 on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for _ in range(steps):
            step_fn()
            prof.step()
    return path


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    device = torch.device("cuda")
    net = model().to(device)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    # Pinned host batches copied each step, as a data loader with pin_memory does.
    images = torch.randn(64, 3, 64, 64).pin_memory()
    labels = torch.randint(0, 10, (64,)).pin_memory()

    def train_step():
        x = images.to(device, non_blocking=True)
        y = labels.to(device, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()

    def infer_step():
        with torch.inference_mode():
            net(images.to(device, non_blocking=True))
        torch.cuda.synchronize()

    print(record(out_dir, "train", train_step))
    net.eval()
    print(record(out_dir, "infer", infer_step))


if __name__ == "__main__":
    main()

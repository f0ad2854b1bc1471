#!/usr/bin/env python3
"""Writes a synthetic cluster's DCGM history as OpenMetrics, derived from real captures.

The series are not invented: each one is a real measurement of ../shared/data, moved in
time and mixed over GPUs (docs/prometheus-scale.md gives the full recipe):

* Shape over time: alibaba-genai-v2026's per-pod GPU duty cycle and GPU memory used
  (143 Stable-Diffusion serving pods, one sample every ~57 s over 22.8 h). GPU number
  i = node * gpus + gpu follows pod (i * 7 + node) mod P of the P pods with >= 1000 duty
  samples, read cyclically (period 22.8 h) and shifted by (i * 3571) mod 82080 s, so no
  two GPUs of a node move in lockstep. At time t the GPU's duty cycle is the pod's newest
  sample at or before (t + shift) mod period.
* Labels and levels: even nodes are the A100 of dcgm/a100-mig_*.prom (its label set,
  its framebuffer total 4845 + 35690 MiB, its tensor/engine activity ratio 0.92926 /
  0.99563, its 409.692 W at 99.563 % engine activity), odd nodes the T4 of
  dcgm/t4-a10g_*.txt, host 424773df46e0 (label set with modelName and driver version,
  framebuffer 15109 MiB, 8.969 W idle). The UUID keeps the capture's first 24 digits; the
  last 12 are the GPU number.
* Values: A100: DCGM_FI_PROF_GR_ENGINE_ACTIVE = duty, PIPE_TENSOR_ACTIVE = duty x the
  capture's ratio, POWER_USAGE = 409.692 x (0.25 + 0.75 x duty / 0.99563); T4:
  DCGM_FI_DEV_GPU_UTIL = round(duty x 100), POWER_USAGE = 8.969 x (1 + 6.8 x duty) (70 W,
  the T4's board power, at full duty). Both: FB_USED = the pod's memory used x total /
  48 GiB (the trace's maximum is 47.3 GiB), FB_FREE = total - FB_USED, in MiB.
* Pods: an A100 node is one 8-GPU pod of namespace "training" under the label spelling
  of dcgm-exporter scraped without honorLabels (exported_namespace/exported_pod, with
  namespace/pod naming the exporter); each T4 GPU is a pod of "inference", "research" or
  "batch" (by node) under namespace/pod, except GPU 7 of every fifth odd node: no pod.

Streams: one family, GPU and timestamp after another, nothing held but the shapes.
"""
from __future__ import annotations

import argparse
import bisect
import csv
import gzip
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Iterator, TextIO

GENAI_PERIOD_S = 1662940800 - 1662858720  # the trace's span: 22.8 h
MIN_SAMPLES = 1000
TRACE_MAX_MEMORY_MIB = 48 * 1024
T4_NAMESPACES = ("inference", "research", "batch")
A100_CAPTURE = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom"
T4_CAPTURE = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt"
LINE = re.compile(r'^(\w+)\{([^}]*)\}\s+(\S+)')
LABEL = re.compile(r'(\w+)="([^"]*)"')


@dataclass
class Shape:
    """One genai pod's series: sample times (s from the trace's start) and values."""
    times: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)

    def at(self, t: float) -> float:
        """The newest value at or before t (read cyclically over the trace's period)."""
        i = bisect.bisect_right(self.times, t % GENAI_PERIOD_S) - 1
        return self.values[i] if i >= 0 else self.values[-1]


@dataclass
class Template:
    """The GPU a capture describes: its label set (Hostname, gpu, UUID, device replaced)."""
    model: str
    labels: list[tuple[str, str]]
    fb_total_mib: float
    values: dict[str, float]


def read_shapes(path: str, value_column: str) -> dict[str, Shape]:
    """Per container_ip, the series of one genai CSV, sorted by time."""
    rows: dict[str, list[tuple[float, float]]] = {}
    with gzip.open(path, "rt", newline="") as f:
        for row in csv.DictReader(f):
            t = float(row["timestamp_anon"]) - 1662858720
            rows.setdefault(row["container_ip"], []).append((t, float(row[value_column])))
    shapes = {}
    for ip, points in rows.items():
        points.sort()
        shapes[ip] = Shape([p[0] for p in points], [p[1] for p in points])
    return shapes


def read_template(path: str, model: str, hostname: str) -> Template:
    """The whole-GPU lines of one host of a dcgm-exporter capture."""
    labels: list[tuple[str, str]] = []
    values: dict[str, float] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            pairs = LABEL.findall(m.group(2))
            names = dict(pairs)
            if names.get("Hostname") != hostname or "GPU_I_ID" in names:
                continue
            values[m.group(1)] = float(m.group(3))
            labels = [(k, v) for k, v in pairs if k not in ("DCGM_FI_PROCESS_NAME",)]
    if not values:
        sys.exit(f"prometheus_scale_data: {path}: no whole-GPU lines of host {hostname}")
    total = values["DCGM_FI_DEV_FB_USED"] + values["DCGM_FI_DEV_FB_FREE"]
    return Template(model, labels, total, values)


@dataclass
class Gpu:
    """One synthetic GPU: its series' label text (without the metric name) and shapes."""
    template: Template
    labels: str
    duty: Shape
    memory: Shape
    shift_s: int


def gpu_labels(template: Template, node: int, gpu: int, index: int) -> str:
    """The capture's label set for node/gpu, with the pod labels of docs/prometheus-scale.md."""
    out = []
    for name, value in template.labels:
        if name == "Hostname":
            value = f"node-{node:04d}"
        elif name == "gpu":
            value = str(gpu)
        elif name == "device":
            value = f"nvidia{gpu}"
        elif name == "UUID":
            value = value[:-12] + f"{index:012x}"
        out.append(f'{name}="{value}"')
    if template.model == "A100":
        out += [f'exported_namespace="training"', f'exported_pod="train-{node:04d}"',
                'namespace="gpu-operator"', f'pod="nvidia-dcgm-exporter-{node:04d}"']
    elif not (gpu == 7 and node % 10 == 1):
        namespace = T4_NAMESPACES[(node // 2) % len(T4_NAMESPACES)]
        out += [f'namespace="{namespace}"', f'pod="{namespace}-{node:04d}-{gpu}"']
    return "{" + ",".join(out) + "}"


def build_gpus(data_dir: str, nodes: int, gpus_per_node: int) -> list[Gpu]:
    genai = os.path.join(data_dir, "alibaba-genai-v2026")
    duty = read_shapes(os.path.join(genai, "pod_gpu_duty_cycle_anon.csv.gz"), "value")
    memory = read_shapes(os.path.join(genai, "pod_gpu_memory_used_bytes_anon.csv.gz"), "value")
    pods = sorted(ip for ip, s in duty.items() if len(s.times) >= MIN_SAMPLES and ip in memory)
    a100 = read_template(os.path.join(data_dir, A100_CAPTURE), "A100", "ub20-a100-k8s")
    t4 = read_template(os.path.join(data_dir, T4_CAPTURE), "T4", "424773df46e0")
    gpus = []
    for node in range(nodes):
        template = a100 if node % 2 == 0 else t4
        for gpu in range(gpus_per_node):
            index = node * gpus_per_node + gpu
            pod = pods[(index * 7 + node) % len(pods)]
            gpus.append(Gpu(template, gpu_labels(template, node, gpu, index), duty[pod], memory[pod],
                            (index * 3571) % GENAI_PERIOD_S))
    return gpus


FAMILIES = ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_DEV_GPU_UTIL",
            "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_POWER_USAGE")
A100_FAMILIES = set(FAMILIES) - {"DCGM_FI_DEV_GPU_UTIL"}
T4_FAMILIES = {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_POWER_USAGE"}


def family_value(gpu: Gpu, family: str, t: int) -> str:
    """One family's value text for one GPU at Unix time t (the recipe of the docstring)."""
    v = gpu.template.values
    if family in ("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE"):
        total = gpu.template.fb_total_mib
        used = min(total, gpu.memory.at(t + gpu.shift_s) / 1048576 * total / TRACE_MAX_MEMORY_MIB)
        return f"{used:.0f}" if family == "DCGM_FI_DEV_FB_USED" else f"{total - used:.0f}"
    duty = min(100.0, max(0.0, gpu.duty.at(t + gpu.shift_s))) / 100.0
    if family == "DCGM_FI_DEV_GPU_UTIL":
        return f"{round(duty * 100)}"
    if family == "DCGM_FI_PROF_GR_ENGINE_ACTIVE":
        return f"{duty:.6f}"
    busy = v.get("DCGM_FI_PROF_GR_ENGINE_ACTIVE", 0.0)
    if family == "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE":
        return f"{duty * v['DCGM_FI_PROF_PIPE_TENSOR_ACTIVE'] / busy:.6f}"
    if gpu.template.model == "A100":
        return f"{v['DCGM_FI_DEV_POWER_USAGE'] * (0.25 + 0.75 * duty / busy):.3f}"
    return f"{v['DCGM_FI_DEV_POWER_USAGE'] * (1 + 6.8 * duty):.3f}"


def write_openmetrics(out: TextIO, gpus: list[Gpu], start_s: int, end_s: int, step_s: int) -> int:
    """Samples at start_s, start_s + step, ... < end_s, family by family; returns the count."""
    count = 0
    times = range(start_s, end_s, step_s)
    for family in FAMILIES:
        out.write(f"# TYPE {family} gauge\n")
        for gpu in gpus:
            if family not in (A100_FAMILIES if gpu.template.model == "A100" else T4_FAMILIES):
                continue
            prefix = family + gpu.labels + " "
            out.write("".join(f"{prefix}{family_value(gpu, family, t)} {t}\n" for t in times))
            count += len(times)
    out.write("# EOF\n")
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--gpus-per-node", type=int, default=8)
    parser.add_argument("--start", type=int, required=True, help="first sample, Unix s")
    parser.add_argument("--end", type=int, required=True, help="end of the range (exclusive), Unix s")
    parser.add_argument("--step", type=int, default=300, help="seconds between samples")
    parser.add_argument("--data-dir", default=os.environ.get("KRAKEN_DATA_DIR", "../shared/data"))
    args = parser.parse_args()
    gpus = build_gpus(args.data_dir, args.nodes, args.gpus_per_node)
    n = write_openmetrics(sys.stdout, gpus, args.start, args.end, args.step)
    print(f"prometheus_scale_data: {n} samples", file=sys.stderr)


if __name__ == "__main__":
    main()

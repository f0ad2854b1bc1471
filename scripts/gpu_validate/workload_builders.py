"""The workloads of workloads.py, built and ready to step: one step function each plus
what a step is worth (items, their unit, the facts a result reports).

Kept apart from workloads.py's command line and measurement so that each stays short;
torch (and torchvision / transformers) is imported only when a torch workload is built,
so that importing this module needs neither torch nor a GPU.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional


class Workload:
    """One step function plus what a step is worth."""

    def __init__(self, name: str, step: Callable[[], None], items_per_step: float, unit: str,
                 facts: Dict[str, Any], stand_in: bool = False) -> None:
        self.name = name
        self.step = step
        self.items_per_step = items_per_step
        self.unit = unit
        self.facts = facts
        self.stand_in = stand_in


def build_cpu_spin(batch: Optional[int]) -> Workload:
    """A fixed amount of pure-Python work per step (no torch, no GPU)."""
    spins = batch or 20000

    def step() -> None:
        total = 0
        for i in range(spins):
            total += i & 7
        if total < 0:  # never: keeps the loop from being optimized away by a clever runtime
            raise RuntimeError("impossible")

    return Workload("cpu-spin", step, float(spins), "spins", {"spins_per_step": spins}, stand_in=True)


class TorchSetup:
    """What every torch workload's builder gets: torch, the device, its synchronization
    (a no-op off CUDA) and the facts shared by all (torch version, device name)."""

    def __init__(self, torch: Any, device: str, facts: Dict[str, Any]) -> None:
        self.torch = torch
        self.device = device
        self.sync: Callable[[], None] = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
        self.facts = facts


def build_resnet50_train(setup: TorchSetup, name: str, batch: Optional[int]) -> Workload:
    """ResNet-50 training steps (forward, backward, SGD) on random images."""
    import torchvision

    torch, device, sync, facts = setup.torch, setup.device, setup.sync, setup.facts
    batch = batch or 64
    model = torchvision.models.resnet50(weights=None).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    images = torch.randn(batch, 3, 224, 224, device=device)
    labels = torch.randint(0, 1000, (batch,), device=device)
    facts.update(model="torchvision resnet50, random weights", input="random 3x224x224, fp32", batch=batch)

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        loss_fn(model(images), labels).backward()
        optimizer.step()
        sync()

    return Workload(name, step, float(batch), "images", facts)


def build_bert_infer(setup: TorchSetup, name: str, batch: Optional[int]) -> Workload:
    """BERT-base fp16 inference requests on random token ids."""
    from transformers import BertConfig, BertModel

    torch, device, sync, facts = setup.torch, setup.device, setup.sync, setup.facts
    batch = batch or 16
    sequence = 128
    config = BertConfig()  # bert-base-uncased's shape; random weights, nothing downloaded
    model = BertModel(config).to(device).half().eval()
    ids = torch.randint(0, config.vocab_size, (batch, sequence), device=device)
    mask = torch.ones_like(ids)
    facts.update(model="transformers BertModel(BertConfig()) = bert-base, random weights, fp16",
                 input=f"random token ids, sequence {sequence}", batch=batch, sequence=sequence)

    def step() -> None:
        with torch.inference_mode():
            model(input_ids=ids, attention_mask=mask)
        sync()

    return Workload(name, step, float(batch), "sequences", facts)


def build_elementwise(setup: TorchSetup, name: str, batch: Optional[int]) -> Workload:
    """Memory-bound elementwise kernels (mul, add) on a large fp32 tensor."""
    torch, device, sync, facts = setup.torch, setup.device, setup.sync, setup.facts
    elements = (batch or 64) << 20  # batch = Mi elements (fp32)
    x = torch.randn(elements, device=device)
    y = torch.empty_like(x)
    ops = 20
    facts.update(tensor=f"{elements} fp32 elements", kernels_per_step=ops,
                 bytes_per_kernel=3 * 4 * elements)

    def step() -> None:
        for _ in range(ops // 2):
            torch.mul(x, 1.0001, out=y)
            torch.add(y, -0.0001, out=x)
        sync()

    # mul/add read one tensor and write one: 2 x 4 bytes per element per kernel.
    return Workload(name, step, ops * 2 * 4 * elements / 1e9, "GB", facts)


def build_gemm(setup: TorchSetup, name: str, batch: Optional[int]) -> Workload:
    """Compute-bound fp16 matrix products."""
    torch, device, sync, facts = setup.torch, setup.device, setup.sync, setup.facts
    n = batch or 8192  # batch = matrix size
    a = torch.randn(n, n, device=device, dtype=torch.float16)
    b = torch.randn(n, n, device=device, dtype=torch.float16)
    c = torch.empty_like(a)
    per_step = 4
    facts.update(matrix=f"{n}x{n} fp16", matmuls_per_step=per_step)

    def step() -> None:
        for _ in range(per_step):
            torch.mm(a, b, out=c)
        sync()

    return Workload(name, step, per_step * 2.0 * n ** 3 / 1e12, "TFLOP", facts)


def build_add_loop(setup: TorchSetup, name: str, batch: Optional[int]) -> Workload:
    """small-kernels (launch-bound: 1024 elements) or short-kernels (4Mi elements): the
    same loop of in-place adds."""
    torch, device, sync, facts = setup.torch, setup.device, setup.sync, setup.facts
    kernels = batch or 200
    elements = 1024 if name == "small-kernels" else 4 << 20
    x = torch.zeros(elements, device=device)
    facts.update(tensor=f"{elements} fp32 elements", kernels_per_step=kernels)

    def step() -> None:
        for _ in range(kernels):
            x.add_(1.0)
        sync()

    return Workload(name, step, float(kernels), "kernels", facts)


def build_graph_kernels(setup: TorchSetup, name: str, batch: Optional[int]) -> Workload:
    """graph-kernels: a CUDA graph of adds and multiplies, captured once, one replay a step
    (phase 9: does the tracer see each replayed kernel, and what do the per-kernel counters,
    which pair kernels with ranges by launch, make of kernels no launch call announces?)."""
    torch, device, sync, facts = setup.torch, setup.device, setup.sync, setup.facts
    pairs = (batch or 50) // 2
    x = torch.zeros(1 << 20, device=device)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):  # warm-up off the default stream, as torch's graph docs ask
        x.add_(1.0)
        x.mul_(1.0)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(pairs):
            x.add_(1.0)
            x.mul_(0.5)
    sync()
    facts.update(tensor="1Mi fp32 elements", kernels_per_step=2 * pairs, graph_nodes=2 * pairs)

    def step() -> None:
        graph.replay()
        sync()

    return Workload(name, step, float(2 * pairs), "kernels", facts)


def build_threads_kernels(setup: TorchSetup, name: str, batch: Optional[int]) -> Workload:
    """threads-kernels: two threads launching at once, each on its own stream: adds on 1 Mi
    elements and multiplies on 4 Mi (so that their FLOP counts tell which kernel a counter
    range measured: the per-kernel counters' pairing with several launching threads)."""
    import threading

    torch, device, sync, facts = setup.torch, setup.device, setup.sync, setup.facts
    per_thread = (batch or 100) // 2
    work = [(torch.zeros(1 << 20, device=device), "add_"), (torch.zeros(4 << 20, device=device), "mul_")]
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    barrier = threading.Barrier(3)

    def launcher(index: int) -> None:
        # A daemon: it waits at the barrier for the next step until the process ends.
        tensor, method = work[index]
        with torch.cuda.stream(streams[index]):
            while True:
                barrier.wait()
                for _ in range(per_thread):
                    getattr(tensor, method)(1.0)
                barrier.wait()

    threads = [threading.Thread(target=launcher, args=(i,), daemon=True) for i in (0, 1)]
    for t in threads:
        t.start()
    facts.update(kernels_per_step=2 * per_thread, threads=2,
                 tensors="adds on 1Mi fp32 elements, multiplies on 4Mi, one stream each")

    def step() -> None:
        barrier.wait()  # both threads launch
        barrier.wait()  # both are done launching
        sync()

    return Workload(name, step, float(2 * per_thread), "kernels", facts)


#: Torch workload name -> its builder.
TORCH_BUILDERS: Dict[str, Callable[[TorchSetup, str, Optional[int]], Workload]] = {
    "resnet50-train": build_resnet50_train,
    "bert-infer": build_bert_infer,
    "elementwise": build_elementwise,
    "gemm": build_gemm,
    "small-kernels": build_add_loop,
    "short-kernels": build_add_loop,
    "graph-kernels": build_graph_kernels,
    "threads-kernels": build_threads_kernels,
}


def build_torch_workload(name: str, batch: Optional[int], device: str) -> Workload:
    """The torch workloads; imports torch (and torchvision / transformers) only here."""
    import torch

    # Deterministic kernel choice: the CUPTI and torch.profiler runs must launch the same kernels.
    torch.backends.cudnn.benchmark = False
    facts: Dict[str, Any] = {"torch": torch.__version__, "device": device}
    if device.startswith("cuda"):
        facts["device_name"] = torch.cuda.get_device_name(0)
    builder = TORCH_BUILDERS.get(name)
    if builder is None:
        raise ValueError(f"unknown workload {name}")
    return builder(TorchSetup(torch, device, facts), name, batch)


def build_workload(name: str, batch: Optional[int], device: str) -> Workload:
    """The workload `name`, built and ready to step."""
    if name == "cpu-spin":
        return build_cpu_spin(batch)
    return build_torch_workload(name, batch, device)

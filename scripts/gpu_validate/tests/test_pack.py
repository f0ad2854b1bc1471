"""pack.py keeps within what the device tool brings back: file count, size per file,
total; what does not fit is left out and listed, the important files first."""
from __future__ import annotations

import json
import os
import tarfile

import pack

MIB = 1 << 20


def make_results(root, files) -> str:
    """A results folder with files of random (incompressible) bytes: {relative path: MiB}."""
    top = os.path.join(str(root), "kraken-gpu-validate")
    for rel, mib in files.items():
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(os.urandom(int(mib * MIB)))
    return top


def members(path: str) -> list:
    with tarfile.open(path) as tar:
        return sorted(tar.getnames())


def test_priority_order() -> None:
    assert pack.priority("summary.txt") == 0 and pack.priority("logs/p1.x.log") == 0
    assert pack.priority("colocation/timeslice/windows.json") == 1
    assert pack.priority("examples/node.nvml.gz") == 2
    assert pack.priority("examples/resnet50-train.pt.trace.json.gz") == 3
    assert pack.priority("agreement/resnet50-train-cupti/kernels_123.json") == 4


def test_plan_first_fit_within_the_limit() -> None:
    # The first archive starts with 4096 bytes for the manifest.
    files = [("a", 1, 300), ("b", 1, 600), ("c", 1, 500), ("d", 1, 2000), ("e", 1, 900), ("f", 1, 6000)]
    bins, left = pack.plan(files, archives=2, archive_limit=5096)
    assert bins == [["a", "b"], ["c", "d", "e"]]
    assert left == {"f": "0.0 MiB compressed: larger than one archive may be"}
    bins, left = pack.plan(files[:5], archives=1, archive_limit=5096)
    assert bins == [["a", "b"]] and sorted(left) == ["c", "d", "e"]
    assert left["c"] == "no room left in the archives"


def test_limits_hold_and_what_does_not_fit_is_listed(tmp_path) -> None:
    results = make_results(tmp_path / "in", {
        "summary.txt": 0.01, "logs/p1.a.log": 0.01, "examples/a.json": 0.3,
        "examples/resnet50-train.pt.trace.json.gz": 0.7, "agreement/x-cupti/kernels_1.json": 0.6,
        "colocation/big.json": 2.5, "overhead/agent/agent-10ms.db": 1.0})
    out = tmp_path / "out"
    manifest = pack.pack(results, str(out), max_files=3, max_file_mib=1, max_total_mib=3)
    written = sorted(os.listdir(str(out)))
    assert written == ["results-2.tar.gz", "results.tar.gz"]  # max_files 3: one left for summary.txt
    assert sum(os.path.getsize(os.path.join(str(out), n)) for n in written) <= 3 * MIB - MIB // 4
    for name in written:
        assert os.path.getsize(os.path.join(str(out), name)) <= 1 * MIB
    files = manifest["files"]
    assert "left_out" in files["colocation/big.json"]  # larger than an archive
    assert "overhead/agent/agent-10ms.db" not in files  # databases are never packed
    first = members(os.path.join(str(out), "results.tar.gz"))
    assert "kraken-gpu-validate/MANIFEST.json" in first and "kraken-gpu-validate/summary.txt" in first
    packed = sum((members(os.path.join(str(out), n)) for n in written), [])
    for rel, entry in files.items():
        assert (f"kraken-gpu-validate/{rel}" in packed) == ("archive" in entry), rel
    with tarfile.open(os.path.join(str(out), "results.tar.gz")) as tar:
        listed = json.load(tar.extractfile("kraken-gpu-validate/MANIFEST.json"))
    assert listed["files"]["colocation/big.json"]["left_out"].startswith("2.5 MiB compressed")


def test_default_limits_match_the_device_tool(tmp_path) -> None:
    results = make_results(tmp_path / "in", {"summary.txt": 0.01, **{f"t/{i}.json": 6 for i in range(12)}})
    out = tmp_path / "out"
    manifest = pack.pack(results, str(out))
    sizes = [os.path.getsize(os.path.join(str(out), n)) for n in os.listdir(str(out))]
    assert len(sizes) <= 7 and max(sizes) < 16 * MIB and sum(sizes) < 64 * MIB
    assert any("left_out" in f for f in manifest["files"].values())  # 72 MiB cannot all come back

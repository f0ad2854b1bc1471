#!/usr/bin/env python3
"""Packs a results folder into what the device tool brings back.

    pack.py RESULTS_DIR --out OUT_DIR [--max-files 8] [--max-file-mib 16] [--max-total-mib 64]

The device tool returns at most 8 files under $OUT, each at most 16 MiB, 64 MiB together,
at most 2 folders deep. OUT_DIR gets results.tar.gz (the script copies summary.txt
beside it), then results-2.tar.gz, ... when one archive cannot hold everything, each kept
5 % under the file limit; the archives leave one of the files for summary.txt. Files go in by priority (texts and JSON first, then
captures, then traces, largest traces last); a file that fits nowhere is left out and
listed. Every archive holds RESULTS_DIR's folder name as its top folder; the first holds
MANIFEST.json: every file with its size, its archive, or why it was left out.
Databases (*.db and their -wal/-shm) are never packed: what they hold is exported.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tarfile
import zlib
from typing import Any, Dict, List, Optional, Sequence, Tuple

MIB = 1 << 20
SKIPPED_SUFFIXES = (".db", ".db-wal", ".db-shm")


def priority(path: str) -> int:
    """Lower packs first: what explains the run, then results, captures, traces."""
    name = os.path.basename(path)
    if name in ("summary.txt", "steps.jsonl", "run.json", "figures.json") or path.startswith(("env/", "logs/")):
        return 0
    if name.endswith((".json", ".csv", ".txt", ".log", ".html")) and "trace" not in name and "kernels_" not in name:
        return 1
    if name.endswith((".nvml", ".nvml.gz", ".ncu-rep")):
        return 2
    if name.endswith(".pt.trace.json.gz"):
        return 3
    return 4


def compressed_size(path: str) -> int:
    """What the file adds to a gzip archive (already-compressed files as they are)."""
    if path.endswith(".gz"):
        return os.path.getsize(path)
    compressor = zlib.compressobj(6)
    total = 0
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            total += len(compressor.compress(chunk))
    return total + len(compressor.flush()) + 512  # + the tar header


def collect(results: str) -> List[Tuple[str, int, int]]:
    """(relative path, bytes, estimated packed bytes) of every file to pack, in priority order."""
    files = []
    for folder, _, names in os.walk(results):
        for name in names:
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, results)
            if name.endswith(SKIPPED_SUFFIXES) or os.path.islink(full) or not os.path.isfile(full):
                continue
            files.append((rel, os.path.getsize(full), compressed_size(full)))
    files.sort(key=lambda f: (priority(f[0]), f[2], f[0]))
    return files


def plan(files: Sequence[Tuple[str, int, int]], archives: int, archive_limit: int
         ) -> Tuple[List[List[str]], Dict[str, str]]:
    """Assigns files to at most `archives` archives of at most `archive_limit` estimated
    bytes (first fit, in the given order); returns the archives and the left-out reasons."""
    bins: List[List[str]] = [[]]
    used = [4096]  # the manifest
    left_out: Dict[str, str] = {}
    for rel, _, packed in files:
        if packed > archive_limit:
            left_out[rel] = f"{packed / MIB:.1f} MiB compressed: larger than one archive may be"
            continue
        for i, size in enumerate(used):
            if size + packed <= archive_limit:
                bins[i].append(rel)
                used[i] += packed
                break
        else:
            if len(bins) < archives:
                bins.append([rel])
                used.append(packed)
            else:
                left_out[rel] = "no room left in the archives"
    return bins, left_out


def write_archive(path: str, results: str, members: Sequence[str], manifest: Optional[Dict[str, Any]]) -> int:
    """Writes one tar.gz; returns its size."""
    top = os.path.basename(os.path.normpath(results))
    with tarfile.open(path, "w:gz", compresslevel=6) as tar:
        if manifest is not None:
            data = json.dumps(manifest, indent=1).encode()
            info = tarfile.TarInfo(f"{top}/MANIFEST.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for rel in members:
            tar.add(os.path.join(results, rel), arcname=f"{top}/{rel}", recursive=False)
    return os.path.getsize(path)


def pack(results: str, out: str, max_files: int = 8, max_file_mib: float = 16, max_total_mib: float = 64
         ) -> Dict[str, Any]:
    """Packs `results` into `out` (see the module docstring); returns the manifest."""
    os.makedirs(out, exist_ok=True)
    archive_limit = int(max_file_mib * MIB * 0.95)
    # One file and a quarter MiB are left for summary.txt.
    archives = max(1, min(max_files - 1, int((max_total_mib * MIB - MIB // 4) // archive_limit)))
    files = collect(results)
    sizes = {rel: size for rel, size, _ in files}
    while True:
        bins, left_out = plan(files, archives, archive_limit)
        names = ["results.tar.gz"] + [f"results-{i + 1}.tar.gz" for i in range(1, len(bins))]
        manifest: Dict[str, Any] = {"archives": names, "files": {}}
        for name, members in zip(names, bins):
            for rel in members:
                manifest["files"][rel] = {"bytes": sizes[rel], "archive": name}
        for rel, why in left_out.items():
            manifest["files"][rel] = {"bytes": sizes[rel], "left_out": why}
        for stale in os.listdir(out):  # from an earlier try with more archives
            if stale.startswith("results") and stale.endswith(".tar.gz"):
                os.remove(os.path.join(out, stale))
        written = [write_archive(os.path.join(out, n), results, m, manifest if i == 0 else None)
                   for i, (n, m) in enumerate(zip(names, bins))]
        over = [i for i, size in enumerate(written) if size > max_file_mib * MIB]
        if not over:
            break
        # The estimate was short: drop the largest member of the archive that overflowed.
        victim = max(bins[over[0]], key=lambda rel: next(f[2] for f in files if f[0] == rel))
        files = [f for f in files if f[0] != victim]
        left_out[victim] = "the archive it was in came out over the size limit"
    manifest["written"] = dict(zip(names, written))
    return manifest


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--out", required=True)
    parser.add_argument("--max-files", type=int, default=8)
    parser.add_argument("--max-file-mib", type=float, default=16)
    parser.add_argument("--max-total-mib", type=float, default=64)
    args = parser.parse_args(argv)
    manifest = pack(args.results, args.out, args.max_files, args.max_file_mib, args.max_total_mib)
    packed = sum(1 for f in manifest["files"].values() if "archive" in f)
    print(f"packed {packed} files into " + ", ".join(f"{n} ({s / MIB:.2f} MiB)" for n, s in manifest["written"].items()))
    left = {k: v for k, v in manifest["files"].items() if "left_out" in v}
    for rel, f in sorted(left.items()):
        print(f"left out: {rel} ({f['bytes'] / MIB:.1f} MiB): {f['left_out']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

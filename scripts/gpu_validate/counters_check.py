#!/usr/bin/env python3
"""Per-kernel counters of kraken's CUPTI tracer (KRAKEN_CUPTI_COUNTERS=1) vs Nsight Compute.

    counters_check.py run --out RUN.json -- CMD ARGS...
    counters_check.py compare --trace TRACE.json [--ncu NCU_DETAILS.csv] [--plain RUN.json]
                              [--counters RUN.json] [--out FILE]

`run` times CMD (wall seconds, exit code) into RUN.json and exits with CMD's code: once
without counters (--plain) and once with them (--counters) gives the cost of kernel replay.
`compare` reads the tracer's `cuda_profiler_range` events (one per profiled kernel: FLOPs
from the SASS instruction counts, add + mul + 2 * fma per precision, and DRAM bytes read +
written) and, per kernel, sets their mean beside the mean of the same kernel in Nsight
Compute's details page (`ncu --csv --page details`, what ncu_roofline.sh writes). A trace
kernel (a mangled symbol, `_Z5saxpyifPKfPf`) and an ncu kernel (demangled, `void
saxpy(int, float, const float *, float *)`) match when the ncu name's identifier appears in
the symbol as its mangled `<length><identifier>`. Prints one line per kernel and writes the
whole comparison as JSON. Nothing is measured on a machine without a GPU: the rehearsal
compares the fake libcupti's values and has no ncu CSV.
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

FLOP_OPS = {"add": 1.0, "mul": 1.0, "fma": 2.0}
PRECISIONS = ("f", "d", "h")


def flops_of(metrics: Dict[str, float]) -> Optional[float]:
    """FP64 + FP32 + FP16 operations from the SASS instruction counts; None without any."""
    total, seen = 0.0, False
    for precision in PRECISIONS:
        for op, weight in FLOP_OPS.items():
            key = f"smsp__sass_thread_inst_executed_op_{precision}{op}_pred_on.sum"
            if key in metrics:
                total += weight * metrics[key]
                seen = True
    return total if seen else None


def dram_bytes_of(metrics: Dict[str, float]) -> Optional[float]:
    """dram__bytes.sum, else read + write; None without them."""
    if "dram__bytes.sum" in metrics:
        return metrics["dram__bytes.sum"]
    if "dram__bytes_read.sum" in metrics and "dram__bytes_write.sum" in metrics:
        return metrics["dram__bytes_read.sum"] + metrics["dram__bytes_write.sum"]
    return None


def identifier(demangled: str) -> str:
    """`void randomInit<float>(T1 *, int)` -> `randomInit`; `ns::k(int)` -> `k`;
    `<unnamed>::saxpy(int)` (ncu's anonymous namespace) -> `saxpy`."""
    text = demangled.strip()
    if text.startswith("void "):
        text = text[len("void "):]
    # Before the cut at the first '<': ncu names kernel_mix.cu's kernels `<unnamed>::saxpy(...)`.
    text = re.sub(r"<unnamed>::|\(anonymous namespace\)::", "", text)
    text = re.split(r"[<(]", text, maxsplit=1)[0]
    return text.split("::")[-1].strip()


def symbol_has(symbol: str, name: str) -> bool:
    """Whether the range's kernel `symbol` is the kernel `name`: a mangled symbol (the tracer
    before it demangled range names) contains it as an Itanium source name; a demangled one
    has it as its identifier."""
    if not name:
        return False
    if symbol.startswith("_Z"):
        return f"{len(name)}{name}" in symbol
    return identifier(symbol) == name


def read_ranges(trace_path: str) -> Dict[str, Any]:
    """ranges_of the trace file `trace_path`."""
    with open(trace_path, encoding="utf-8") as f:
        return ranges_of(json.load(f))


def ranges_of(doc: Dict[str, Any]) -> Dict[str, Any]:
    """The trace's profiler ranges grouped by kernel symbol, its counter footer, and the
    metrics that are 0 in every range (a name or rollup the chip evaluates to nothing is
    told apart from a refused one, which the footer's error names)."""
    kernels: Dict[str, Dict[str, Any]] = {}
    nonzero: Dict[str, bool] = {}
    for event in doc.get("traceEvents", []):
        if event.get("cat") != "cuda_profiler_range":
            continue
        args = {k: float(v) for k, v in event.get("args", {}).items() if isinstance(v, (int, float))}
        for metric, value in args.items():
            if metric not in ("correlation", "device"):
                nonzero[metric] = nonzero.get(metric, False) or value != 0
        entry = kernels.setdefault(event.get("name", ""), {"ranges": 0, "flops": [], "dram_bytes": []})
        entry["ranges"] += 1
        for key, value in (("flops", flops_of(args)), ("dram_bytes", dram_bytes_of(args))):
            if value is not None:
                entry[key].append(value)
    footer = {k: v for k, v in doc.items() if k.startswith("kraken_cupti_counter")}
    zero = sorted(metric for metric, seen in nonzero.items() if not seen)
    return {"kernels": kernels, "footer": footer, "zero_metrics": zero}


def read_ncu_details(csv_path: str) -> Dict[str, Dict[str, Any]]:
    """Per ncu kernel name: the mean FLOPs and DRAM bytes over its launches (IDs)."""
    launches: Dict[str, Dict[str, Dict[str, float]]] = {}
    with open(csv_path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(line for line in f if line.startswith('"')):
            name, launch, metric = row.get("Kernel Name"), row.get("ID"), row.get("Metric Name")
            value = (row.get("Metric Value") or "").replace(",", "")
            if not name or launch is None or not metric:
                continue
            try:
                launches.setdefault(name, {}).setdefault(launch, {})[metric] = float(value)
            except ValueError:
                continue
    out: Dict[str, Dict[str, Any]] = {}
    for name, by_launch in launches.items():
        flops = [v for v in (flops_of(m) for m in by_launch.values()) if v is not None]
        dram = [v for v in (dram_bytes_of(m) for m in by_launch.values()) if v is not None]
        out[name] = {"launches": len(by_launch), "flops": mean(flops), "dram_bytes": mean(dram)}
    return out


def mean(values: Sequence[float]) -> Optional[float]:
    return sum(values) / len(values) if values else None


def ratio(ours: Optional[float], theirs: Optional[float]) -> Optional[float]:
    if ours is None or theirs is None:
        return None
    if theirs == 0:
        return 1.0 if ours == 0 else None
    return ours / theirs


def compare(ranges: Dict[str, Any], ncu: Optional[Dict[str, Dict[str, Any]]]) -> List[Dict[str, Any]]:
    """One row per traced kernel: its mean counters and, when ncu measured it, ncu's."""
    rows = []
    for symbol, entry in sorted(ranges["kernels"].items()):
        row: Dict[str, Any] = {"kernel": symbol, "ranges": entry["ranges"], "kraken_flops": mean(entry["flops"]),
                               "kraken_dram_bytes": mean(entry["dram_bytes"])}
        match = next((name for name in (ncu or {}) if symbol_has(symbol, identifier(name))), None)
        if match is not None:
            theirs = ncu[match]
            row.update({"ncu_kernel": match, "ncu_launches": theirs["launches"], "ncu_flops": theirs["flops"],
                        "ncu_dram_bytes": theirs["dram_bytes"],
                        "flops_ratio": ratio(row["kraken_flops"], theirs["flops"]),
                        "dram_bytes_ratio": ratio(row["kraken_dram_bytes"], theirs["dram_bytes"])})
        rows.append(row)
    return rows


def load_run(path: Optional[str]) -> Optional[Dict[str, Any]]:
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def timing(plain: Optional[Dict[str, Any]], counters: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """Wall seconds without and with counters, and their ratio (the replay's cost)."""
    out: Dict[str, Any] = {"plain_s": plain and plain.get("seconds"), "counters_s": counters and counters.get("seconds")}
    if out["plain_s"] and out["counters_s"]:
        out["slowdown"] = out["counters_s"] / out["plain_s"]
    return out


def fmt(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.4g}"


def command_run(out_path: str, command: List[str]) -> int:
    start = time.monotonic()
    rc = subprocess.call(command)
    seconds = time.monotonic() - start
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"command": command, "rc": rc, "seconds": seconds}, f, indent=1)
    print(f"counters_check: {seconds:.3f} s, exit code {rc}: {' '.join(command)}")
    return rc


def command_compare(args: argparse.Namespace) -> int:
    ranges = read_ranges(args.trace)
    ncu = read_ncu_details(args.ncu) if args.ncu else None
    result = {"trace": args.trace, "ncu": args.ncu, "footer": ranges["footer"], "zero_metrics": ranges["zero_metrics"],
              "kernels": compare(ranges, ncu), "timing": timing(load_run(args.plain), load_run(args.counters))}
    print(f"counters_check: {sum(r['ranges'] for r in result['kernels'])} profiled kernels in "
          f"{len(result['kernels'])} names; footer {json.dumps(ranges['footer'], sort_keys=True)}")
    # What the first GPU run settles (docs/kernel-capture.md): batches > 1 with no error and no
    # unmatched range means CUPTI took Stop/DecodeData inside a launch callback and a reset
    # counter data image configured again.
    print(f"counters_check: metrics 0 in every range: {', '.join(ranges['zero_metrics']) or 'none'}")
    if ncu is None:
        print("counters_check: no ncu CSV: counters not compared with Nsight Compute")
    for row in result["kernels"]:
        print(f"  {row['kernel'][:60]}: {row['ranges']} ranges, FLOPs {fmt(row['kraken_flops'])} "
              f"(ncu {fmt(row.get('ncu_flops'))}, ratio {fmt(row.get('flops_ratio'))}), DRAM bytes "
              f"{fmt(row['kraken_dram_bytes'])} (ncu {fmt(row.get('ncu_dram_bytes'))}, ratio "
              f"{fmt(row.get('dram_bytes_ratio'))})")
    t = result["timing"]
    print(f"counters_check: run time {fmt(t['plain_s'])} s plain, {fmt(t['counters_s'])} s with counters "
          f"(x{fmt(t.get('slowdown'))})")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="time a command")
    run.add_argument("--out", required=True)
    run.add_argument("argv", nargs=argparse.REMAINDER)
    cmp_parser = sub.add_parser("compare", help="trace counters vs ncu")
    cmp_parser.add_argument("--trace", required=True)
    cmp_parser.add_argument("--ncu")
    cmp_parser.add_argument("--plain")
    cmp_parser.add_argument("--counters")
    cmp_parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.command == "run":
        command = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
        if not command:
            parser.error("run: no command after --")
        return command_run(args.out, command)
    try:
        return command_compare(args)
    except (OSError, ValueError) as e:
        print(f"counters_check: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Latency of each NVML call kraken's sampler makes once per GPU and pass.

    nvml_latency.py [--library libnvidia-ml.so.1] [--device 0] [--calls 200] [--seconds 0.5] [--out FILE]

Loads NVML with ctypes (the driver's library, or $KRAKEN_NVML_LIBRARY, e.g. kraken's replay
library for a rehearsal), and calls each function up to --calls times or for --seconds,
whichever ends first, after 3 warm-up calls. Per function: calls, median, p90, p99, mean and
min in microseconds, and the return code of the last call (a function the device does not
support answers NOT_SUPPORTED quickly; a symbol the library lacks is listed as absent).
nvmlGpmMetricsGet (which needs two samples and a 98-entry struct) is left out; the
whole-pass time comes from the agent's kraken_agent_sample_duration_seconds instead.
Output buffers are oversized raw memory: only the time of the call matters here.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

RETURN_NAMES = {0: "SUCCESS", 1: "UNINITIALIZED", 2: "INVALID_ARGUMENT", 3: "NOT_SUPPORTED", 4: "NO_PERMISSION",
                6: "NOT_FOUND", 7: "INSUFFICIENT_SIZE", 9: "DRIVER_NOT_LOADED", 12: "LIB_RM_VERSION_MISMATCH",
                13: "FUNCTION_NOT_FOUND", 15: "GPU_IS_LOST", 19: "NO_DATA", 25: "ARGUMENT_VERSION_MISMATCH",
                999: "UNKNOWN"}
#: The field ids kraken reads per pass (src/collectors/nvml/nvml_reader.h kFieldRequests).
FIELD_IDS = (3, 4, 82, 94, 138, 139)
#: NVML_FI_DEV_PCIE_COUNT_TX_BYTES (197) and NVML_FI_DEV_PCIE_COUNT_RX_BYTES (198): cumulative
#: PCIe byte counters (NVML 12.x nvml.h), a candidate for the 20 ms nvmlDeviceGetPcieThroughput.
PCIE_FIELD_IDS = (197, 198)
#: NVML_NVLINK_SCOPE_ALL_LINKS: the scopeId that sums an NVLink field over all links.
ALL_LINKS = 0xFFFFFFFF
#: The health fields kraken reads in one more call on the slow cadence (nvml_reader.h
#: kHealthFieldRequests), as (field id, scope id): remapped rows 142-145, retired pages 29-31,
#: NVLink CRC-flit/CRC-data/replay/recovery error totals 38/45/52/59 over all links.
HEALTH_FIELDS = ((142, 0), (143, 0), (144, 0), (145, 0), (29, 0), (30, 0), (31, 0),
                 (38, ALL_LINKS), (45, ALL_LINKS), (52, ALL_LINKS), (59, ALL_LINKS))
HEALTH_FIELD_IDS = tuple(field for field, _ in HEALTH_FIELDS)
#: The fields whose per-field answers (return code, value type) a run records, by label.
FIELDS_REPORTED = {"nvmlDeviceGetFieldValues(PCIe bytes)": PCIE_FIELD_IDS,
                   "nvmlDeviceGetFieldValues(health)": HEALTH_FIELD_IDS}
MEMORY_V2_SIZE = 40  # unsigned int version + padding + 4 x unsigned long long
FIELD_VALUE_SIZE = 40
#: nvmlFieldValue_t: fieldId, scopeId, timestamp (8), latencyUsec (8), valueType, nvmlReturn.
FIELD_RETURN_OFFSET = 28
FIELD_TYPE_OFFSET = 24
VALUE_TYPE_NAMES = {0: "DOUBLE", 1: "UNSIGNED_INT", 2: "UNSIGNED_LONG", 3: "UNSIGNED_LONG_LONG",
                    4: "SIGNED_LONG_LONG", 5: "SIGNED_INT", 6: "UNSIGNED_SHORT"}


def percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def time_calls(call: Callable[[], int], calls: int, seconds: float) -> Dict[str, Any]:
    """Times `call` (returns an nvmlReturn_t) after 3 warm-up calls."""
    for _ in range(3):
        call()
    samples: List[float] = []
    code = 0
    end = time.perf_counter() + seconds
    while len(samples) < calls and time.perf_counter() < end:
        t0 = time.perf_counter()
        code = call()
        samples.append((time.perf_counter() - t0) * 1e6)
    return {"calls": len(samples), "median_us": round(percentile(samples, 50), 3),
            "p90_us": round(percentile(samples, 90), 3), "p99_us": round(percentile(samples, 99), 3),
            "mean_us": round(sum(samples) / len(samples), 3), "min_us": round(min(samples), 3),
            "last_return": RETURN_NAMES.get(code, str(code))}


def open_device(nvml: Any, device_index: int, result: Dict[str, Any]) -> Optional[ctypes.c_void_p]:
    """nvmlInit (timed) and the device's handle, with its name when the library has the call.
    None, with result["error"], when either fails."""
    init = getattr(nvml, "nvmlInit_v2", None) or nvml.nvmlInit
    t0 = time.perf_counter()
    code = init()
    result["init_ms"] = round((time.perf_counter() - t0) * 1e3, 3)
    if code != 0:
        result["error"] = f"nvmlInit: {RETURN_NAMES.get(code, code)}"
        return None
    handle = ctypes.c_void_p()
    get_handle = getattr(nvml, "nvmlDeviceGetHandleByIndex_v2", None) or nvml.nvmlDeviceGetHandleByIndex
    code = get_handle(ctypes.c_uint(device_index), ctypes.byref(handle))
    if code != 0:
        result["error"] = f"nvmlDeviceGetHandleByIndex: {RETURN_NAMES.get(code, code)}"
        return None
    name = ctypes.create_string_buffer(96)
    if hasattr(nvml, "nvmlDeviceGetName") and nvml.nvmlDeviceGetName(handle, name, 96) == 0:
        result["device_name"] = name.value.decode(errors="replace")
    return handle


def field_values_call(nvml: Any, handle: ctypes.c_void_p, buffer: Any, ids: Sequence[int],
                      scopes: Optional[Sequence[int]] = None) -> Callable[[], int]:
    """nvmlDeviceGetFieldValues asking for `ids` (with `scopes`, one scopeId each; else 0),
    answering into `buffer`."""
    def call() -> int:
        ctypes.memset(buffer, 0, len(buffer))
        for i, field in enumerate(ids):
            ctypes.c_uint.from_buffer(buffer, i * FIELD_VALUE_SIZE).value = field
            if scopes is not None:
                ctypes.c_uint.from_buffer(buffer, i * FIELD_VALUE_SIZE + 4).value = scopes[i]
        return nvml.nvmlDeviceGetFieldValues(handle, len(ids), buffer)
    return call


def sampler_calls(nvml: Any, handle: ctypes.c_void_p, answers: Dict[str, Any]) -> Dict[str, Callable[[], int]]:
    """The calls kraken's sampler makes per GPU and pass (but nvmlGpmSampleGet), by label:
    the symbol, then the variant in parentheses. The fields of FIELDS_REPORTED answer into
    `answers[label]`."""
    buf = ctypes.create_string_buffer(65536)  # every output fits; contents are not read
    uint_a, uint_b = ctypes.c_uint(), ctypes.c_uint()
    ull = ctypes.c_ulonglong()
    memory_v2 = ctypes.create_string_buffer(MEMORY_V2_SIZE)

    def memory_v2_call() -> int:
        ctypes.c_uint.from_buffer(memory_v2).value = MEMORY_V2_SIZE | (2 << 24)
        return nvml.nvmlDeviceGetMemoryInfo_v2(handle, memory_v2)

    fields = ctypes.create_string_buffer(FIELD_VALUE_SIZE * len(FIELD_IDS))

    def processes_call() -> int:
        count = ctypes.c_uint(64)  # 64 x 32 bytes: room for any entry size NVML uses
        return nvml.nvmlDeviceGetComputeRunningProcesses_v3(handle, ctypes.byref(count), buf)

    def process_utilization_call() -> int:
        count = ctypes.c_uint(256)  # 256 x 32-byte samples
        return nvml.nvmlDeviceGetProcessUtilization(handle, buf, ctypes.byref(count), ctypes.c_ulonglong(0))

    return {
        "nvmlDeviceGetUtilizationRates": lambda: nvml.nvmlDeviceGetUtilizationRates(handle, buf),
        "nvmlDeviceGetMemoryInfo_v2": memory_v2_call,
        "nvmlDeviceGetPowerUsage": lambda: nvml.nvmlDeviceGetPowerUsage(handle, ctypes.byref(uint_a)),
        "nvmlDeviceGetTotalEnergyConsumption": lambda: nvml.nvmlDeviceGetTotalEnergyConsumption(handle,
                                                                                                ctypes.byref(ull)),
        "nvmlDeviceGetClockInfo(SM)": lambda: nvml.nvmlDeviceGetClockInfo(handle, 1, ctypes.byref(uint_a)),
        "nvmlDeviceGetClockInfo(MEM)": lambda: nvml.nvmlDeviceGetClockInfo(handle, 2, ctypes.byref(uint_a)),
        "nvmlDeviceGetTemperature": lambda: nvml.nvmlDeviceGetTemperature(handle, 0, ctypes.byref(uint_a)),
        "nvmlDeviceGetPcieThroughput(TX)": lambda: nvml.nvmlDeviceGetPcieThroughput(handle, 0, ctypes.byref(uint_a)),
        "nvmlDeviceGetPcieThroughput(RX)": lambda: nvml.nvmlDeviceGetPcieThroughput(handle, 1, ctypes.byref(uint_a)),
        "nvmlDeviceGetEncoderUtilization": lambda: nvml.nvmlDeviceGetEncoderUtilization(
            handle, ctypes.byref(uint_a), ctypes.byref(uint_b)),
        "nvmlDeviceGetDecoderUtilization": lambda: nvml.nvmlDeviceGetDecoderUtilization(
            handle, ctypes.byref(uint_a), ctypes.byref(uint_b)),
        "nvmlDeviceGetFieldValues(6 fields)": field_values_call(nvml, handle, fields, FIELD_IDS),
        "nvmlDeviceGetFieldValues(PCIe bytes)": field_values_call(
            nvml, handle, answers["nvmlDeviceGetFieldValues(PCIe bytes)"], PCIE_FIELD_IDS),
        "nvmlDeviceGetFieldValues(health)": field_values_call(
            nvml, handle, answers["nvmlDeviceGetFieldValues(health)"], HEALTH_FIELD_IDS,
            [scope for _, scope in HEALTH_FIELDS]),
        "nvmlDeviceGetComputeRunningProcesses_v3": processes_call,
        "nvmlDeviceGetProcessUtilization": process_utilization_call,
    }


def time_functions(nvml: Any, functions: Dict[str, Callable[[], int]], calls: int, seconds: float,
                   out: Dict[str, Any]) -> None:
    """Each function's figures into `out` by label; a symbol the library lacks is marked absent."""
    for label, call in functions.items():
        symbol = label.split("(")[0]
        if not hasattr(nvml, symbol):
            out[label] = {"absent": True}
            continue
        out[label] = time_calls(call, calls, seconds)


def measure(library: str, device_index: int, calls: int, seconds: float) -> Dict[str, Any]:
    """Every function's figures for one device."""
    nvml = ctypes.CDLL(library)
    result: Dict[str, Any] = {"library": library, "device": device_index, "functions": {}}
    handle = open_device(nvml, device_index, result)
    if handle is None:
        return result
    answers = {label: ctypes.create_string_buffer(FIELD_VALUE_SIZE * len(ids))
               for label, ids in FIELDS_REPORTED.items()}
    functions = sampler_calls(nvml, handle, answers)
    gpm_sample = ctypes.c_void_p()
    gpm_ok = hasattr(nvml, "nvmlGpmSampleAlloc") and nvml.nvmlGpmSampleAlloc(ctypes.byref(gpm_sample)) == 0
    if gpm_ok:
        functions["nvmlGpmSampleGet"] = lambda: nvml.nvmlGpmSampleGet(handle, gpm_sample)
    time_functions(nvml, functions, calls, seconds, result["functions"])
    if gpm_ok:
        nvml.nvmlGpmSampleFree(gpm_sample)
    for label, ids in FIELDS_REPORTED.items():
        entry = result["functions"].get(label, {})
        if not entry.get("absent"):
            # Each field answers on its own: whether this driver and GPU have it at all.
            entry["field_returns"] = field_returns(answers[label], ids)
            entry["field_value_types"] = field_value_types(answers[label], ids)
    total = sum(f.get("median_us", 0) for f in result["functions"].values())
    result["sum_of_medians_us"] = round(total, 3)
    if hasattr(nvml, "nvmlShutdown"):
        nvml.nvmlShutdown()
    return result


def field_words(buffer: Any, ids: Sequence[int], offset: int, names: Dict[int, str]) -> Dict[str, str]:
    """The 32-bit word at `offset` of each field of the last nvmlDeviceGetFieldValues answer
    in `buffer`, by field id, named through `names` (the number when unnamed)."""
    out: Dict[str, str] = {}
    for i, field in enumerate(ids):
        word = ctypes.c_uint.from_buffer(buffer, i * FIELD_VALUE_SIZE + offset).value
        out[str(field)] = names.get(word, str(word))
    return out


def field_returns(buffer: Any, ids: Sequence[int]) -> Dict[str, str]:
    """The nvmlReturn of each field of the last nvmlDeviceGetFieldValues answer in `buffer`."""
    return field_words(buffer, ids, FIELD_RETURN_OFFSET, RETURN_NAMES)


def field_value_types(buffer: Any, ids: Sequence[int]) -> Dict[str, str]:
    """The nvmlValueType_t of each field: a 32-bit counter ("UNSIGNED_INT") wraps at 4 GiB."""
    return field_words(buffer, ids, FIELD_TYPE_OFFSET, VALUE_TYPE_NAMES)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", default=os.environ.get("KRAKEN_NVML_LIBRARY") or "libnvidia-ml.so.1")
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    try:
        result = measure(args.library, args.device, args.calls, args.seconds)
    except OSError as e:
        print(f"nvml_latency: cannot load {args.library}: {e}", file=sys.stderr)
        return 2
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    if "error" in result:
        print(f"nvml_latency: {result['error']}", file=sys.stderr)
        return 1
    print(f"NVML {result['library']}, device {result['device']} {result.get('device_name', '')}: "
          f"init {result['init_ms']} ms")
    for label, f in result["functions"].items():
        if f.get("absent"):
            print(f"  {label:42s} absent")
        else:
            print(f"  {label:42s} median {f['median_us']:9.2f} us  p99 {f['p99_us']:9.2f} us  "
                  f"({f['calls']} calls, {f['last_return']})")
    print(f"  sum of medians: {result['sum_of_medians_us']} us per GPU and pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())

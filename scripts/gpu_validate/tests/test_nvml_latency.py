"""nvml_latency.py on kraken's NVML replay library: every function the sampler calls is
timed (the replay answers them all), and the figures are well formed."""
from __future__ import annotations

import os

import nvml_latency
from conftest import BUILD_DIR, SOURCE_DIR


def test_every_function_is_timed_on_the_replay(monkeypatch) -> None:
    monkeypatch.setenv("KRAKEN_NVML_REPLAY", os.path.join(SOURCE_DIR, "tests", "fixtures", "nvml", "h100.nvml"))
    library = os.path.join(BUILD_DIR, "src", "collectors", "nvml", "libkraken_nvml_replay.so")
    result = nvml_latency.measure(library, 0, calls=20, seconds=0.2)
    assert "error" not in result and result["device_name"] == "NVIDIA H100 80GB HBM3"
    functions = result["functions"]
    assert len(functions) == 17 and not any(f.get("absent") for f in functions.values())
    for name, f in functions.items():
        assert f["calls"] == 20, name
        assert 0 < f["min_us"] <= f["median_us"] <= f["p99_us"], name
    # The capture has no energy counter: the replay says so, quickly.
    assert functions["nvmlDeviceGetTotalEnergyConsumption"]["last_return"] == "NOT_SUPPORTED"
    assert functions["nvmlDeviceGetMemoryInfo_v2"]["last_return"] == "SUCCESS"  # struct version accepted
    assert functions["nvmlDeviceGetFieldValues(6 fields)"]["last_return"] == "SUCCESS"
    # The PCIe byte-counter fields are timed on their own; the capture has none of them.
    pcie = functions["nvmlDeviceGetFieldValues(PCIe bytes)"]
    assert pcie["last_return"] == "SUCCESS"
    assert pcie["field_returns"] == {"197": "NOT_SUPPORTED", "198": "NOT_SUPPORTED"}
    assert sorted(pcie["field_value_types"]) == ["197", "198"]  # whether a counter is 32 or 64 bits
    # The health fields (the slow cadence's second call): every one answers on its own. The
    # capture has the remapped rows the H100's -q printed (142-145); -q printed its retired
    # pages as N/A and has no NVLink error totals.
    health = functions["nvmlDeviceGetFieldValues(health)"]
    assert health["last_return"] == "SUCCESS"
    ids = [str(field) for field in nvml_latency.HEALTH_FIELD_IDS]
    answered = {"142", "143", "144", "145"}
    assert health["field_returns"] == {field: "SUCCESS" if field in answered else "NOT_SUPPORTED" for field in ids}
    assert sorted(health["field_value_types"]) == sorted(ids)
    assert result["sum_of_medians_us"] > 0


def test_no_driver_is_an_error_not_a_crash(monkeypatch) -> None:
    monkeypatch.delenv("KRAKEN_NVML_REPLAY", raising=False)
    library = os.path.join(BUILD_DIR, "src", "collectors", "nvml", "libkraken_nvml_replay.so")
    assert nvml_latency.measure(library, 0, 5, 0.1)["error"] == "nvmlInit: DRIVER_NOT_LOADED"
    assert nvml_latency.main(["--library", "/nonexistent/libnvidia-ml.so.1"]) == 2

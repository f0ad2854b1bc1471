"""figures_targets.py (gpu-validate.sh phase 8) on round numbers checked by hand: each round
against its own plain window, the median and range, the plain noise between rounds, the
verdicts, the text and markdown lines; and a run without phase 8 or of stand-ins."""
from __future__ import annotations

import pytest

import figures
import figures_targets
import ingest
import run_findings
import run_report
from conftest import window, write


#: Three rounds of small kernels (plain drifting 100 -> 102 -> 101) and two of ResNet-50.
ROUNDS = {"small-kernels": {1: {"plain": 100.0, "cupti": 80.0, "cupti-kernels": 95.0, "cupti-idle": 99.0},
                            2: {"plain": 102.0, "cupti": 85.0, "cupti-kernels": 100.0, "cupti-idle": 102.0},
                            3: {"plain": 101.0, "cupti": 80.8, "cupti-idle": 102.0}},
          "resnet50-train": {1: {"plain": 100.2, "cupti": 100.0}, 2: {"plain": 100.0, "cupti": 99.9}}}


@pytest.fixture
def phase8_run(tmp_path) -> str:
    root = tmp_path / "kraken-gpu-validate"
    write(root, "run.json", {"mode": "gpu", "phases": [8], "start_unix": 1795000000})
    write(root, "overhead/p8-cpus.txt", "2-5\n")
    for w, rounds in ROUNDS.items():
        for r, variants in rounds.items():
            for v, tp in variants.items():
                write(root, f"overhead/p8-{w}-{v}-{r}.json", window(tp))
    # Not phase 8's: another phase's window and a stray file are ignored.
    write(root, "overhead/p7-small-kernels-plain.json", window(1.0))
    write(root, "overhead/p8-small-kernels-cupti-x.json", window(1.0))
    # A tracer window set aside by phase_8.sh because its tracer did not record.
    write(root, "overhead/p8-small-kernels-cupti-kernels-3.untraced.json", window(1.0))
    return str(root)


def by_variant(t: dict, workload: str) -> dict:
    w = next(w for w in t["workloads"] if w["workload"] == workload)
    return {v["variant"]: v for v in w["variants"]} | {"_w": w}


def test_each_round_against_its_own_plain_window(phase8_run) -> None:
    t = figures_targets.overhead_targets(phase8_run)
    assert t["ran"] and t["cpus"] == "2-5"
    small = by_variant(t, "small-kernels")
    # 100/80 - 1 = 25 %, 102/85 - 1 = 20 %, 101/80.8 - 1 = 25 %.
    assert small["cupti"]["per_round_pct"] == pytest.approx([25.0, 20.0, 25.0])
    assert small["cupti"]["median_pct"] == pytest.approx(25.0)
    assert (small["cupti"]["min_pct"], small["cupti"]["max_pct"]) == pytest.approx((20.0, 25.0))
    assert small["cupti"]["verdict"] == "missed"  # every round over 3 %, the noise under it
    # The idle injection: 100/99 - 1, 0, 101/102 - 1: no target of its own.
    assert small["cupti-idle"]["per_round_pct"] == pytest.approx([100 / 99 * 100 - 100, 0.0, 101 / 102 * 100 - 100])
    assert small["cupti-idle"]["verdict"] is None
    # Kernels only: 100/95 - 1, 102/100 - 1; round 3's untraced window is not a round.
    assert small["cupti-kernels"]["per_round_pct"] == pytest.approx([100 / 95 * 100 - 100, 2.0])
    # Judged too (the cheapest trace): over 3 % in round 1, but not by more than the 2 % noise.
    assert small["cupti-kernels"]["verdict"] == "not shown"
    # Plain round to round: 102/100 - 1 = 2 %, then 101/102 - 1 = -0.98 %: at most 2 %.
    assert small["_w"]["noise_pct"] == pytest.approx(2.0)
    resnet = by_variant(t, "resnet50-train")
    # 100.2/100 - 1 = 0.2 %, 100/99.9 - 1 = 0.1001 %: both under 1 %, the noise 0.2 %.
    assert resnet["cupti"]["per_round_pct"] == pytest.approx([0.2, 0.1001001])
    assert resnet["cupti"]["verdict"] == "met"


def test_rounds_that_straddle_the_target_do_not_show_it(tmp_path) -> None:
    assert figures_targets.verdict([0.5, 1.5], 1.0) == "not shown"
    # Every round under the target, but the plain windows moved by more than it.
    assert figures_targets.verdict([-5.0, 0.5], 1.0, noise=4.0) == "not shown"
    assert figures_targets.verdict([0.2, 0.5], 1.0, noise=0.3) == "met"
    # Over the target by more than the noise (the H200's ResNet-50 rounds): missed; over it by
    # less than the noise: not shown.
    assert figures_targets.verdict([15.14, 27.51], 1.0, noise=3.78) == "missed"
    assert figures_targets.verdict([8.35, 98.64], 3.0, noise=20.0) == "not shown"
    assert figures_targets.verdict([4.5, 6.0], 1.0, noise=3.78) == "not shown"
    assert figures_targets.verdict([], 1.0) is None
    assert figures_targets.verdict([5.0], None) is None


def test_text_and_markdown_lines(phase8_run) -> None:
    text = figures.render_text(figures.all_figures(phase8_run))
    assert ("  small-kernels   cupti         +25.00 % (+20.00 % to +25.00 %, 3 rounds); target < 3 %: missed"
            in text.splitlines())
    assert "  resnet50-train  plain round to round (noise) at most 0.20 %" in text.splitlines()
    run = {"n": 8, "root": phase8_run, "source": "run8.tar.gz", "note": "",
           "run": {"mode": "gpu", "phases": [8], "start_unix": 1795000000}}
    rows = run_report.targets_rows(run)
    assert ("| resnet50-train | cupti | kraken's CUPTI tracer injected (CUDA_INJECTION64_PATH), default records "
            "(synchronizations included until run 10) | 2 | +0.15 % | "
            "+0.10 % to +0.20 % | < 1 %: **met** | 0.20 % |") in rows
    # The variants this run did not have (cupti-all, run 10's cupti-api and cupti-sync) make no row.
    assert not [r for r in rows if "| cupti-all |" in r or "| cupti-sync |" in r]
    assert not [line for line in text.splitlines() if "cupti-sync" in line]
    verdicts = run_findings.target_rounds_verdicts([run])
    assert len(verdicts) == 3 and verdicts[0].startswith("- CUPTI tracer overhead, small-kernels, run 8 (")
    assert verdicts[0].endswith("plain round to round up to 2.00 %: target **missed** (< 3 %).")
    assert verdicts[1].startswith("- CUPTI tracer overhead (the tracer recording kernels only "
                                  "(KRAKEN_CUPTI_ACTIVITIES=kernels)), small-kernels, run 8 (")
    assert verdicts[1].endswith("target **not shown** (< 3 %).")


def test_without_phase_8_or_with_stand_ins(tmp_path) -> None:
    root = tmp_path / "r"
    write(root, "run.json", {"mode": "gpu"})
    assert figures_targets.render_targets(figures_targets.overhead_targets(str(root))) == [
        "overhead targets (phase 8): not run"]
    write(root, "overhead/p8-cpus.txt", "none\n")
    write(root, "overhead/p8-small-kernels-plain-1.json", window(5.0, stand_in=True))
    write(root, "overhead/p8-small-kernels-cupti-1.json", window(4.0, stand_in=True))
    t = figures_targets.overhead_targets(str(root))
    assert t["ran"]
    cupti = by_variant(t, "small-kernels")["cupti"]
    assert cupti["rounds"] == 0 and cupti["verdict"] is None
    assert "  small-kernels   cupti         not measured" in figures_targets.render_targets(t)


def test_ingesting_phase_8_alone_leaves_the_recorded_examples_alone(phase8_run, tmp_path, capsys) -> None:
    # A run of phase 8 alone recorded no examples, no co-location pairs and no record-nvml log:
    # ingest writes the page only (it used to fail on examples/<gpu>/README.md and would have
    # emptied examples/colocation/).
    write(phase8_run, "env/gpu-query.txt", "index, name, driver_version, memory.total [MiB], compute_cap\n"
                                           "0, NVIDIA H200, 580.159.04, 143771 MiB, 9.0\n")
    write(phase8_run, "env/python.txt", {"python": "3.12.3", "torch": "2.11.0+cu130", "cuda_available": True})
    dest = tmp_path / "repo"
    write(dest, "examples/colocation/pairs.csv", "recorded by an earlier run\n")
    assert ingest.main([phase8_run, "--dest", str(dest), "--replace"]) == 0
    assert capsys.readouterr().out.startswith("wrote docs/validation.md\n")
    assert (dest / "examples" / "colocation" / "pairs.csv").read_text() == "recorded by an earlier run\n"
    assert not (dest / "examples" / "nvidia-h200").exists()
    docs = (dest / "docs" / "validation.md").read_text()
    assert "| resnet50-train | cupti | kraken's CUPTI tracer injected (CUDA_INJECTION64_PATH), default records" in docs
    assert "record-nvml printed no frame-read line" not in docs

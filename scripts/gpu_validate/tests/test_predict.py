"""predict.py on real traces with the built kraken: both predictions of every pair (time-
slicing etc. with kraken's split, and MPS without an SM cap), and what figures.py reads."""
from __future__ import annotations

import json
import os

import figures
import predict
from conftest import BUILD_DIR, data_path

PLUGIN = "kineto/kineto_tb_plugin/"
TRACES = {"resnet50-train": PLUGIN + "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
          "bert-infer": PLUGIN + "resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz"}
KRAKEN = os.path.join(BUILD_DIR, "src", "cli", "kraken")


def traces_folder(tmp_path, workloads: dict) -> str:
    """A results' agreement/ folder: <workload>-cupti/<trace> for each workload."""
    folder = tmp_path / "agreement"
    for w, rel in workloads.items():
        (folder / f"{w}-cupti").mkdir(parents=True)
        os.symlink(data_path(rel) if not os.path.isabs(rel) else rel, folder / f"{w}-cupti" / os.path.basename(rel))
    return str(folder)


def test_store_less_predictions_of_a_pair(tmp_path) -> None:
    for rel in TRACES.values():
        data_path(rel)
    out = tmp_path / "colocation" / "predictions"
    rc = predict.main(["--kraken", KRAKEN, "--traces", traces_folder(tmp_path, TRACES), "--out", str(out)])
    assert rc == 0
    index = json.loads((out / "index.json").read_text())
    assert index["traces"]["bert-infer"] == "agreement/bert-infer-cupti/" + os.path.basename(TRACES["bert-infer"])
    [pair] = index["pairs"]
    assert pair["pair"] == "resnet50-train+bert-infer" and pair["exit_code"] == 0
    assert pair["file"] == "resnet50-train+bert-infer.json"
    assert pair["mps_uncapped_file"] == "resnet50-train+bert-infer.mps-uncapped.json"
    assert pair["commands"][1] == (f"colocate {index['traces']['resnet50-train']} {index['traces']['bert-infer']} "
                                   "--mode mps --sm-split 100,100 --json")
    uncapped = json.loads((out / pair["mps_uncapped_file"]).read_text())
    [mps] = uncapped["modes"]
    assert mps["mode"] == "mps" and mps["sm_shares"] == [1, 1] and len(mps["predictions"]) == 2
    # figures.py compares measured MPS with exactly this document's figures.
    root = str(tmp_path)
    for position, member in enumerate(("resnet50-train", "bert-infer")):
        got = figures.predicted(root, "resnet50-train", "bert-infer", member, "mps")
        assert got["slowdown"] == mps["predictions"][position]["slowdown"] and got["slowdown"] >= 1.0
    timeslice = json.loads((out / pair["file"]).read_text())
    [ts] = [m for m in timeslice["modes"] if m["mode"] == "timeslice"]
    assert figures.predicted(root, "resnet50-train", "bert-infer", "bert-infer", "timeslice")["slowdown"] == (
        ts["predictions"][1]["slowdown"])


def test_unreadable_trace_is_an_error_of_its_pairs(tmp_path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    folder = traces_folder(tmp_path, {"gemm": TRACES["resnet50-train"], "elementwise": str(broken)})
    out = tmp_path / "out"
    assert predict.main(["--kraken", KRAKEN, "--traces", folder, "--out", str(out)]) == 1
    [pair] = json.loads((out / "index.json").read_text())["pairs"]
    assert pair["exit_code"] == 1 and len(pair["errors"]) == 2 and "file" not in pair
    assert all("broken.json" in e for e in pair["errors"])
    assert not (out / "gemm+elementwise.json").exists()


def test_store_or_traces_not_both(tmp_path, capsys) -> None:
    import pytest

    with pytest.raises(SystemExit) as stop:
        predict.main(["--kraken", KRAKEN, "--out", str(tmp_path)])
    assert stop.value.code == 2 and "either --db and --profiles, or --traces" in capsys.readouterr().err

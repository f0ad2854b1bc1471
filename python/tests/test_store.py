"""import_files, list_profiles, Profile against `kraken import/list/export --json`."""
from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

import kraken
from conftest import H100_CAPTURE, ORION_BERT, data, kraken_json, run_kraken


def test_import_list_and_export_are_the_cli_documents(tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    imported = kraken.import_files([data(ORION_BERT), data(H100_CAPTURE)], db=db)
    assert len(imported.stored_ids) == len(imported.profiles) >= 2
    assert imported.raw["profiles"] == kraken_json("import", data(ORION_BERT), data(H100_CAPTURE))["profiles"]
    listed = kraken.list_profiles(db=db)
    assert [p.raw for p in listed] == kraken_json("list", "--db", db)["profiles"]
    assert [p.id for p in listed] == imported.stored_ids
    assert listed[0].counts["kernels"] == 572  # bert_2_fwd.csv's rows

    profile = kraken.Profile.load(imported.stored_ids[-1], db=db)
    exported = json.loads(run_kraken("export", str(imported.stored_ids[-1]), "--db", db).stdout)
    assert profile.document == exported
    assert profile.series and profile.series[0].samples == exported["series"][0]["samples"]
    # A stored Profile is an input wherever one is accepted, read from its own store.
    assert kraken.analyze(profile).to_dict() == kraken_json("analyze", str(profile.id), "--db", db)


def test_a_profile_file_round_trips(tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    ids = kraken.import_files(data(H100_CAPTURE), db=db).stored_ids
    saved = tmp_path / "profile.json"
    kraken.Profile.load(ids[0], db=db).save(saved)
    again = kraken.Profile.from_file(saved)
    assert again.kraken_inputs() == [str(saved)]
    not_a_profile = tmp_path / "other.json"
    not_a_profile.write_text('{"traceEvents": []}')
    with pytest.raises(ValueError, match=f"{not_a_profile}: not a kraken profile"):
        kraken.Profile.from_file(not_a_profile)
    with pytest.raises(kraken.NotFoundError):
        kraken.Profile.load(999, db=db)


def test_to_pandas_without_pandas_says_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "store.db")
    profile = kraken.Profile.load(kraken.import_files(data(H100_CAPTURE), db=db).stored_ids[0], db=db)
    monkeypatch.setitem(sys.modules, "pandas", None)  # what an environment without pandas gives
    with pytest.raises(ImportError, match="Profile.to_pandas\\(\\) needs pandas, which is not installed"):
        profile.to_pandas()


def test_to_pandas_hands_pandas_one_row_per_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pandas is not installed here: a stand-in module records what to_pandas passes to
    # pandas.DataFrame. This checks kraken's side (columns, one row per sample, values
    # unchanged), not pandas itself.
    db = str(tmp_path / "store.db")
    profile = kraken.Profile.load(kraken.import_files(data(H100_CAPTURE), db=db).stored_ids[0], db=db)
    calls = []

    class DataFrame:
        def __init__(self, data: dict, columns: list) -> None:
            calls.append((data, columns))

        @classmethod
        def from_records(cls, records: list) -> list:
            return records

    monkeypatch.setitem(sys.modules, "pandas", types.SimpleNamespace(DataFrame=DataFrame))
    profile.to_pandas()
    (columns_data, columns), = calls
    assert columns == list(kraken.profile.SERIES_COLUMNS)
    samples = sum(len(s["samples"]) for s in profile.document["series"])
    assert all(len(values) == samples for values in columns_data.values())
    first = profile.document["series"][0]
    assert columns_data["time_ns"][0] == first["samples"][0][0] and columns_data["value"][0] == first["samples"][0][1]
    assert columns_data["metric"][0] == first["metric"] and columns_data["pid"][0] == first["entity"]["pid"]
    assert profile.to_pandas("steps") == profile.document["steps"]
    with pytest.raises(ValueError, match="unknown table 'nope'"):
        profile.to_pandas("nope")

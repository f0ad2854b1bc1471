"""kraken.diff against `kraken diff --json` on HTA's trace_diff pair."""
from __future__ import annotations

import pytest

import kraken
from conftest import data, kraken_json

CONTROL = "kineto/hta/trace_diff/control/control.json.gz"
TEST = "kineto/hta/trace_diff/test/test.json.gz"


def test_diff_is_the_cli_document() -> None:
    doc = kraken.diff(data(CONTROL), data(TEST), top=5)
    cli = kraken_json("diff", data(CONTROL), data(TEST), "--top", "5")
    assert doc == cli
    assert doc["kind"] == "kraken-diff"
    assert round(doc["step"]["a_us"], 3) == 77490.833
    assert round(doc["step"]["b_us"], 3) == 124066.833
    assert doc["ranked"][0]["name"] == "aten::item"
    assert len(doc["ranked"]) == 5


def test_bad_side_is_an_invalid_input_error() -> None:
    with pytest.raises(kraken.InvalidInputError, match="no profile with a GPU timeline"):
        kraken.diff(data("kineto/hta/rank_non_gpu/rank_non_gpu.json.gz"), data(TEST))
    with pytest.raises(ValueError):
        kraken.diff([data(CONTROL), data(TEST)], data(TEST))

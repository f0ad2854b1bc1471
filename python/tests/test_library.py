"""Loading libkraken.so, its ABI check, and library errors as Python exceptions."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import kraken
from kraken import _native
from conftest import BUILD_DIR, ORION_BERT, PYTHON, data, python_env, run_kraken

WRONG_ABI = BUILD_DIR / "python-cmake" / "tests" / "libkraken_wrong_abi.so"


def child(code: str, **env: str) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (the library is loaded once per process)."""
    return subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=python_env(**env))


def test_the_package_loads_the_library_beside_it_and_reports_its_version() -> None:
    assert "KRAKEN_LIBRARY" not in os.environ
    assert kraken.library_path() == str(Path(kraken.__file__).resolve().parent / "libkraken.so")
    assert kraken.library_version() == kraken.__version__
    assert kraken.library_version() == run_kraken("--version").stdout.split()[-1]


def test_kraken_library_names_the_library_and_is_the_only_candidate() -> None:
    missing = child("import kraken; kraken.library_version()", KRAKEN_LIBRARY="/nonexistent/libkraken.so")
    assert missing.returncode != 0
    assert "kraken.errors.LibraryNotFoundError: cannot load libkraken.so; tried KRAKEN_LIBRARY=" \
           "/nonexistent/libkraken.so: /nonexistent/libkraken.so: cannot open shared object file" in missing.stderr
    beside = str(Path(kraken.__file__).resolve().parent / "libkraken.so")
    ok = child("import kraken; print(kraken.library_path())", KRAKEN_LIBRARY=beside)
    assert ok.stdout.strip() == beside, ok.stderr


def test_a_library_of_another_abi_version_is_refused_with_both_versions() -> None:
    assert WRONG_ABI.exists(), f"{WRONG_ABI} (built by python/tests/CMakeLists.txt) is missing"
    r = child("import kraken; kraken.analyze('x')", KRAKEN_LIBRARY=str(WRONG_ABI))
    assert r.returncode != 0
    assert (f"kraken.errors.AbiVersionError: {WRONG_ABI} (KRAKEN_LIBRARY={WRONG_ABI}) has ABI version 999, "
            f"but this kraken package (Python) was written for ABI version {_native.ABI_VERSION}") in r.stderr


def test_import_does_not_load_the_library() -> None:
    # `import kraken` must work (help(kraken), docs) where no library is installed yet.
    r = child("import kraken, sys; from kraken import _native; print(_native._loaded is None)",
              KRAKEN_LIBRARY="/nonexistent/libkraken.so")
    assert r.stdout.strip() == "True", r.stderr


def test_errors_carry_the_library_message_and_class_by_status(tmp_path: Path) -> None:
    with pytest.raises(kraken.NotFoundError) as missing:
        kraken.analyze(str(tmp_path / "absent.json"))
    assert str(missing.value) == f"{tmp_path / 'absent.json'}: no such file"
    assert missing.value.code == 2 and isinstance(missing.value, FileNotFoundError)
    cli = run_kraken("analyze", str(tmp_path / "absent.json"), check=False)
    assert cli.stderr.strip() == f"kraken: error: {missing.value}"

    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [ {"ph": "X", ')
    with pytest.raises(kraken.InvalidInputError) as malformed:
        kraken.analyze(str(bad))
    assert str(malformed.value).startswith(f"{bad}: ")
    assert isinstance(malformed.value, ValueError)
    assert run_kraken("analyze", str(bad), check=False).stderr.strip() == f"kraken: error: {malformed.value}"

    with pytest.raises(kraken.InvalidInputError, match="--window must be 'trace' or 'steps', got 'bogus'"):
        kraken.analyze(data(ORION_BERT), window="bogus")


def test_an_unknown_option_key_is_an_invalid_argument_naming_it() -> None:
    with pytest.raises(kraken.InvalidArgumentError) as error:
        _native.library().call_inputs("kraken_analyze", [data(ORION_BERT)], {"windw": "trace"})
    assert "windw" in str(error.value)
    assert error.value.code == 7


def test_help_lists_the_public_api() -> None:
    text = subprocess.run([PYTHON, "-c", "import kraken; help(kraken)"], capture_output=True, text=True,
                          env=python_env(PAGER="cat")).stdout
    for name in ("WorkloadProfiler", "DisaggregationAnalyzer", "ColocationOptimizer", "InterferencePredictor",
                 "ClusterAnalyzer", "PerformanceTroubleshooter", "Profile", "KrakenError"):
        assert name in text
    for name in kraken.__all__:
        obj = getattr(kraken, name)
        if callable(obj) and not isinstance(obj, str):
            assert obj.__doc__, f"kraken.{name} has no docstring"

"""build/python installs offline with pip into a fresh venv of Debian's python3, and
`cmake --install` installs the package under a prefix next to the library."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import BUILD_DIR, ORION_BERT, PYTHON, data, kraken_json

CHECK = ("import json, sys, kraken; a = kraken.analyze(sys.argv[1]); "
         "print(json.dumps({'path': kraken.library_path(), 'file': kraken.__file__, 'doc': a.to_dict()}))")


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KRAKEN_LIBRARY")}
    env["PIP_NO_INDEX"] = "1"  # nothing may come from a package index
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def test_pip_installs_build_python_offline_into_a_venv(tmp_path: Path) -> None:
    import json
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", str(venv)], check=True, env=clean_env())
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-index", str(BUILD_DIR / "python")],
                         capture_output=True, text=True, env=clean_env())
    assert pip.returncode == 0, pip.stdout + pip.stderr
    assert "Successfully installed kraken-" in pip.stdout
    r = subprocess.run([str(venv / "bin" / "python"), "-c", CHECK, data(ORION_BERT)], capture_output=True, text=True,
                       env=clean_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["file"].startswith(str(venv)) and out["path"].startswith(str(venv))
    assert out["doc"] == kraken_json("analyze", data(ORION_BERT))
    assert not (BUILD_DIR / "python" / "build").exists()  # the build left no droppings
    assert (Path(out["file"]).parent / "py.typed").is_file()
    expect_type_checkers_read_the_hints(venv / "bin" / "python", tmp_path)


def expect_type_checkers_read_the_hints(python: Path, tmp_path: Path) -> None:
    """mypy, pointed at the interpreter kraken was installed into, takes kraken's own hints
    (py.typed, PEP 561): a wrong use is reported against them, not as an untyped module."""
    user = tmp_path / "user.py"
    user.write_text("import kraken\n"
                    "report = kraken.analyze('trace.json')\n"
                    "wrong: int = kraken.analyze('trace.json')\n")
    env = {k: v for k, v in clean_env().items() if k != "LD_PRELOAD"}  # mypy loads no libkraken
    r = subprocess.run([PYTHON, "-m", "mypy", "--strict", "--no-incremental", "--python-executable", str(python),
                        str(user)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert any(":3: error: Incompatible types in assignment" in line for line in lines), r.stdout
    assert not any(":2: error" in line or "py.typed" in line for line in lines), r.stdout


def test_cmake_install_puts_the_package_beside_the_library(tmp_path: Path) -> None:
    import json
    prefix = tmp_path / "prefix"
    plain = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # cmake is no sanitized program
    cmake = os.environ.get("KRAKEN_CMAKE", "cmake")  # the build's own cmake
    install = subprocess.run([cmake, "--install", str(BUILD_DIR), "--prefix", str(prefix)], capture_output=True,
                             text=True, env=plain)
    assert install.returncode == 0, install.stdout + install.stderr
    packages = list(prefix.glob("lib/python3*/*-packages/kraken"))
    assert len(packages) == 1, list(prefix.rglob("kraken"))
    assert (packages[0] / "py.typed").is_file()
    link = packages[0] / "libkraken.so"
    assert link.is_symlink() and not os.path.isabs(os.readlink(link))
    assert link.resolve() == (prefix / "lib" / "libkraken.so.0").resolve()
    env = clean_env()
    env["PYTHONPATH"] = str(packages[0].parent)
    r = subprocess.run([PYTHON, "-c", CHECK, data(ORION_BERT)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["path"] == str(link)
    assert out["doc"] == kraken_json("analyze", data(ORION_BERT))

"""A PEP 517 build backend for the kraken package, in the tree so that ``pip install
build/python`` needs nothing from a package index.

pip builds in an isolated environment into which it installs the backend's requirements;
setuptools would have to be downloaded for that, which fails offline. This backend has no
requirements (pyproject.toml: ``requires = []``, ``backend-path = ["_backend"]``) and only
zips the package folder as it is: the sources and the libkraken.so that ``make build``
copied beside them. The wheel is tagged for this platform (py3-none-linux_x86_64): it
carries a native library but no Python extension, so any CPython 3 loads it.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
import sysconfig
import zipfile
from typing import Dict, List, Optional, Tuple

NAME = "kraken"
SUMMARY = "What GPU workloads really use: profiling, characterization and pooling advice (libkraken over ctypes)"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, NAME)


def _version() -> str:
    with open(os.path.join(PACKAGE, "_version.py"), encoding="utf-8") as f:
        match = re.search(r'__version__\s*=\s*"([^"]+)"', f.read())
    if not match:
        raise RuntimeError(f"{PACKAGE}/_version.py has no __version__")
    return match.group(1)


def _tag() -> str:
    has_library = os.path.exists(os.path.join(PACKAGE, "libkraken.so"))
    platform = re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform()) if has_library else "any"
    return f"py3-none-{platform}"


def _metadata(version: str) -> str:
    readme = os.path.join(ROOT, "README.md")
    description = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\nSummary: {SUMMARY}\n"
            "Requires-Python: >=3.8\nLicense: see the kraken repository\n"
            "Provides-Extra: pandas\nRequires-Dist: pandas; extra == \"pandas\"\n"
            "Description-Content-Type: text/markdown\n\n" + description)


def _dist_info_files(version: str) -> Dict[str, bytes]:
    wheel = f"Wheel-Version: 1.0\nGenerator: kraken_backend\nRoot-Is-Purelib: false\nTag: {_tag()}\n"
    return {"METADATA": _metadata(version).encode(), "WHEEL": wheel.encode(), "top_level.txt": f"{NAME}\n".encode()}


def _package_files() -> List[Tuple[str, str]]:
    """(path in the wheel, path on disk) of every file of the package, caches left out."""
    files = []
    for folder, dirs, names in os.walk(PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".pyc", ".in")):
                continue
            full = os.path.join(folder, name)
            files.append((os.path.relpath(full, ROOT).replace(os.sep, "/"), full))
    return files


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    """Nothing to install before building."""
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    """Nothing to install before building."""
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    """Writes the .dist-info folder pip reads before building."""
    version = _version()
    dist_info = f"{NAME}-{version}.dist-info"
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    for name, data in _dist_info_files(version).items():
        with open(os.path.join(metadata_directory, dist_info, name), "wb") as f:
            f.write(data)
    return dist_info


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None,
                metadata_directory: Optional[str] = None) -> str:
    """Zips the package and its .dist-info into a wheel; returns its file name."""
    version = _version()
    dist_info = f"{NAME}-{version}.dist-info"
    filename = f"{NAME}-{version}-{_tag()}.whl"
    records: List[str] = []
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for arcname, path in _package_files():
            with open(path, "rb") as f:
                data = f.read()
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            # Keep the mode (the library stays readable and executable once unpacked).
            info.external_attr = (os.stat(path).st_mode & 0o777 | 0o100000) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
            records.append(_record_line(arcname, data))
        for name, data in _dist_info_files(version).items():
            arcname = f"{dist_info}/{name}"
            wheel.writestr(arcname, data)
            records.append(_record_line(arcname, data))
        records.append(f"{dist_info}/RECORD,,")
        wheel.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")
    return filename


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    """Not offered: the package is built by CMake (make build) with the library inside."""
    raise NotImplementedError("kraken builds no sdist; install from build/python after `make build`")

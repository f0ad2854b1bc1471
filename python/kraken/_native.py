"""Loading libkraken.so and calling it through ctypes.

Every analysis is one C call that takes UTF-8 strings (inputs and a JSON object of options)
and returns a JSON document allocated by the library (include/kraken/kraken.h). This module
is the only one that touches ctypes: it finds and loads the library once, checks its ABI
version, declares the prototypes, converts arguments, frees what the library returned and
turns a failed status into a :class:`~kraken.errors.KrakenError`.

ctypes releases the GIL for the whole of each call (the library is loaded with
``ctypes.CDLL``), so a long analysis does not stop other Python threads, and a profiling
session samples on its own C++ thread.
"""
from __future__ import annotations

import ctypes
import json
import os
import threading
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .errors import AbiVersionError, LibraryNotFoundError, error_for_status

#: The KRAKEN_ABI_VERSION this package was written for (include/kraken/kraken.h).
ABI_VERSION = 1
#: Environment variable naming the libkraken.so to load (overrides every other place).
LIBRARY_ENV = "KRAKEN_LIBRARY"
#: Names the system loader is asked for when the package has no library beside it.
SYSTEM_NAMES = ("libkraken.so.0", "libkraken.so")

_c_char_pp = ctypes.POINTER(ctypes.c_char_p)
_c_void_pp = ctypes.POINTER(ctypes.c_void_p)

# name -> (argument types); every one of these returns kraken_status (int).
_INPUTS_CALLS: Tuple[str, ...] = ("kraken_analyze", "kraken_report", "kraken_disagg", "kraken_colocate",
                 "kraken_colocate_optimize", "kraken_temporal", "kraken_mig_plan", "kraken_import")
_INPUTS_CALLS += ("kraken_diff",)
_PAIR_CALLS = ("kraken_predict_interference", "kraken_pack")


class Library:
    """A loaded libkraken with its prototypes declared. Use :func:`library`."""

    def __init__(self, cdll: ctypes.CDLL, path: str) -> None:
        self.cdll = cdll
        self.path = path
        self._declare()

    def _declare(self) -> None:
        lib = self.cdll
        lib.kraken_abi_version.restype = ctypes.c_int
        lib.kraken_abi_version.argtypes = []
        lib.kraken_version.restype = ctypes.c_char_p
        lib.kraken_version.argtypes = []
        lib.kraken_last_error.restype = ctypes.c_char_p
        lib.kraken_last_error.argtypes = []
        lib.kraken_last_error_code.restype = ctypes.c_int
        lib.kraken_last_error_code.argtypes = []
        # Documents come back as void*: a c_char_p result would be copied into bytes and
        # the pointer kraken_free needs would be lost.
        lib.kraken_free.restype = None
        lib.kraken_free.argtypes = [ctypes.c_void_p]
        for name in _INPUTS_CALLS:
            fn = getattr(lib, name)
            fn.restype = ctypes.c_int
            fn.argtypes = [_c_char_pp, ctypes.c_size_t, ctypes.c_char_p, _c_void_pp]
        for name in _PAIR_CALLS:
            fn = getattr(lib, name)
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, _c_void_pp]
        lib.kraken_cluster_analyze.restype = ctypes.c_int
        lib.kraken_cluster_analyze.argtypes = [ctypes.c_char_p, ctypes.c_char_p, _c_void_pp]
        lib.kraken_plan_tenants.restype = ctypes.c_int
        lib.kraken_plan_tenants.argtypes = [ctypes.c_char_p, ctypes.c_char_p, _c_void_pp]
        lib.kraken_list_profiles.restype = ctypes.c_int
        lib.kraken_list_profiles.argtypes = [ctypes.c_char_p, _c_void_pp]
        lib.kraken_export_profile.restype = ctypes.c_int
        lib.kraken_export_profile.argtypes = [ctypes.c_char_p, ctypes.c_char_p, _c_void_pp]
        lib.kraken_session_start.restype = ctypes.c_int
        lib.kraken_session_start.argtypes = [ctypes.c_char_p, _c_void_pp]
        lib.kraken_session_mark.restype = ctypes.c_int
        lib.kraken_session_mark.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.kraken_session_step.restype = ctypes.c_int
        lib.kraken_session_step.argtypes = [ctypes.c_void_p]
        lib.kraken_session_stop.restype = ctypes.c_int
        lib.kraken_session_stop.argtypes = [ctypes.c_void_p, _c_void_pp]
        lib.kraken_session_passes.restype = ctypes.c_int
        lib.kraken_session_passes.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)]
        lib.kraken_session_profile.restype = ctypes.c_int
        lib.kraken_session_profile.argtypes = [ctypes.c_void_p, _c_void_pp]
        lib.kraken_session_free.restype = None
        lib.kraken_session_free.argtypes = [ctypes.c_void_p]
        lib.kraken_remove_profiler_step.restype = ctypes.c_int
        lib.kraken_remove_profiler_step.argtypes = [ctypes.c_char_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int)]

    # ---- helpers -----------------------------------------------------------------------

    def _check(self, status: int) -> None:
        if status != 0:
            # The message is per thread and kept until this thread's next kraken call:
            # read it now, on the thread that made the call.
            message = (self.cdll.kraken_last_error() or b"").decode("utf-8", "replace")
            raise error_for_status(status, message)

    def _take(self, pointer: ctypes.c_void_p) -> str:
        """The document at `pointer` as text; frees it."""
        if not pointer.value:
            return ""
        try:
            return ctypes.string_at(pointer.value).decode("utf-8")
        finally:
            self.cdll.kraken_free(pointer)

    def version(self) -> str:
        """kraken_version(): the library's release, "0.1.0"."""
        version: bytes = self.cdll.kraken_version()
        return version.decode("utf-8")

    def call_inputs(self, name: str, inputs: Sequence[str], options: Optional[Mapping[str, Any]]) -> str:
        """One of the calls taking (inputs, count, options, out)."""
        encoded = [text.encode("utf-8") for text in inputs]
        array = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)
        out = ctypes.c_void_p()
        status = getattr(self.cdll, name)(array, len(encoded), encode_options(options), ctypes.byref(out))
        self._check(status)
        return self._take(out)

    def call_pair(self, name: str, first: str, second: str, options: Optional[Mapping[str, Any]]) -> str:
        """kraken_predict_interference / kraken_pack: two strings, options, out."""
        out = ctypes.c_void_p()
        status = getattr(self.cdll, name)(first.encode("utf-8"), second.encode("utf-8"),
                                          encode_options(options), ctypes.byref(out))
        self._check(status)
        return self._take(out)

    def call_one(self, name: str, text: str, options: Optional[Mapping[str, Any]]) -> str:
        """kraken_cluster_analyze / kraken_export_profile / kraken_plan_tenants: one string, options, out."""
        out = ctypes.c_void_p()
        status = getattr(self.cdll, name)(text.encode("utf-8"), encode_options(options), ctypes.byref(out))
        self._check(status)
        return self._take(out)

    def list_profiles(self, options: Optional[Mapping[str, Any]]) -> str:
        """kraken_list_profiles."""
        out = ctypes.c_void_p()
        self._check(self.cdll.kraken_list_profiles(encode_options(options), ctypes.byref(out)))
        return self._take(out)

    # ---- sessions ----------------------------------------------------------------------

    def session_start(self, options: Optional[Mapping[str, Any]]) -> ctypes.c_void_p:
        """kraken_session_start: the opaque session handle."""
        handle = ctypes.c_void_p()
        self._check(self.cdll.kraken_session_start(encode_options(options), ctypes.byref(handle)))
        return handle

    def session_mark(self, handle: ctypes.c_void_p, name: str) -> None:
        """kraken_session_mark."""
        self._check(self.cdll.kraken_session_mark(handle, name.encode("utf-8")))

    def session_step(self, handle: ctypes.c_void_p) -> None:
        """kraken_session_step."""
        self._check(self.cdll.kraken_session_step(handle))

    def session_stop(self, handle: ctypes.c_void_p) -> str:
        """kraken_session_stop: the run summary document."""
        out = ctypes.c_void_p()
        self._check(self.cdll.kraken_session_stop(handle, ctypes.byref(out)))
        return self._take(out)

    def session_passes(self, handle: ctypes.c_void_p) -> int:
        """kraken_session_passes: the sampling passes taken so far."""
        passes = ctypes.c_int64()
        self._check(self.cdll.kraken_session_passes(handle, ctypes.byref(passes)))
        return passes.value

    def session_profile(self, handle: ctypes.c_void_p) -> str:
        """kraken_session_profile: the whole profile (export JSON)."""
        out = ctypes.c_void_p()
        self._check(self.cdll.kraken_session_profile(handle, ctypes.byref(out)))
        return self._take(out)

    def session_free(self, handle: ctypes.c_void_p) -> None:
        """kraken_session_free."""
        self.cdll.kraken_session_free(handle)

    # ---- trace edits -------------------------------------------------------------------

    def remove_profiler_step(self, path: str, step_number: int) -> bool:
        """kraken_remove_profiler_step: whether any ProfilerStep#`step_number` event was
        removed from the trace at `path` (rewritten in place, every other byte kept)."""
        removed = ctypes.c_int()
        self._check(self.cdll.kraken_remove_profiler_step(os.fsencode(path), step_number, ctypes.byref(removed)))
        return bool(removed.value)


def encode_options(options: Optional[Mapping[str, Any]]) -> Optional[bytes]:
    """The options object as UTF-8 JSON; keys whose value is None are left out (the
    library's default applies), no options at all is NULL."""
    if not options:
        return None
    kept = {key: value for key, value in options.items() if value is not None}
    return json.dumps(kept).encode("utf-8") if kept else None


_lock = threading.Lock()
_loaded: Optional[Library] = None


def package_library_path() -> Path:
    """Where the library sits when it was installed with the package."""
    return Path(__file__).resolve().parent / "libkraken.so"


def candidates() -> List[Tuple[str, str]]:
    """(where, name-or-path) in the order they are tried. KRAKEN_LIBRARY, when set, is the
    only candidate: a library the user named explicitly must not be replaced silently by
    another one."""
    explicit = os.environ.get(LIBRARY_ENV, "")
    if explicit:
        return [(f"{LIBRARY_ENV}={explicit}", explicit)]
    found: List[Tuple[str, str]] = []
    beside = package_library_path()
    if beside.exists():
        found.append(("beside the package", str(beside)))
    # The relocatable bundle (make bundle): python/kraken/ beside lib/libkraken.so.0, loaded
    # from lib/ so that its RUNPATH ($ORIGIN) finds the libraries bundled with it.
    bundled = Path(__file__).resolve().parents[2] / "lib" / "libkraken.so.0"
    if bundled.exists():
        found.append(("the bundle's lib/", str(bundled)))
    found.extend(("the system loader", name) for name in SYSTEM_NAMES)
    return found


def _load() -> Library:
    failures: List[str] = []
    for where, name in candidates():
        try:
            cdll = ctypes.CDLL(name)
        except OSError as error:
            failures.append(f"{where}: {error}")
            continue
        path = name
        if not hasattr(cdll, "kraken_abi_version"):
            raise AbiVersionError(f"{path} ({where}) is not libkraken: it has no kraken_abi_version()")
        cdll.kraken_abi_version.restype = ctypes.c_int
        abi = cdll.kraken_abi_version()
        if abi != ABI_VERSION:
            raise AbiVersionError(
                f"{path} ({where}) has ABI version {abi}, but this kraken package (Python) was written "
                f"for ABI version {ABI_VERSION}; install the package and the library from the same "
                f"kraken release, or point {LIBRARY_ENV} at a matching libkraken.so")
        return Library(cdll, path)
    raise LibraryNotFoundError(
        "cannot load libkraken.so; tried " + "; ".join(failures) +
        f". Build kraken (make build puts it beside the package in build/python), install it "
        f"(make install), or set {LIBRARY_ENV} to the path of libkraken.so")


def library() -> Library:
    """The loaded library (loaded, checked and declared on the first call)."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = _load()
    return _loaded


def load_json(text: str) -> Dict[str, Any]:
    """A document from the library as a dict (numbers parsed exactly as json does for
    the CLI's --json output)."""
    doc: Dict[str, Any] = json.loads(text)
    return doc

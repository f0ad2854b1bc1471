"""Stored and recorded profiles: kraken's export JSON as Python objects, the profile store
(``kraken import --db``, ``list``, ``export``) and the conversion to pandas."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from . import _native
from ._inputs import path_option
from ._results import build, raw_field

#: Sections of an export that list records, the tables :meth:`Profile.to_pandas` offers
#: besides "series".
RECORD_TABLES = ("kernels", "memory_ops", "cpu_ops", "runtime_calls", "steps", "syncs", "kernel_counters",
                 "collectives", "profiler_ranges", "kernel_labels")
#: The columns of ``to_pandas("series")``, one row per sample.
SERIES_COLUMNS = ("time_ns", "value", "metric", "unit", "source_name", "gpu_index", "gpu_uuid", "gpu_name",
                  "gpu_instance_id", "mig_profile", "pid", "process_name", "hostname", "pod", "namespace",
                  "container")


@dataclass
class Series:
    """One sampled series: `samples` are ``[time_ns, value]`` pairs; `entity` says what it
    is about (gpu_index, pid (-1 = the whole GPU), MIG instance, pod, ...)."""

    metric: str
    unit: str
    source_name: str
    entity: Dict[str, Any]
    samples: List[List[float]]


class Profile:
    """A whole profile in kraken's export form (docs/store.md): metadata, devices, series
    and, for traces, kernels, copies, CPU ops, steps...

    Get one with :meth:`load` (a stored id), :meth:`from_file` (a file ``kraken profile
    --out`` or ``kraken export`` wrote) or :meth:`WorkloadProfiler.get_profile`. A Profile is
    accepted wherever an input is (``analyze(profile)``, ``DisaggregationAnalyzer(profile)``).
    """

    def __init__(self, document: Dict[str, Any], *, inputs: Sequence[str], db: Optional[str] = None,
                 profile_id: Optional[int] = None) -> None:
        """Use the class methods; `inputs` is how the library reads this profile back."""
        self.document = document
        self.id = profile_id
        self._inputs = list(inputs)
        self._db = db
        # Whatever must outlive this object for its input file to exist (a run's folder).
        self.keep_alive: Any = None

    @classmethod
    def load(cls, profile_id: Union[int, str], db: Any = None) -> "Profile":
        """The stored profile `profile_id` ("12", "db:12" or 12) of store `db` (default
        the CLI's: $KRAKEN_STORAGE_PATH, ...)."""
        text = _native.library().call_one("kraken_export_profile", str(profile_id), {"db": path_option(db)})
        number = int(str(profile_id).split(":")[-1])
        return cls(_native.load_json(text), inputs=[str(number)], db=path_option(db), profile_id=number)

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "Profile":
        """A profile file in kraken's export JSON (``kraken profile --out``, ``kraken
        export``).

        Raises:
            ValueError: the file is not JSON or not a kraken export (the message names it).
        """
        path = os.fspath(path)
        with open(path, "rb") as f:
            try:
                document = json.load(f)
            except ValueError as error:
                raise ValueError(f"{path}: not a kraken profile (export JSON): {error}") from None
        if not isinstance(document, dict) or "kraken_profile_version" not in document:
            raise ValueError(f"{path}: not a kraken profile: no \"kraken_profile_version\" key "
                             "(write one with kraken profile --out or kraken export)")
        return cls(document, inputs=[path])

    def kraken_inputs(self) -> List[str]:
        """How the library reads this profile: its file or stored id."""
        return list(self._inputs)

    def kraken_db(self) -> Optional[str]:
        """The store a stored profile lives in (None: the default, or a file)."""
        return self._db

    @property
    def metadata(self) -> Dict[str, Any]:
        """source, format, rank, hostname, attributes (the sampling interval, ...)."""
        return self.document.get("metadata") or {}

    @property
    def devices(self) -> List[Dict[str, Any]]:
        """The GPUs, as NVML or the trace described them."""
        return list(self.document.get("devices") or [])

    @property
    def series(self) -> List[Series]:
        """Every sampled series."""
        return [build(Series, s) for s in self.document.get("series") or []]

    def records(self, table: str) -> List[Dict[str, Any]]:
        """The records of one section ("kernels", "steps", ... see RECORD_TABLES)."""
        if table not in RECORD_TABLES:
            raise ValueError(f"unknown table {table!r}; valid: series, {', '.join(RECORD_TABLES)}")
        return list(self.document.get(table) or [])

    def series_columns(self) -> Dict[str, List[Any]]:
        """The series as columns, one row per sample (SERIES_COLUMNS): what
        ``to_pandas("series")`` hands to pandas. Values are the export's, unchanged."""
        columns: Dict[str, List[Any]] = {name: [] for name in SERIES_COLUMNS}
        for s in self.document.get("series") or []:
            entity = s.get("entity") or {}
            described = {"metric": s.get("metric"), "unit": s.get("unit"), "source_name": s.get("source_name")}
            for time_ns, value in s.get("samples") or []:
                columns["time_ns"].append(time_ns)
                columns["value"].append(value)
                for name in SERIES_COLUMNS[2:]:
                    columns[name].append(described[name] if name in described else entity.get(name))
        return columns

    def to_pandas(self, table: str = "series") -> Any:
        """A pandas DataFrame of the series (one row per sample, SERIES_COLUMNS) or of one
        record table ("kernels", "steps", ...).

        Raises:
            ImportError: pandas is not installed (it is never required by kraken).
        """
        try:
            import pandas  # noqa: F401  (optional dependency)
        except ImportError:
            raise ImportError("Profile.to_pandas() needs pandas, which is not installed; "
                              "install it (pip install pandas, or apt install python3-pandas) "
                              "or read Profile.series_columns() / Profile.records() instead") from None
        if table == "series":
            return pandas.DataFrame(self.series_columns(), columns=list(SERIES_COLUMNS))
        return pandas.DataFrame.from_records(self.records(table))

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the export JSON (readable by every kraken command)."""
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            json.dump(self.document, f)

    def __repr__(self) -> str:
        where = f"id {self.id}" if self.id is not None else ", ".join(self._inputs)
        return f"<kraken.Profile {self.metadata.get('source', '?')!r} ({where})>"


@dataclass
class StoredProfile:
    """One entry of ``kraken list --json``."""

    id: int
    created_ns: int
    created: str
    kind: str
    format: str
    source: str
    hostname: str
    devices: List[str]
    counts: Dict[str, int]
    start_ns: Optional[int]
    end_ns: Optional[int]
    duration_ns: int
    raw: Dict[str, Any] = raw_field()


def list_profiles(db: Any = None) -> List[StoredProfile]:
    """Every profile in the store: ``kraken list --json``."""
    doc = _native.load_json(_native.library().list_profiles({"db": path_option(db)}))
    return [build(StoredProfile, p) for p in doc.get("profiles") or []]


@dataclass
class ImportResult:
    """``kraken import --json``: what each file holds and, when stored, the new ids."""

    profiles: List[Dict[str, Any]]
    stored_ids: List[int]
    raw: Dict[str, Any] = raw_field()


def import_files(paths: Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]], *,
                 db: Any = None, store: bool = True, format: Optional[str] = None) -> ImportResult:
    """Imports files: what each holds, and (store=True) saves them in store `db`."""
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    options = {"db": path_option(db), "store": store, "format": format}
    doc = _native.load_json(_native.library().call_inputs("kraken_import", [os.fspath(p) for p in items], options))
    return build(ImportResult, doc, profiles=list(doc.get("profiles") or []),
                 stored_ids=list(doc.get("stored_ids") or []))

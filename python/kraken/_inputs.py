"""What the API accepts where the command line takes FILE... or a stored profile id."""
from __future__ import annotations

import os
from typing import Any, Iterable, List, Optional, Tuple, Union

#: A file path, a stored profile id (12, "12", "db:12"), or an object that knows its
#: inputs (a :class:`~kraken.Profile`, a :class:`~kraken.Report`).
InputLike = Union[str, "os.PathLike[str]", int, Any]


def _items(value: Any, what: str) -> List[Any]:
    if isinstance(value, (str, bytes, int, os.PathLike)) or hasattr(value, "kraken_inputs"):
        return [value]
    try:
        return list(value)
    except TypeError:
        raise TypeError(f"{what}: expected a path, a stored profile id or a list of them, "
                        f"got {type(value).__name__}") from None


def input_strings(value: Union[InputLike, Iterable[InputLike]], what: str = "profile_data") -> List[str]:
    """The input strings the library takes: paths as text, ids as text, objects with a
    ``kraken_inputs()`` method expanded. One value or a list of them."""
    out: List[str] = []
    for item in _items(value, what):
        if hasattr(item, "kraken_inputs"):
            out.extend(item.kraken_inputs())
        elif isinstance(item, bool):
            raise TypeError(f"{what}: {item!r} is neither a path nor a stored profile id")
        elif isinstance(item, int):
            out.append(str(item))
        elif isinstance(item, bytes):
            out.append(os.fsdecode(item))
        elif isinstance(item, (str, os.PathLike)):
            out.append(os.fspath(item))
        else:
            raise TypeError(f"{what}: {item!r} is neither a path nor a stored profile id")
    if not out:
        raise ValueError(f"{what}: no input given (a file path or a stored profile id)")
    return out


def inputs_and_db(value: Union[InputLike, Iterable[InputLike]], db: Any, what: str) -> Tuple[List[str], Optional[str]]:
    """`input_strings` plus the store to read ids from: `db` when given, else the store of
    the stored :class:`~kraken.Profile` objects among the inputs (all must agree: one call
    reads one store)."""
    inputs = input_strings(value, what)
    if db is not None:
        return inputs, os.fspath(db)
    stores = {item.kraken_db() for item in _items(value, what) if hasattr(item, "kraken_db")} - {None}
    if len(stores) > 1:
        raise ValueError(f"{what}: stored profiles from different databases ({', '.join(sorted(stores))}) "
                         "cannot be read in one call")
    return inputs, (stores.pop() if stores else None)


def path_option(value: Any) -> Any:
    """An optional path option as text (None stays None)."""
    return None if value is None else os.fspath(value)

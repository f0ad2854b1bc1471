"""Building result dataclasses from the library's JSON documents.

Every number in a result is taken unchanged from the document the library returned (the
same bytes ``kraken ... --json`` prints), so a result compares equal, figure for figure,
with the command line's output. Nothing here computes.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Mapping, Optional, Type, TypeVar

T = TypeVar("T")


def build(cls: Type[T], doc: Optional[Mapping[str, Any]], **nested: Any) -> T:
    """An instance of dataclass `cls` whose fields are the document's keys of the same
    names (None where absent); `nested` overrides fields with already built values; a
    field named ``raw`` gets the whole document."""
    doc = doc or {}
    values: Dict[str, Any] = {}
    # `cls` is any dataclass: typed as Any here, as a TypeVar cannot be bound to "a dataclass".
    factory: Any = cls
    for field in dataclasses.fields(factory):
        if field.name in nested:
            values[field.name] = nested[field.name]
        elif field.name == "raw":
            values[field.name] = dict(doc)
        else:
            values[field.name] = doc.get(field.name)
    built: T = factory(**values)
    return built


def build_optional(cls: Type[T], doc: Optional[Mapping[str, Any]]) -> Optional[T]:
    """`build` for a document part that may be null."""
    return None if doc is None else build(cls, doc)


def build_list(cls: Type[T], docs: Optional[List[Mapping[str, Any]]]) -> List[T]:
    """`build` for every element of a list (an absent list is empty)."""
    return [build(cls, doc) for doc in (docs or [])]


def raw_field() -> Any:
    """The ``raw`` field of a result: the whole document part it was built from, for the
    keys the dataclass does not name (kept out of repr: it can be large)."""
    return dataclasses.field(default_factory=dict, repr=False, compare=False)

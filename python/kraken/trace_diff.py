"""``kraken diff A B`` from Python: what changed between two traces (A = before, B =
after): step time, GPU timeline categories, kernel and operator time by name and by
class, added and removed kernels, and the changes ranked by impact (docs/json-output.md,
"kraken diff")."""
from __future__ import annotations

from typing import Any, Dict, Optional

from . import _native
from ._inputs import InputLike, input_strings, path_option


def diff(a: InputLike, b: InputLike, top: Optional[int] = None, db: Any = None) -> Dict[str, Any]:
    """The ``kraken diff --json`` document comparing `a` (before) with `b` (after).

    Each side is a trace file, an archive or directory of ranks, or a stored profile id;
    `top` limits each list (the CLI's ``--top``, default 15)."""
    inputs = input_strings(a, "a") + input_strings(b, "b")
    if len(inputs) != 2:
        raise ValueError("diff compares exactly one input on each side")
    options = {"top": top, "db": path_option(db)}
    return _native.load_json(_native.library().call_inputs("kraken_diff", inputs, options))

"""Exceptions raised by the kraken package.

Every failure of a libkraken call becomes a :class:`KrakenError` subclass chosen by the
call's ``kraken_status``; the message is the library's own one-line message (the text the
``kraken`` command prints after ``kraken: error:``), which names the file, position or
option at fault. Where a builtin exception fits as well (a bad value is also a
``ValueError``), the class derives from it too, so ``except ValueError`` keeps working.
"""
from __future__ import annotations

from typing import Dict, Type


class KrakenError(Exception):
    """A libkraken call failed.

    Attributes:
        code: the ``kraken_status`` value (0 is never raised).
        message: the library's message, one line.
    """

    def __init__(self, message: str, code: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class InvalidInputError(KrakenError, ValueError):
    """An input or option value is unusable: a malformed file, a negative price."""


class NotFoundError(KrakenError, FileNotFoundError):
    """A file, stored profile id, device or series that does not exist (a
    FileNotFoundError too, so that `except FileNotFoundError` catches a missing trace)."""


class KrakenIOError(KrakenError, OSError):
    """The operating system refused a read or write, or a server (Prometheus) could not be
    used: UnavailableError, a subclass, when it is down or too slow."""


class UnsupportedError(KrakenError, NotImplementedError):
    """Well-formed but not handled by this libkraken."""


class UnavailableError(KrakenIOError):
    """A service was down or did not answer in time (the kubelet socket, PostgreSQL, a
    Prometheus refusing connections, timing out or answering 5xx). Also a KrakenIOError:
    an unreachable Prometheus was one before it had its own class."""


class InternalError(KrakenError):
    """A bug in kraken, or memory exhausted."""


class InvalidArgumentError(KrakenError, ValueError):
    """The call itself is wrong: an unknown option key, a value of the wrong type, a
    session already stopped."""


class LibraryNotFoundError(KrakenError, ImportError):
    """libkraken.so could not be loaded from any of the places the package looks."""


class AbiVersionError(KrakenError, ImportError):
    """The loaded libkraken.so speaks another ABI version than this package."""


#: kraken_status (include/kraken/kraken.h) -> exception class.
STATUS_ERRORS: Dict[int, Type[KrakenError]] = {
    1: InvalidInputError,
    2: NotFoundError,
    3: KrakenIOError,
    4: UnsupportedError,
    5: UnavailableError,
    6: InternalError,
    7: InvalidArgumentError,
}


def error_for_status(code: int, message: str) -> KrakenError:
    """The exception for a failed call: its class from ``code``, the library's message."""
    cls = STATUS_ERRORS.get(code, KrakenError)
    if not message:
        message = f"libkraken call failed with status {code} and no message"
    return cls(message, code)

"""The package's exception CastError and the translation of the extension's error tuples
(status code, message, index) into exceptions."""

from __future__ import annotations

from typing import Any, Optional


class CastError(ValueError):
    """A text that is not a number (Cast from STRING). `index` is the element's position in
    C order of the input (np.unravel_index(index, x.shape) for an N-d array); `text` is the
    element's text."""

    def __init__(self, message: str, index: int, text: Optional[str]) -> None:
        super().__init__(message)
        self.index = index
        self.text = text

    def __reduce__(self) -> Any:
        # Pickled with all three arguments, so that an error raised in a Dask or Ray worker
        # arrives whole (BaseException pickles `args`, the message alone).
        return (CastError, (str(self), self.index, self.text))


# A public name of the package `tensorcast`, which re-exports it: pickle and tracebacks
# refer to it there.
CastError.__module__ = "tensorcast"

# The library's status codes that _raise maps to their own exceptions.
_UNSUPPORTED = 2
_PARSE_ERROR = 3
_INTERNAL = 5


def _raise(err: tuple, texts: Any = None) -> None:
    """Raises the exception of an error tuple; texts[index], if given, is CastError's text."""
    code, message, index = err
    if code == _PARSE_ERROR:  # a text that is not a number
        text = None
        if texts is not None:
            try:
                t = texts[index]
                text = t.decode("utf-8", "backslashreplace") if isinstance(t, bytes) else str(t)
            except Exception:  # the message names the text in any case
                text = None
        raise CastError(message, index, text)
    if code == _UNSUPPORTED:
        raise TypeError(message)
    if code == _INTERNAL and "memory" in message:
        raise MemoryError(message)
    raise ValueError(message)

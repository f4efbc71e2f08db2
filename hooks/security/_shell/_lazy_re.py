"""Regular expressions compiled on first use, for the security hooks' module-level patterns."""

from __future__ import annotations

import re
import sys

# Not typing.TYPE_CHECKING: importing typing costs a cold hook a few milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any


class LazyPattern:
    """A regular expression compiled the first time it is used (made by ``lazy_compile``).

    A hook that runs as a fresh process pays for every module-level ``re.compile`` before it
    reads its payload; the security hooks hold some two hundred patterns and one call uses a few
    of them, so compiling on first use keeps their cold start short.
    """

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled on the first call)."""
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    @property
    def pattern(self) -> str:
        """The pattern's source text."""
        return self._source

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """``re.Pattern.search``."""
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """``re.Pattern.match``."""
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """``re.Pattern.fullmatch``."""
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        """``re.Pattern.finditer``."""
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        """``re.Pattern.findall``."""
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        """``re.Pattern.sub``."""
        return self.compiled.sub(repl, string, count)

    def __repr__(self) -> str:
        return f"lazy_compile({self._source!r})"


def lazy_compile(pattern: str, flags: int = 0) -> LazyPattern:
    """Like ``re.compile(pattern, flags)``, but compiled the first time the pattern is used."""
    return LazyPattern(pattern, flags)

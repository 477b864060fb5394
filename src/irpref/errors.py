"""The errors irpref raises on purpose, and what the CLI does with them.

Every failure a user can cause is one of two kinds:

- :class:`InputError` (a :class:`ValueError`): the data is wrong: a file, a
  DataFrame or a dict that cannot be read or judged. It names the source (file
  path), the line where one applies, the problem and the offending text. The
  CLI prints it as ``irpref CMD: error: FILE:LINE: problem`` and exits 1.
- :class:`UsageError` (a :class:`ValueError`): the request is wrong: an
  unknown measure, a parameter outside its range (``RBP(p=2): p must be in
  (0, 1)``), an option value no command accepts. The CLI prints it with the
  subcommand's usage line and exits 2.

Anything else reaching the CLI is a bug: one line, and ``--debug`` shows the
traceback.
"""

from __future__ import annotations

__all__ = ["InputError", "IrprefError", "MissingQueries", "UsageError"]


class IrprefError(Exception):
    """Base class of the errors irpref raises on purpose."""


class InputError(IrprefError, ValueError):
    """Input that cannot be read: names the source, the line and the problem."""

    def __init__(
        self, path: str, line: int | None, problem: str, text: str | None = None
    ) -> None:
        self.path, self.line, self.problem, self.text = str(path), line, problem, text
        where = f"{path}:{line}" if line is not None else str(path)
        msg = f"{where}: {problem}"
        if text is not None:
            msg += f": {text[:200]!r}"
        super().__init__(msg)


class UsageError(IrprefError, ValueError):
    """A request irpref cannot honour: unknown name, parameter out of range, bad option."""


class MissingQueries(UserWarning):
    """A run retrieved nothing for some judged queries: its means are over
    fewer queries (``missing="skip"``) or count them as empty (``"zero"``)."""

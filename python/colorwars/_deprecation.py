"""Old names kept working for now: each warns once per call site with a ``DeprecationWarning``
naming its new name (the CHANGELOG lists them all)."""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["renamed", "renamed_argument"]


def renamed(old: str, new: str, stacklevel: int = 3) -> None:
    """Warns that ``old`` is now ``new`` (``stacklevel`` points the warning at the caller)."""
    warnings.warn(
        f"{old} is deprecated, use {new}; the old name will be removed in a later version",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def renamed_argument(
    function: str, old: str, new: str, old_value: Any, new_value: Any, default: Any = None
) -> Any:
    """The value of a renamed argument: the new one, or the old one if given (not None),
    with a warning. Both given (the new one not at its ``default``) is a ``TypeError``, as
    Python says for an argument given twice."""
    if old_value is None:
        return new_value
    if new_value is not default and new_value != default:
        raise TypeError(f"{function}() got both {new}= and its old name {old}=; give {new}=")
    renamed(f"{function}({old}=...)", f"{function}({new}=...)", stacklevel=4)
    return old_value

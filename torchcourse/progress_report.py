"""Tables and plots of progress: one learner's (``progress()``) and a room's (``merge``)."""

from __future__ import annotations

from typing import Any


def show(data: dict[str, Any], where: Any, draw: bool = True) -> None:
    """Print the table per module (placeholder until the full report lands)."""
    for kind in ("exercises", "predictions"):
        for item, entry in sorted(data.get(kind, {}).items()):
            print(kind, item, entry.get("verdict"))


def main(argv: list[str]) -> int:
    print("usage: python -m torchcourse.progress merge FILE... [--out DIR]")
    return 2

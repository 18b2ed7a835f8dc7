"""Progress across modules: ``progress()`` for a learner, ``merge`` for an instructor.

    from torchcourse import progress
    progress()                    # a table per module and a plot of what this learner has done

    python -m torchcourse.progress merge FILE_OR_DIR... [--out DIR]

The verdicts come from :mod:`torchcourse.progress_store` (every ``check`` and ``reveal``
records its latest one, on this machine only; ``TORCHCOURSE_PROGRESS`` moves or stops it).
The merge reads the files an instructor collects from a room (a folder is searched for
``*.json``) and prints, per exercise, how many learners solved it, tried it, or have not
started, with ``room-progress.png`` beside.

This module is callable, so ``from torchcourse import progress; progress()`` works however it
was imported (the module and the function share the name).
"""

from __future__ import annotations

import sys
import types

from torchcourse.progress_store import current, load, location, record

__all__ = ["current", "load", "location", "progress", "record"]


def progress(*modules: str, draw: bool = True) -> None:
    """Print the learner's progress per module (exercises ✓/✗/not attempted of the registered
    total; predictions right/wrong/unanswered) and draw it; ``progress("03", "04")`` shows only
    those modules."""
    from torchcourse.progress_report import show

    show(current(), location(), draw=draw, modules=modules)


class _CallableModule(types.ModuleType):
    def __call__(self, *modules: str, draw: bool = True) -> None:
        progress(*modules, draw=draw)


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    from torchcourse.progress_report import main

    sys.exit(main(sys.argv[1:]))

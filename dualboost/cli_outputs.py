"""The output files of the ``dualboost`` command: checked before the work, written without losing
one to another's failure.

:func:`check_outputs` runs before a subcommand starts its work (training, verifying, predicting):
each output path given must be writable (:func:`dualboost._files.check_writable`), no two options
may name the same file, and no output may be one of the run's input files. :func:`write_output`
(:func:`write_text` for a text file) writes one output after the work and reports a failure as one
line on stderr (an OSError -- a full disk -- as "cannot write 'PATH': No space left on device"), so
that the caller goes on with the other outputs and exits non-zero.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

from dualboost._files import atomic_write, check_writable, output_error

__all__ = ["check_outputs", "write_output", "write_text"]


def check_outputs(
    outputs: Mapping[str, str | os.PathLike | None], inputs: Mapping[str, str | os.PathLike | None]
) -> None:
    """Refuse, with a ValueError naming the option and the path, an output path (``outputs``: by
    option, e.g. ``{"--save": "m.model"}``; None: not given; ``-``: standard output) that cannot be
    written, that another option names too, or that is an existing input file (``inputs``: by name,
    e.g. ``{"TRAIN": ...}``).

    Parameters
    ----------
    outputs : mapping of str to path or None
        The output paths by option.
    inputs : mapping of str to path or None
        The input paths by name.
    """
    seen: dict[str, str] = {}
    for option, path in outputs.items():
        if path is None or os.fspath(path) == "-":
            continue
        check_writable(path, option)
        key = os.path.realpath(path)
        if key in seen:
            raise ValueError(f"{seen[key]} and {option} name the same file {os.fspath(path)!r}")
        seen[key] = option
        for name, source in inputs.items():
            if source is not None and os.path.isfile(source) and os.path.exists(path):
                if os.path.samefile(source, path):
                    raise ValueError(
                        f"{option} {os.fspath(path)!r} is the input file {name}: writing it would destroy it"
                    )


def write_output(command: str, option: str, path: str | os.PathLike, write: Callable[[], object]) -> bool:
    """Call ``write`` (which writes the output of ``option`` to ``path``); True if it succeeded, else
    False after printing ``dualboost COMMAND: error: OPTION: ...`` on stderr: an OSError as
    :class:`dualboost._files.OutputError` names it, a ValueError or ImportError (a model that cannot be
    saved, matplotlib missing) as it says.

    Parameters
    ----------
    command : str
        The subcommand (for the message).
    option : str
        The option of the output.
    path : str or os.PathLike
        The path written.
    write : callable
        Writes the output.

    Returns
    -------
    bool
        Whether it succeeded.
    """
    try:
        write()
    except OSError as exc:
        print(f"dualboost {command}: error: {option}: {output_error(exc, path)}", file=sys.stderr)
        return False
    except (ValueError, ImportError) as exc:
        print(f"dualboost {command}: error: {option}: {exc}", file=sys.stderr)
        return False
    return True


def write_text(command: str, option: str, path: str | os.PathLike, text: str) -> bool:
    """:func:`write_output` of ``text`` (UTF-8) to ``path``, atomically
    (:func:`dualboost._files.atomic_write`: the previous file or the whole new one, never a part).

    Parameters
    ----------
    command, option, path
        As in :func:`write_output`.
    text : str
        The text written.

    Returns
    -------
    bool
        Whether it succeeded.
    """

    def write() -> None:
        with atomic_write(path) as handle:
            handle.write(text.encode("utf-8"))

    return write_output(command, option, path, write)

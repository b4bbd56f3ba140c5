"""The documentation site builds, offline, without a warning, and its API reference is complete.

:func:`test_site_builds_without_warnings` runs the command of docs/index.md#building-the-site (Sphinx
with myst-parser, numpydoc, autosummary and sphinx-gallery; the ``[docs]`` extra, which ``[dev]``
includes) on a copy of ``docs/`` in a temporary directory, without the sources that autosummary and
sphinx-gallery generate (``docs/api/``, ``docs/auto_gallery/``), so that every gallery script runs
(sphinx-gallery skips a script whose output is there already) and must draw a figure, and nothing is
written into the checkout. The other tests read ``docs/api.rst`` and need no Sphinx.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import dualboost

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: what the build needs: the [docs] extra of pyproject.toml (also in [dev])
BUILD_REQUIREMENTS = ("sphinx", "myst_parser", "numpydoc", "sphinx_gallery", "matplotlib")


def public_modules() -> list[str]:
    """The public modules besides the packages: those of the top level with an ``__all__`` and a name
    without a leading ``_``, except the command line's (``cli*``: ``dualboost --help``, docs/boosting.md)."""
    found = []
    for info in pkgutil.iter_modules(dualboost.__path__, "dualboost."):
        short = info.name.rpartition(".")[2]
        if not info.ispkg and not short.startswith(("_", "cli")):
            if hasattr(importlib.import_module(info.name), "__all__"):
                found.append(info.name)
    return found


def public_packages() -> list[str]:
    """dualboost and each of its packages whose dotted name has no part starting with ``_``."""
    found = ["dualboost"]
    for info in pkgutil.walk_packages(dualboost.__path__, "dualboost."):
        if info.ispkg and not any(part.startswith("_") for part in info.name.split(".")):
            found.append(info.name)
    return found


def documented(text: str) -> set[str]:
    """The dotted names that an API page (reStructuredText) documents: the entries of its autosummary
    tables and its ``py:`` object directives, each under the ``currentmodule`` above it."""
    names, module = set(), None
    in_table = False
    for line in text.splitlines():
        if match := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = match.group(1)
        elif re.match(r"\.\. autosummary::", line):
            in_table = True
        elif match := re.match(r"\.\. (?:py:(?!module)\w+|autoclass|autofunction|autodata):: (\w+)", line):
            names.add(f"{module}.{match.group(1)}")
        elif in_table and (match := re.fullmatch(r"   (\w+)", line)):
            names.add(f"{module}.{match.group(1)}")
        elif in_table and line and not line.startswith(" "):
            in_table = False
    return names


def resolve(dotted: str) -> object:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_documented_reads_tables_and_directives():
    text = (
        ".. currentmodule:: pkg\n\n.. autosummary::\n   :toctree: api\n\n   alpha\n   Beta\n\n"
        "Heading\n-------\n\n   not_an_entry\n\n.. py:data:: GAMMA\n   :value: 1\n"
    )
    assert documented(text) == {"pkg.alpha", "pkg.Beta", "pkg.GAMMA"}


def test_api_reference_lists_every_public_name():
    """Every name of the ``__all__`` of :func:`public_packages` and :func:`public_modules` is on
    docs/api.rst, under its own path or as the same object under another public path."""
    listed = documented((DOCS / "api.rst").read_text())
    objects = {id(resolve(name)) for name in listed}
    missing = []
    for module_name in [*public_packages(), *public_modules()]:
        # a package without __all__ (dualboost.boosting.core: the drivers' machinery) exports nothing
        for name in getattr(importlib.import_module(module_name), "__all__", ()):
            if name == "__version__":
                continue  # a string, shown in the site's title
            if f"{module_name}.{name}" not in listed and id(resolve(f"{module_name}.{name}")) not in objects:
                missing.append(f"{module_name}.{name}")
    assert not missing, "public names missing from docs/api.rst:\n" + "\n".join(missing)


def parameter_mismatches(obj: object) -> tuple[list[str], list[str]] | None:
    """The parameters of ``obj``'s signature that its numpydoc "Parameters" section does not name, and
    the names it lists that the signature does not have; None when there is no such section. Names
    starting with ``_`` (dataclass internals) are not required; ``**kwargs`` is named ``**kwargs``; a
    driver's run options are named one by one (``takes_run_options`` writes that entry)."""
    from numpydoc.docscrape import ClassDoc, FunctionDoc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpydoc's notes on sections it does not know
        doc = ClassDoc(obj) if inspect.isclass(obj) else FunctionDoc(obj)
    if not doc["Parameters"]:
        return None
    named = {part.strip().lstrip("*") for entry in doc["Parameters"] for part in entry.name.split(",")}
    actual = {name for name in inspect.signature(obj).parameters if name not in ("self", "cls")}
    required = {name for name in actual if not name.startswith("_")}
    return sorted(required - named), sorted(named - actual)


def test_parameter_sections_match_signatures():
    """Where a public function or class has a numpydoc "Parameters" section, it names exactly the
    parameters of the signature: a section cannot lose a parameter that was added, keep one that was
    removed, or swallow the next section (a "Returns" without the blank line above it reads as
    parameters)."""
    stale = []
    for name in sorted(documented((DOCS / "api.rst").read_text())):
        obj = resolve(name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            mismatch = parameter_mismatches(obj)
            if mismatch and (mismatch[0] or mismatch[1]):
                stale.append(f"{name}: not documented {mismatch[0]}, not parameters {mismatch[1]}")
    assert not stale, "Parameters sections that do not match the signature:\n" + "\n".join(stale)


def test_parameter_check_tells_a_stale_section():
    def documented_function(a, b=1, *, c=None):
        """Summary.

        Parameters
        ----------
        a : int
            A.
        b : int
            B.
        Returns
        -------
        int
        """

    assert parameter_mismatches(documented_function) == (["c"], ["-------", "Returns", "int"])


def test_site_builds_without_warnings(tmp_path):
    absent = [name for name in BUILD_REQUIREMENTS if importlib.util.find_spec(name) is None]
    if absent:
        pytest.fail(
            f"the documentation build needs {', '.join(absent)}: install the [docs] extra "
            '(python -m pip install -e ".[docs]"; the [dev] extra includes it)'
        )
    generated = shutil.ignore_patterns("_build", "api", "auto_gallery", "sg_execution_times.rst")
    shutil.copytree(DOCS, tmp_path / "docs", ignore=generated)
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # the pages link to the example scripts
    out = tmp_path / "html"
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "docs", str(out)]
    # the package documented is this checkout's (conf.py puts the copy's parent on sys.path)
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path for path in paths if path)}
    run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    problems = [line for line in run.stderr.splitlines() if re.search(r"WARNING|ERROR|Traceback", line)]
    assert run.returncode == 0 and not problems, (
        f"the site build failed (exit {run.returncode}):\n"
        + "\n".join(problems or run.stderr.splitlines()[-30:])
    )
    assert (out / "api.html").is_file() and (out / "auto_gallery" / "index.html").is_file()
    scripts = sorted((DOCS / "gallery").glob("plot_*.py"))
    assert len(scripts) >= 6, "the gallery has lost examples"
    for script in scripts:
        figures = list((out / "_images").glob(f"sphx_glr_{script.stem}_*.png"))
        assert figures, f"docs/gallery/{script.name} drew no figure"

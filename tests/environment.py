"""The tests' environment: where the LIBSVM data is, and how documented code and examples are run.

Data, one rule for the tests and the examples: the folder is ``$DUALBOOST_DATA`` when that variable
is set (and not empty), else ``../shared/data`` beside the repository. A test that needs a file
carries ``@requires_data("german.numer")`` (or ``pytestmark = requires_data(...)``) and is skipped,
saying where it looked, when the file is not there; ``DATA_DIR`` is the folder.

Documented code (tests/docs/test_docs.py) and examples (tests/docs/test_examples.py) run in a fresh process
with :func:`script_env`; :func:`needs` says which data and optional dependencies a piece of code uses.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FALLBACK = ROOT.parent / "shared" / "data"
_FROM_ENV = os.environ.get("DUALBOOST_DATA")
DATA_DIR = Path(_FROM_ENV).expanduser().resolve() if _FROM_ENV else FALLBACK

#: The files of each named data set (dualboost.datasets), as the shared folder holds them.
NAMED_FILES = {
    "german": ("german.numer",),
    "german.numer": ("german.numer",),
    "diabetes": ("diabetes",),
    "a9a": ("a9a.train", "a9a.valid", "a9a.test"),
}


def _where() -> str:
    unset = "$DUALBOOST_DATA is unset: ../shared/data beside the repository"
    source = "$DUALBOOST_DATA" if _FROM_ENV else unset
    absent = "" if DATA_DIR.is_dir() else "; the folder is absent"
    return f"{DATA_DIR} ({source}){absent}"


def missing_data(*files: str) -> list[str]:
    """The ``files`` that are not in :data:`DATA_DIR`."""
    return [name for name in files if not (DATA_DIR / name).is_file()]


def requires_data(*files: str) -> pytest.MarkDecorator:
    """Skip unless every one of ``files`` is in :data:`DATA_DIR`; the reason says where it looked."""
    missing = missing_data(*files)
    return pytest.mark.skipif(bool(missing), reason=f"{', '.join(missing)} not found in {_where()}")


def files_named_in(text: str) -> list[str]:
    """The data files a piece of code needs: those of every named data set it mentions."""
    names = re.findall(r"(?<![\w.])(german\.numer|german|diabetes|a9a)(?!\w)", text)
    return sorted({file for name in names for file in NAMED_FILES[name]})


def script_env() -> dict[str, str]:
    """The environment of a documented command or example: this one without anything that points into
    the repository (PYTHONPATH, PWD, ...; pytest's own variables), with ``DUALBOOST_DATA`` set to
    :data:`DATA_DIR` and this interpreter's ``bin`` directory first on PATH (its ``python`` and
    ``dualboost``)."""
    root = str(ROOT)
    env = {
        key: value
        for key, value in os.environ.items()
        if root not in value and key != "PYTHONPATH" and not key.startswith("PYTEST_")
    }
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and root not in p]
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), *path])
    env["DUALBOOST_DATA"] = str(DATA_DIR)
    return env


#: Optional dependencies (pyproject extras) and how code shows that it uses them.
OPTIONAL = {
    "distributed": (r"\b(dask|distributed)\b", "dask"),
    "matplotlib": (r"--plot\b|\bplot_history\b|\bmatplotlib\b", "plot"),
}


def needs(code: str) -> list[pytest.MarkDecorator]:
    """Skip marks for ``code``: the data files of the named data sets it mentions, and the optional
    dependencies it uses that are not installed."""
    marks = [requires_data(*files)] if (files := files_named_in(code)) else []
    for module, (pattern, extra) in OPTIONAL.items():
        if re.search(pattern, code) and importlib.util.find_spec(module) is None:
            reason = f"needs the optional dependency {module} (pip install -e '.[{extra}]')"
            marks.append(pytest.mark.skip(reason=reason))
    return marks


#: seconds a documented block or an example may take (they are sized to take a few seconds to ~20)
SCRIPT_TIMEOUT = 300


def run_script(command: list[str], cwd: Path, what: str) -> subprocess.CompletedProcess:
    """Run ``command`` in ``cwd`` with :func:`script_env`; fail the test, showing the ends of its
    output, unless it exits 0. ``what`` names it in that message (``the example x.py``)."""
    result = subprocess.run(
        command, cwd=cwd, env=script_env(), capture_output=True, text=True, timeout=SCRIPT_TIMEOUT
    )
    if result.returncode:
        pytest.fail(
            f"{what} exited {result.returncode}\n--- stdout (end) ---\n{result.stdout[-3000:]}"
            f"\n--- stderr (end) ---\n{result.stderr[-3000:]}",
            pytrace=False,
        )
    return result


def load_benchmark(name: str):
    """``benchmarks/<name>.py`` imported once per session, as the module ``_bench_<name>`` (the
    folder is not a package)."""
    key = f"_bench_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, ROOT / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]

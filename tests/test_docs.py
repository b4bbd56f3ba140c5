"""The README's Python snippet and the examples run and say what the docs say."""

from __future__ import annotations

import re
import runpy
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_snippet_runs(capsys):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the README has a Python example"
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    sol, model = namespace["sol"], namespace["model"]
    assert sol.status == "optimal"
    # the snippet's two maps agree with the solution (independent of the solver's own report)
    assert abs(model.dual_objective(namespace["w"]) - sol.dual_value) <= 1e-6
    assert abs(namespace["d"] - sol.d).max() <= 1e-5


def test_verify_erlpboost_example_matches_the_walkthrough():
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "verify_erlpboost.py")],
        capture_output=True, text=True, check=True, timeout=300,
    )
    lines = result.stdout.splitlines()
    gap = float(re.search(r"gap ([-0-9.e]+)", next(x for x in lines if x.startswith("certified"))).group(1))
    assert abs(gap) <= 1e-8
    assert "psi > 0 only where d_n = 1/nu: True" in result.stdout
    assert sum(" optimal " in x for x in lines) == 6


def test_examples_are_importable_scripts():
    for path in sorted((ROOT / "examples").glob("*.py")):
        source = path.read_text()
        assert source.startswith('"""'), f"{path.name} starts with a docstring saying what it shows"
        compile(source, str(path), "exec")


def test_docs_walkthrough_quotes_the_example():
    doc = (ROOT / "docs" / "verify-erlpboost-by-hand.md").read_text()
    assert "examples/verify_erlpboost.py" in doc
    ns = runpy.run_path(str(ROOT / "examples" / "verify_erlpboost.py"), run_name="not_main")
    # the numbers quoted in the doc are the ones the script computes (to the printed precision)
    assert f"{ns['eta']:.2f}" in "46.05"
    assert f"certified values:   primal {ns['P']:.10f}" in doc

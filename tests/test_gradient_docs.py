"""docs/gradient.md runs and says what it shows; the example names what it demonstrates."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "gradient.md"


def test_snippets_of_the_gradient_page_run_and_show_the_stall(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    printed = capsys.readouterr().out
    naive, residual = (
        float(re.search(rf"^{name} objective ([0-9.]+)", printed, re.M).group(1))
        for name in ("naive", "residual")
    )
    assert residual < 0.5 * naive  # the page's claim: naive ends far above residual
    below = float(re.search(r"0.9-quantile: ([0-9.]+)", printed).group(1))
    assert 0.8 <= below <= 0.97  # a pinball-loss fit puts about 90 % of the targets below it
    assert "HistoryRow(iteration=1" in printed


def test_example_and_benchmark_are_referenced():
    text = DOC.read_text()
    assert "examples/gradient_digits.py" in text and (ROOT / "examples" / "gradient_digits.py").is_file()
    assert "benchmarks/gradient.py" in text and (ROOT / "benchmarks" / "gradient.py").is_file()

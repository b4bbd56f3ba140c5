"""Every code block of README.md and docs/*.md runs as written, each on its own.

* ```python (or ```py) blocks: each one is a complete script. It is run by a fresh interpreter in an
  empty temporary directory, so it must hold its own imports and data.
* ```bash, ```sh, ```shell and ```console blocks: the commands run in bash, in order, in an empty
  temporary directory (with ``examples/`` linked into it, as in a clone); a ```console block's
  commands are its ``$ `` lines. Which commands are not run, and why, is in :func:`commands`.
* ```text blocks (output, formulas) are not run. Every block names its language, so that code cannot
  hide behind a bare fence.
* ```text output blocks quote what the block before them prints (its standard output): that block is
  run again and each line it prints must match the quoted line, where ``...`` stands for any text
  and a duration (a number followed by `` s``) for any duration (:func:`output_mismatch`), so that
  a quoted output cannot go stale.

The environment is :func:`environment.script_env`: the data in ``$DUALBOOST_DATA`` (the tests' data
folder) and nothing pointing into the repository. Blocks that use a named data set are skipped,
saying where the data was looked for, when it is absent (tests/environment.py). Test ids are
``<file>:<n>``, the n-th fenced block of the file, counting every fence.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.environment import ROOT, needs, run_script

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PYTHON, SHELL, NOT_RUN = {"python", "py"}, {"bash", "sh", "shell", "console"}, {"text"}


def fenced_blocks(path: Path) -> list[tuple[int, str, str]]:
    """(line of the opening fence, language, code) of every fenced block of a Markdown file."""
    blocks, lines = [], path.read_text().splitlines()
    opening = None
    for number, line in enumerate(lines, start=1):
        if opening is None and line.startswith("```"):
            opening = (number, line[3:].strip().split(" ")[0].lower(), [])
        elif opening is not None and line.strip() == "```":
            blocks.append((opening[0], opening[1], "\n".join(opening[2]) + "\n"))
            opening = None
        elif opening is not None:
            opening[2].append(line)
    assert opening is None, f"{path.name}:{opening[0]}: a fence is not closed"
    return blocks


def cases(languages: set[str]) -> list:
    return [
        pytest.param(path, line, language, code, id=f"{path.name}:{index}", marks=needs(code))
        for path in PAGES
        for index, (line, language, code) in enumerate(fenced_blocks(path), start=1)
        if language in languages
    ]


def commands(code: str, console: bool) -> tuple[list[str], list[str]]:
    """The shell commands of a block to run here, and those not run here, each with the reason."""
    run, not_run = [], []
    code = re.sub(r"\\\n\s*", " ", code)  # join continuation lines
    for line in code.splitlines():
        if console:
            if not line.startswith("$ "):
                continue  # output
            line = line[2:]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        line = re.sub(r"\s+#.*$", "", line)  # a trailing comment
        for command in (part.strip() for part in line.split("&&")):
            example = re.fullmatch(r"python (examples/\w+\.py)", command)
            if re.search(r"\bpip install\b", command):
                # Installs into the environment the tests run in, where the package is installed
                # (editable, with the [dev] extras) already; it would also need the network.
                not_run.append(f"{command} (installs the package, which is installed)")
            elif re.match(r"((python -m )?pytest|(bash )?\.?/?\.ci/)", command):
                not_run.append(f"{command} (runs the test suite, and so this test again)")
            elif re.match(r"python -m sphinx\b", command):
                not_run.append(f"{command} (tests/docs/test_site.py builds the site, once)")
            elif example and (ROOT / example[1]).is_file():
                not_run.append(f"{command} (tests/docs/test_examples.py runs every example, once)")
            else:
                run.append(command)
    return run, not_run


def run_block(page: Path, line: int, language: str, code: str, tmp_path: Path):
    """Run a Python block (a script) or a shell block (its commands, :func:`commands`) in ``tmp_path``."""
    if language in PYTHON:
        (tmp_path / "block.py").write_text(code)
        return run_script([sys.executable, "block.py"], tmp_path, f"the Python block at {page.name}:{line}")
    run, _ = commands(code, console=language == "console")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    script = "set -eu\ntrap 'echo \"failed: $BASH_COMMAND\" >&2' ERR\n" + "\n".join(run) + "\n"
    return run_script(["bash", "-c", script], tmp_path, f"the commands at {page.name}:{line}")


@pytest.mark.parametrize(("page", "line", "language", "code"), cases(PYTHON))
def test_python_block_runs_on_its_own(page, line, language, code, tmp_path):
    run_block(page, line, language, code, tmp_path)


#: the shell blocks with a command to run here (a block of install and test-suite commands only,
#: such as the README's quick start, has none: CI runs exactly those, .ci/run)
SHELL_CASES = [case for case in cases(SHELL) if commands(case.values[3], case.values[2] == "console")[0]]


@pytest.mark.parametrize(("page", "line", "language", "code"), SHELL_CASES)
def test_shell_block_runs(page, line, language, code, tmp_path):
    run_block(page, line, language, code, tmp_path)


#: a duration in a quoted output (``0.134 s``), which matches any duration
_DURATION = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)? s\b")


def output_mismatch(quoted: str, printed: str) -> str | None:
    """None if ``printed`` matches the ``quoted`` output line by line (``...``: any text; a duration:
    any duration), else the first line that differs, quoted and printed."""
    quoted_lines, printed_lines = quoted.rstrip("\n").splitlines(), printed.rstrip("\n").splitlines()
    for k in range(max(len(quoted_lines), len(printed_lines))):
        want = quoted_lines[k] if k < len(quoted_lines) else "(nothing)"
        got = printed_lines[k] if k < len(printed_lines) else "(nothing)"
        pieces = [re.escape(part) for part in _DURATION.split(want)]
        pattern = r"\d+(?:\.\d+)?(?:e[-+]?\d+)? s".join(pieces).replace(re.escape("..."), ".*")
        if re.fullmatch(pattern, got.rstrip()) is None:
            return f"line {k + 1}: quoted\n  {want}\nbut the program prints\n  {got}"
    return None


def output_cases() -> list:
    """(page, line of the output block, the block before it) of every ```text output block."""
    found = []
    for page in PAGES:
        blocks, lines = fenced_blocks(page), page.read_text().splitlines()
        for k, (line, language, quoted) in enumerate(blocks):
            if language == "text" and lines[line - 1].split()[1:] == ["output"]:
                before = blocks[k - 1] if k else (0, "none", "")
                name = f"{page.name}:{line}"
                found.append(pytest.param(page, line, before, quoted, id=name, marks=needs(before[2])))
    return found


@pytest.mark.parametrize(("page", "line", "before", "quoted"), output_cases())
def test_quoted_output_is_what_the_block_before_prints(page, line, before, quoted, tmp_path):
    where = f"{page.name}:{line}"
    assert before[1] in PYTHON | SHELL, f"{where}: a text output block must follow a block that runs"
    printed = run_block(page, before[0], before[1], before[2], tmp_path).stdout
    mismatch = output_mismatch(quoted, printed)
    assert mismatch is None, f"{page.name}:{line}: the quoted output is stale: {mismatch}"


def test_the_output_check_tells_a_stale_quote():
    """The check of quoted outputs: a duration matches any duration, ``...`` any text, and the number
    that docs/boosting.md quoted before it was checked (tol = 0.00125, the program prints 0.0025) fails."""
    printed = "  parameters: eps = 0.01, tol = 0.0025\n  time: 0.134 s (oracle 0.011 s)\n"
    quoted = "  parameters: eps = 0.01, tol = 0.0025\n  time: 0.2 s (oracle 1 s)"
    assert output_mismatch(quoted, printed) is None
    assert output_mismatch("  parameters: ...\n  time: ...", printed) is None
    stale = output_mismatch("  parameters: eps = 0.01, tol = 0.00125\n  time: 0.2 s (oracle 1 s)", printed)
    assert stale is not None and "tol = 0.00125" in stale
    assert output_mismatch("  parameters: eps = 0.01, tol = 0.0025", printed) is not None  # a line missing


def untagged_outputs(page: Path) -> list[int]:
    """The lines of the ```text blocks of ``page`` that come right after a block that runs (nothing but
    blank lines between) without the ``output`` tag: a quote of what that block prints, unchecked."""
    lines, found = page.read_text().splitlines(), []
    blocks = fenced_blocks(page)
    for (_, before, _), (line, language, _) in zip(blocks, blocks[1:], strict=False):
        if language != "text" or before not in PYTHON | SHELL or lines[line - 1].split()[1:] == ["output"]:
            continue
        closing = next(k for k in range(line - 2, -1, -1) if lines[k].strip())  # the line above, 0-based
        if lines[closing].strip() == "```":
            found.append(line)
    return found


def test_output_right_after_a_block_is_checked():
    """Every output quoted right below the block that prints it is a ```text output block, so that
    :func:`test_quoted_output_is_what_the_block_before_prints` checks it."""
    found = [f"{page.name}:{line}" for page in PAGES for line in untagged_outputs(page)]
    assert not found, "```text blocks right after a block that runs, not tagged `output`: " + ", ".join(found)


def test_boosting_page_lists_every_algorithm_of_the_command_line():
    """docs/boosting.md section 1 lists the algorithms that ``dualboost boost --algorithm`` takes, with
    their number (its list once named 7 of 14), and the page's first paragraph gives the same count."""
    from dualboost.cli_names import ALGORITHMS  # the choices of --algorithm

    page = (ROOT / "docs" / "boosting.md").read_text()
    choices = ALGORITHMS
    listed = re.search(r"`--algorithm` \((\d+): (.*?)\), `--oracle`", page, re.S)
    assert listed, "docs/boosting.md no longer lists the --algorithm choices"
    names = set(re.findall(r"\b[a-z][a-z_]*[a-z]\b", listed.group(2))) & set(choices)
    assert int(listed.group(1)) == len(choices) and names == set(choices), (
        f"docs/boosting.md lists {listed.group(1)} algorithms; dualboost boost takes {len(choices)}: "
        f"missing {sorted(set(choices) - names)}"
    )
    assert f"{len(choices)} in all" in page.split("\n\n")[1], "the first paragraph's count is stale"


def test_every_block_names_a_known_language():
    for page in PAGES:
        for line, language, _ in fenced_blocks(page):
            assert language in PYTHON | SHELL | NOT_RUN, (
                f"{page.name}:{line}: the block's language is {language!r}; use python or bash for code "
                "that runs, text for output and anything else"
            )


def test_referenced_scripts_exist():
    for page in PAGES:
        for script in re.findall(r"\b((?:examples|benchmarks)/\w+\.py)\b", page.read_text()):
            assert (ROOT / script).is_file(), f"{page.name} refers to {script}, which does not exist"

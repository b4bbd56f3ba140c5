"""Sphinx configuration of the documentation site (docs/index.md#building-the-site).

Build it with ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` after
``python -m pip install -e ".[docs]"``. It works offline: no intersphinx, no remote images.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import dualboost

DOCS = Path(__file__).resolve().parent
# the gallery's scripts draw with matplotlib's file backend, and find the package of this checkout
os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, str(DOCS.parent))

project = "dualboost"
author = "the dualboost authors"
copyright = "the dualboost authors"
release = version = dualboost.__version__

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "gallery/README.rst", "gallery/GALLERY_HEADER.rst"]
templates_path = ["_templates"]

# The markdown pages keep GitHub's anchors (docstrings cite docs/<page>.md#<anchor>: tests/test_citations.py).
myst_heading_anchors = 6
myst_enable_extensions = ["colon_fence"]

# API reference: autosummary writes one page per public name into api/ (generated, not committed).
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# Gallery: every script runs at build time and its figures are embedded (docs/index.md#gallery).
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_gallery",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
}



# dualboost's docstrings write |x| for an absolute value and ||x|| for a norm, as docs/math.md does,
# and define no reStructuredText substitution: a bar is text, never a substitution reference.
_BAR = re.compile(r"(``.*?``)|\|")


def escape_bars(app, what, name, obj, options, lines: list[str]) -> None:
    """autodoc-process-docstring: escape every ``|`` outside inline literals (see above)."""
    for k, line in enumerate(lines):
        if not line.lstrip().startswith((">>>", "...")):
            lines[k] = _BAR.sub(lambda m: m.group(1) or r"\|", line)


def skip_foreign_members(app, what, name, obj, skip, options):
    """autodoc-skip-member: document only members that dualboost defines (not the methods that
    scikit-learn generates on every estimator, such as ``set_fit_request``, documented there)."""
    module = getattr(obj, "__module__", None) or ""
    if what == "class" and callable(obj) and not module.startswith("dualboost"):
        return True
    return skip


def setup(app) -> None:
    app.connect("autodoc-process-docstring", escape_bars, priority=400)
    app.connect("autodoc-skip-member", skip_foreign_members)


html_theme = "alabaster"
html_title = f"dualboost {release}"
html_static_path: list[str] = []
# MathJax is loaded from its CDN by the browser when a page with math is viewed; the build itself
# fetches nothing.
# The global table of contents in the sidebar of every one of the ~230 pages of api/ would double the
# build time (it is rendered per page); those pages link up to the reference and to their neighbours.
html_sidebars = {
    "api/*": ["relations.html", "searchbox.html"],
    "*": ["about.html", "navigation.html", "relations.html", "searchbox.html"],
    "auto_gallery/*": ["about.html", "navigation.html", "relations.html", "searchbox.html"],
}

"""Sphinx configuration of the course's site (``make site``).

``python -m torchcourse.authoring.site`` stages the sources (the stored notebooks, the docs and
an index generated from the course's module table) into a folder of their own and runs
``sphinx-build -c docs/site`` on it, so this file is the whole configuration and the staged
folder holds only what the site shows. Nothing is executed: myst-nb renders the outputs stored
in the ``.ipynb`` files, which nbval checks. The repository address for the "open in Colab"
buttons comes from the environment set by the stager (``TORCHCOURSE_SITE_REPOSITORY``, taken
from ``[project.urls] Repository`` in pyproject.toml); without one, no launch button is made.
"""

from __future__ import annotations

import os
import re

project = "PyTorch as a computation library"
author = "the course's authors"
copyright = "the course's authors; text CC BY 4.0, code MIT"

extensions = ["myst_nb"]

# The stored outputs are the pages' outputs: never run a notebook to build the site.
nb_execution_mode = "off"
nb_merge_streams = True
# Markdown outputs (module 00 displays the module table with IPython's Markdown) have tables:
# GitHub-flavoured Markdown, as JupyterLab renders them (myst-nb's default, CommonMark, has none)
nb_render_markdown_format = "gfm"
# Markdown headings get anchors (README.md#modules becomes index.html#modules).
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "amsmath"]
# lessons.md is the root of the PDF's single-page book (site.lessons_pdf), not a page of the site
exclude_patterns = ["_build", "**.ipynb_checkpoints", "lessons.md"]
master_doc = "index"
smartquotes = False  # the text as the notebooks show it in JupyterLab
language = "en"

# Tolerated warnings (the build runs with -W; anything else fails it):
# - myst.header: lessons go from the title (H1) straight to H3 exercise headings, which is
#   how the notebooks read in JupyterLab.
# - misc.highlighting_failure: a few stored tracebacks (torch.compile's errors quote code in
#   backticks) are more than IPython's traceback lexer parses; Pygments then shows them in
#   relaxed mode, complete and readable.
suppress_warnings = ["myst.header", "misc.highlighting_failure"]
# A preview of some modules only (site --only 00 02) links to pages it leaves out.
if os.environ.get("TORCHCOURSE_SITE_PARTIAL"):
    suppress_warnings.append("myst.xref_missing")

html_theme = "sphinx_book_theme"
html_title = project
html_copy_source = True  # the download button offers the page's .ipynb from _sources/
html_last_updated_fmt = None
html_static_path: list[str] = []
_mathjax = os.environ.get("TORCHCOURSE_SITE_MATHJAX", "")
if _mathjax:  # MathJax from the installed packages, copied into the site: math renders offline
    html_static_path.append(_mathjax)
    # jupyter-server-mathjax's MathJax 2 (the one Jupyter's classic notebook serves): its one
    # configuration, HTML-CSS output and STIX-Web fonts
    mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
    mathjax2_config = {
        "messageStyle": "none",
        # MyST marks pages tex2jax_ignore (a $ in prose is not math); Sphinx's math is class "math"
        "tex2jax": {"processClass": "tex2jax_process|mathjax_process|math|output_area"},
        "HTML-CSS": {"availableFonts": [], "webFont": "STIX-Web", "imageFont": None, "preferredFont": None},
    }

_repository = os.environ.get("TORCHCOURSE_SITE_REPOSITORY", "").strip()
_github = re.match(r"https://github\.com/[^/]+/[^/]+?(?:\.git)?/?$", _repository)
html_theme_options = {
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "show_prev_next": True,
    "path_to_docs": "",  # the staged folder mirrors the repository's layout
}
if _github:
    html_theme_options |= {
        "repository_url": re.sub(r"(\.git)?/?$", "", _repository),
        "repository_branch": os.environ.get("TORCHCOURSE_SITE_BRANCH", "main"),
        "use_repository_button": True,
        "launch_buttons": {"colab_url": "https://colab.research.google.com"},
    }

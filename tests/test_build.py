"""The build's stub generation and the preflight's verdict logic."""

from __future__ import annotations

import pytest

from torchcourse import preflight
from torchcourse.authoring.build import BuildError, make_exercise
from torchcourse.authoring.course import ROOT

SOLUTION = '''\
# %%
def f(x):
    """Double x."""
    ### BEGIN SOLUTION
    y = x * 2
    return y
    ### END SOLUTION


check("00.1", f)

# %% [markdown]
# Why?
# ### BEGIN SOLUTION
# Because.
# ### END SOLUTION
'''


def test_code_region_becomes_an_indented_stub():
    out = make_exercise(SOLUTION)
    assert "y = x * 2" not in out and "return y" not in out
    assert '    """Double x."""\n    # YOUR CODE HERE\n    raise NotImplementedError\n' in out
    assert 'check("00.1", f)' in out


def test_markdown_region_becomes_an_invitation():
    out = make_exercise(SOLUTION)
    assert "Because." not in out and "# *Write your answer here.*" in out


def test_text_outside_regions_is_kept_verbatim():
    plain = "# %%\nx = 1\n"
    assert make_exercise(plain) == plain


@pytest.mark.parametrize(
    "broken, fragment",
    [
        ("### BEGIN SOLUTION\nx = 1\n", "never closed"),
        ("x = 1\n### END SOLUTION\n", "without a BEGIN"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n", "inside the region"),
    ],
)
def test_unbalanced_markers_are_reported_with_a_line(broken, fragment):
    with pytest.raises(BuildError, match=fragment):
        make_exercise(broken, "solutions/x.py")


def test_every_solution_region_in_the_course_is_removed():
    for py in (ROOT / "solutions").glob("*.py"):
        source = py.read_text(encoding="utf-8")
        assert source.count("### BEGIN SOLUTION") >= 6, f"{py.name}: fewer solution regions than exercises"
        assert "### BEGIN SOLUTION" not in make_exercise(source)


def test_preflight_verdict_is_fatal_only_when_the_course_cannot_run():
    ok = preflight.Item("torch", True, "2.13.0")
    note = preflight.Item("CUDA", False, "no CUDA GPU found", "use a GPU machine")
    fatal = preflight.Item("torch", False, "not installed", "pip install", fatal=True)
    assert "ready for every module (00-17) (1 note(s)" in preflight.report([ok, note])
    assert "→ use a GPU machine" in preflight.report([ok, note])
    assert "cannot run here" in preflight.report([ok, fatal])


def test_preflight_runs_and_measures_bandwidth():
    items = preflight.run(compile_check=False)
    names = [i.name for i in items]
    assert {"Python", "torch", "CPU", "C++ compiler", "bandwidth"} <= set(names)
    bandwidth = next(i for i in items if i.name == "bandwidth")
    assert "GB/s" in bandwidth.detail and not any(i.fatal and not i.ok for i in items)


def test_prose_changes_are_copied_without_execution(tmp_path):
    import json
    import shutil

    from torchcourse.authoring.build import refresh_markdown, staleness

    py = tmp_path / "03_strides.py"
    shutil.copy(ROOT / "notebooks" / "03_strides.py", py)
    shutil.copy(ROOT / "notebooks" / "03_strides.ipynb", tmp_path / "03_strides.ipynb")
    before = json.loads((tmp_path / "03_strides.ipynb").read_text())
    py.write_text(py.read_text().replace("# ## Row-major layout", "# ## Row-major layout, revised"))
    assert staleness(py) == "cell sources differ from the .py"
    assert refresh_markdown(py)
    assert staleness(py) is None
    after = json.loads((tmp_path / "03_strides.ipynb").read_text())
    code = [(c["source"], c["outputs"], c["execution_count"]) for c in before["cells"] if c["cell_type"] == "code"]
    assert code == [
        (c["source"], c["outputs"], c["execution_count"]) for c in after["cells"] if c["cell_type"] == "code"
    ]
    assert any("Row-major layout, revised" in "".join(c["source"]) for c in after["cells"])
    # expanding the collapsed setup cell is a display change: copied, not executed
    py.write_text(py.read_text().replace(' jupyter={"source_hidden": true}', "", 1))
    assert staleness(py) == "cell sources differ from the .py"
    assert refresh_markdown(py) and staleness(py) is None
    expanded = json.loads((tmp_path / "03_strides.ipynb").read_text())["cells"][1]
    assert "jupyter" not in expanded["metadata"] and expanded["outputs"] == after["cells"][1]["outputs"]


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s.replace(
            "m = torch.arange(12, dtype=torch.float32)", "m = torch.arange(12.0)", 1
        ),  # a code cell changed
        lambda s: s.replace(
            "# %% [markdown]\n# ## Row-major layout", "# %%\nx = 1\n\n# %% [markdown]\n# ## Row-major layout"
        ),
        lambda s: s.replace('# %% tags=["raises-exception"]', "# %%", 1),  # a code cell's tags changed
    ],
    ids=["code source", "a new code cell", "code tags"],
)
def test_code_changes_still_need_execution(tmp_path, edit):
    import shutil

    from torchcourse.authoring.build import refresh_markdown

    py = tmp_path / "03_strides.py"
    shutil.copy(ROOT / "notebooks" / "03_strides.ipynb", tmp_path / "03_strides.ipynb")
    source = (ROOT / "notebooks" / "03_strides.py").read_text()
    assert edit(source) != source, "the edit must change the source"
    py.write_text(edit(source))
    stored = (tmp_path / "03_strides.ipynb").read_text()
    assert not refresh_markdown(py)
    assert (tmp_path / "03_strides.ipynb").read_text() == stored

"""Pictures of memory: a tensor's flat storage, the views over it, and its strides.

Modules 02 (storage and views) and 03 (strides) teach that a tensor is a *view*: a
flat buffer plus three pieces of metadata (size, stride, storage offset). Those ideas
are easier to see than to read, so these functions draw them with matplotlib from the
tensors themselves: every index drawn is computed from ``stride()`` and
``storage_offset()``, never typed by hand, so a picture cannot disagree with PyTorch.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

# Distinct, colour-blind friendly colours (Okabe-Ito), one per view or per row.
COLOURS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999"]


def storage_numel(t: torch.Tensor) -> int:
    """How many elements of ``t``'s dtype fit in its whole storage (not just the ones ``t`` uses)."""
    return t.untyped_storage().nbytes() // t.element_size()


def storage_index(t: torch.Tensor) -> torch.Tensor:
    """For every element of ``t``, the position in the storage it reads (same shape as ``t``).

    Position = offset + sum(index[d] * stride[d]): the one formula behind every view.
    It is computed by applying ``t``'s own size/stride/offset to ``arange``, so it is
    exactly what PyTorch does, including stride 0 and overlapping windows.
    """
    positions = torch.arange(storage_numel(t))
    return positions.as_strided(t.shape, t.stride(), t.storage_offset())


def _label(t: torch.Tensor) -> str:
    return f"size {tuple(t.shape)}, stride {t.stride()}, offset {t.storage_offset()}"


def _cell(ax: Axes, x: float, y: float, text: str, colour: str = "white", *, bold: bool = False) -> None:
    ax.add_patch(Rectangle((x, y), 1, 1, facecolor=colour, edgecolor="black", linewidth=1))
    ax.text(x + 0.5, y + 0.5, text, ha="center", va="center", fontsize=9, fontweight="bold" if bold else "normal")


def _fmt(value: float) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def draw_storage(
    base: torch.Tensor, views: Mapping[str, torch.Tensor], *, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """Draw ``base``'s storage as one row of cells and, under it, one row per view.

    Each view's row colours the storage cells it reads and numbers them in the order
    the view visits them (row-major over the view's shape). Cells no view reads stay
    white: a view is a window onto the same bytes, not a new array. Views must share
    ``base``'s storage; one that does not (a copy) is drawn with "(own storage)".
    """
    n = storage_numel(base)
    values = base.detach().as_strided((n,), (1,), 0).tolist()  # the whole flat buffer, from position 0
    rows = len(views) + 1
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(6.0, 0.55 * n + 3.5), 0.6 * rows + 0.9))
    fig = ax.figure
    top = rows - 1
    ax.text(-0.3, top + 0.5, "storage", ha="right", va="center", fontsize=10, fontweight="bold")
    for i in range(n):
        _cell(ax, i, top, _fmt(values[i]), "#eeeeee")
        ax.text(i + 0.5, top + 1.15, str(i), ha="center", va="bottom", fontsize=7, color="dimgray")
    for r, (name, view) in enumerate(views.items()):
        y = top - 1 - r
        colour = COLOURS[r % len(COLOURS)]
        shared = view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
        ax.text(-0.3, y + 0.5, name, ha="right", va="center", fontsize=10, color="black")
        if not shared:
            ax.text(
                0.1, y + 0.5, f"{name}: (own storage, a copy) {_label(view)}", va="center", fontsize=9, style="italic"
            )
            continue
        order: dict[int, list[int]] = {}
        for k, pos in enumerate(storage_index(view).flatten().tolist()):
            order.setdefault(pos, []).append(k)
        for i in range(n):
            if i in order:
                _cell(ax, i, y, ",".join(map(str, order[i][:3])), colour)
            else:
                ax.add_patch(Rectangle((i, y), 1, 1, facecolor="white", edgecolor="#cccccc", linewidth=0.5))
        ax.text(n + 0.3, y + 0.5, _label(view), va="center", fontsize=8, color="dimgray")
    ax.set_xlim(-3.2, n + 7.5)
    ax.set_ylim(-0.2, rows + 0.6)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title or "one storage, several views (numbers in a view's row: its element order)", fontsize=10)
    return fig


def draw_strides(t: torch.Tensor, *, ax: Axes | None = None, title: str | None = None) -> Figure:
    """Draw a 1-D or 2-D tensor twice: as the grid you index and as the storage it reads.

    Left, the logical grid, each cell labelled with the storage position it reads and
    coloured by row. Right of it, the storage strip with the same colours (a position
    read by several rows, as in overlapping windows, takes the first row's colour). Two arrows on
    the strip show one step along each dimension: the stride, in elements. A
    contiguous tensor paints the strip in solid blocks; a transposed one interleaves.
    """
    grid = storage_index(t)
    if grid.dim() == 1:
        grid = grid.unsqueeze(0)
    elif grid.dim() != 2:
        raise ValueError(f"draw_strides draws 1-D and 2-D tensors; got {t.dim()}-D (index or flatten it first)")
    rows, cols = grid.shape
    n = storage_numel(t)
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(5.0, 0.5 * (cols + n) + 2.5), 0.55 * max(rows, 2) + 1.6))
    fig = ax.figure
    colour_of: dict[int, str] = {}
    for r in range(rows):
        for c in range(cols):
            pos = int(grid[r, c])
            colour_of.setdefault(pos, COLOURS[r % len(COLOURS)])
            _cell(ax, c, rows - 1 - r, str(pos), COLOURS[r % len(COLOURS)])
    ax.text(
        cols / 2,
        rows + 0.25,
        f"the tensor {tuple(t.shape)}\n(cells: storage position)",
        ha="center",
        va="bottom",
        fontsize=8,
    )
    x0, y0 = cols + 1.5, (rows - 1) / 2
    for i in range(n):
        _cell(ax, x0 + i, y0, str(i), colour_of.get(i, "white"))
    ax.text(x0 + n / 2, y0 + 1.25, "storage", ha="center", va="bottom", fontsize=8)
    steps = (
        [("next element", t.stride(0))]
        if t.dim() == 1
        else [(name, s) for name, s, size in zip(("next row", "next column"), t.stride(), t.shape) if size > 1]
    )
    start = t.storage_offset()
    for k, ((name, stride), shade) in enumerate(zip(steps, ("#aa0000", "#444444"))):
        dy = -0.15 - 0.9 * k
        a, b = x0 + start + 0.5, x0 + start + stride + 0.5
        if stride != 0:
            ax.add_patch(
                FancyArrowPatch(
                    (a, y0 + dy),
                    (b, y0 + dy),
                    connectionstyle="arc3,rad=0.3",
                    arrowstyle="-|>",
                    mutation_scale=10,
                    color=shade,
                    linewidth=1.2,
                )
            )
        note = " (the same cells again)" if stride == 0 else ""
        ax.text(
            x0 + n + 0.3, y0 + dy - 0.3, f"{name}: +{stride}{note}", ha="left", va="center", fontsize=8, color=shade
        )
    ax.set_xlim(-0.5, x0 + n + 6.5)
    ax.set_ylim(min(-0.2, y0 - 2.4), rows + 1.2)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title or _label(t), fontsize=10)
    return fig


def draw_stride_panels(tensors: Mapping[str, torch.Tensor], *, width: float = 11.0) -> Figure:
    """Several :func:`draw_strides` pictures stacked, titled by name and metadata, to compare layouts."""
    fig, axes = plt.subplots(len(tensors), 1, figsize=(width, 2.3 * len(tensors)))
    axes = [axes] if len(tensors) == 1 else list(axes)
    for ax, (name, t) in zip(axes, tensors.items()):
        draw_strides(t, ax=ax, title=f"{name}: {_label(t)}, contiguous: {t.is_contiguous()}")
    fig.tight_layout()
    return fig

"""Module 01 "From data to tensors": images, tables and texts as tensors, creation, indexing, bytes."""

from __future__ import annotations

import csv
import sys

import torch
import torch.nn.functional as F

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._inputs import generator, randint, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import container
from torchcourse.grading.rules import Holds

to_chw_float = solution("01", "to_chw_float")


decades = solution("01", "decades")


standardise_columns = solution("01", "standardise_columns")


char_ids = solution("01", "char_ids")


one_hot_float = solution("01", "one_hot_float")


mirror = solution("01", "mirror")


list_and_tensor_bytes = solution("01", "list_and_tensor_bytes")


parse_table = solution("01", "parse_table")


# --- inputs -------------------------------------------------------------------------------


def _image_cases():
    return [
        (randint(0, 256, 4, 5, 3, seed=101, dtype=torch.uint8),),
        (randint(0, 256, 2, 7, 1, seed=102, dtype=torch.uint8),),
        (randint(0, 256, 6, 6, 4, seed=103, dtype=torch.uint8),),
    ]


def _table_cases():
    scale = torch.tensor([1.0, 10.0, 0.1, 3.0])
    shift = torch.tensor([5.0, -2.0, 0.0, 100.0])
    return [
        (randn(150, 4, seed=111) * scale + shift,),
        (randn(20, 3, seed=112, dtype=torch.float64) * 2 + 1,),
        (randn(7, 2, seed=113),),
        (randn(4, 9, seed=114) * 1000 + 1e4,),  # wide (more columns than rows), far from 0
        (randn(2, 1, seed=115),),  # two rows: the smallest table with a std
        (randn(3, 5, seed=116).T * 3,),  # transposed: not contiguous
        (randn(30, 2, seed=117, dtype=torch.float16),),
    ]


def _bytes_cases():
    # tolist() makes a fresh float object for every element, as a list read from a file has,
    # equal values included: rounded measurements repeat (the iris list has 74 distinct values of 600)
    return [(randn(n, seed=120 + n).tolist(),) for n in (1, 10, 1000)] + [
        ([0.5, 2.0, 0.5, 0.5],),
        ((2 * randn(300, seed=124)).round().tolist(),),
    ]


def _parse_types(args: tuple, got) -> str | None:
    """01.8: "returns a tuple (features, labels, names)", names "the list of distinct class names"."""
    return container(tuple)(args, got) or container(list, "names")(args, got[2])


def _iris_lines(n, seed):
    """A header and n rows of data/iris.csv in a seeded random order."""
    from torchcourse import data_path

    lines = data_path("iris.csv").read_text().splitlines()
    order = torch.randperm(len(lines) - 1, generator=generator(seed))[:n] + 1
    return [lines[0]] + [lines[i] for i in order.tolist()]


def _parse_cases():
    small = [
        "weight_g,length_cm,animal",
        "4.5,2.0,mouse",
        "3900,60,dog",
        "20.5,9.0,bat",
        "4100,65,dog",
        "5.0,2.2,mouse",
    ]
    return [(_iris_lines(12, seed=131),), (small,), (_iris_lines(150, seed=132),)]


EXERCISES = [
    Exercise(
        "01.1",
        "A photo as channels x height x width floats (warm-up)",
        to_chw_float,
        cases=_image_cases,
        hints=[
            "The file gives (H, W, C); permute(2, 0, 1) moves the channel dimension to the front.",
            "uint8 holds 0..255: convert with .float() and divide by 255 to land in [0, 1].",
        ],
        wrong=[
            lambda img: img.reshape(img.shape[2], img.shape[0], img.shape[1]).float() / 255,
            lambda img: img.permute(2, 0, 1).float(),
            lambda img: img.permute(2, 1, 0).float() / 255,
        ],
    ),
    Exercise(
        "01.2",
        "A grid of sample points per decade",
        decades,
        # (0, 2, 3): arange(lo, hi + 1/3, 1/3) rounds to one point past 10**hi
        cases=lambda: [(0, 3, 1), (-2, 1, 4), (1, 2, 10), (-3, 3, 7), (0, 2, 3)],
        # float64 points: as accurate as float64 computes them (float32 points cast up are off by ~5e-8)
        rtol=1e-12,
        atol=0.0,
        hints=[
            "torch.logspace(start, end, steps) spaces points evenly in the exponent: 10**start ... 10**end.",
            "Count the points: (hi - lo) decades of per_decade steps each, plus one for the end point. "
            "Ask for dtype=torch.float64.",
        ],
        wrong=[
            lambda lo, hi, per_decade: torch.logspace(lo, hi, (hi - lo) * per_decade, dtype=torch.float64),
            lambda lo, hi, per_decade: torch.linspace(
                10.0**lo, 10.0**hi, (hi - lo) * per_decade + 1, dtype=torch.float64
            ),
            lambda lo, hi, per_decade: torch.logspace(lo, hi, (hi - lo) * per_decade + 1),
            lambda lo, hi, per_decade: torch.logspace(lo, hi, (hi - lo) * per_decade + 1).double(),
            lambda lo, hi, per_decade: 10 ** torch.arange(lo, hi + 1 / per_decade, 1 / per_decade, dtype=torch.float64),
        ],
    ),
    Exercise(
        "01.3",
        "Normalise the columns of a table",
        standardise_columns,
        cases=_table_cases,
        float64_truth=True,  # a float64-then-cast or std_mean answer is more accurate than the reference
        hints=[
            "One mean and one std per column: reduce down the rows, with dim=0.",
            "table.mean(dim=0) has one value per column; broadcasting subtracts it from every row. "
            "Use PyTorch's default std (with Bessel's correction).",
        ],
        wrong=[
            lambda t: (t - t.mean()) / t.std(),
            lambda t: (t - t.mean(dim=1, keepdim=True)) / t.std(dim=1, keepdim=True),
            lambda t: (t - t.mean(dim=0)) / t.std(dim=0, correction=0),
            lambda t: (t - t.mean(dim=0)) / t.std(dim=0, keepdim=True).T,  # per-row std: rejected on a wide table
        ],
    ),
    Exercise(
        "01.4",
        "Characters to token ids",
        char_ids,
        cases=lambda: [("hello world",), ("The Zen of Python",), ("abba",), ("z",), ("café crème",), ("",)],
        hints=[
            "The vocabulary is sorted(set(text)); a character's id is its position in that list.",
            "Build a Python list of ids and make it a tensor with dtype=torch.int64, the dtype one_hot and "
            "embeddings want (torch.tensor guesses int64 from ints, but float32 for an empty list). "
            "A dict {ch: i} makes the lookup fast for long texts.",
        ],
        wrong=[
            lambda text: torch.tensor([list(dict.fromkeys(text)).index(ch) for ch in text]),
            lambda text: torch.tensor([ord(ch) for ch in text]),
            lambda text: torch.tensor([sorted(set(text)).index(ch) for ch in text], dtype=torch.int32),
            lambda text: torch.unique(torch.tensor(list(text.encode())), return_inverse=True)[1],  # UTF-8 bytes
            lambda text: torch.tensor([sorted(set(text)).index(ch) for ch in text]),  # float32 for ""
        ],
    ),
    Exercise(
        "01.5",
        "One-hot rows as floats",
        one_hot_float,
        cases=lambda: [
            (randint(0, 5, 10, seed=141), 8),
            (torch.tensor([2, 0, 1]), 3),
            (randint(0, 30, 4, 6, seed=142), 40),
        ],
        hints=[
            "torch.nn.functional.one_hot(ids, num_classes=...) adds a last dimension of that size.",
            "one_hot returns int64 and, without num_classes, only ids.max() + 1 columns. "
            "Convert to float32 with .float().",
        ],
        wrong=[
            lambda ids, vocab_size: F.one_hot(ids).float(),
            lambda ids, vocab_size: F.one_hot(ids, num_classes=vocab_size),
            lambda ids, vocab_size: F.one_hot(ids.flatten(), num_classes=vocab_size).float(),
        ],
    ),
    Exercise(
        "01.6",
        "Mirror a batch of images",
        mirror,
        cases=lambda: [
            (randn(2, 3, 4, 5, seed=151),),
            (randn(1, 1, 3, 3, seed=152),),
            (randint(0, 256, 3, 3, 2, 6, seed=153, dtype=torch.uint8),),
        ],
        hints=[
            "Left-right mirroring reverses the width, the last dimension of N x C x H x W.",
            "PyTorch refuses negative slice steps (batch[..., ::-1]); tensor.flip(dims) reverses instead.",
        ],
        wrong=[lambda b: b.flip(-2), lambda b: b.flip(0), lambda b: b[..., ::-1]],
    ),
    Exercise(
        "01.7",
        "Boxed floats vs an unboxed tensor, in bytes",
        list_and_tensor_bytes,
        cases=_bytes_cases,
        hints=[
            "sys.getsizeof(lst) counts only the list's own array of pointers, not the float objects; "
            "add sys.getsizeof of every element.",
            "A tensor's data takes element_size() * numel() bytes; sys.getsizeof(tensor) measures "
            "the Python wrapper object, not the data.",
        ],
        wrong=[
            lambda values: (sys.getsizeof(values), 4 * len(values)),
            lambda values: (
                sys.getsizeof(values) + sum(map(sys.getsizeof, values)),
                sys.getsizeof(torch.tensor(values)),
            ),
            lambda values: (sys.getsizeof(values) + sum(map(sys.getsizeof, values)), 8 * len(values)),
            lambda values: (sys.getsizeof(values) + sum(sys.getsizeof(v) for v in set(values)), 4 * len(values)),
        ],
    ),
    Exercise(
        "01.8",
        "A CSV table to features, labels and class names (stretch)",
        parse_table,
        cases=_parse_cases,
        hints=[
            "csv.reader(lines) yields lists of strings; the first is the header. Every column but the "
            "last is a number; the last is the class name.",
            "Number the classes in sorted order (sorted(set(...))), not in order of first appearance; "
            "features are float32, labels int64.",
        ],
        wrong=[
            lambda lines: (
                lambda h, *rows: (
                    torch.tensor([[float(v) for v in r[:-1]] for r in rows]),
                    torch.tensor([list(dict.fromkeys(r[-1] for r in rows)).index(r[-1]) for r in rows]),
                    list(dict.fromkeys(r[-1] for r in rows)),
                )
            )(*csv.reader(lines)),
            lambda lines: (
                lambda h, *rows: (
                    torch.tensor([[float(v) for v in r[:-1]] for r in rows], dtype=torch.float64),
                    torch.tensor([sorted({r[-1] for r in rows}).index(r[-1]) for r in rows]),
                    sorted({r[-1] for r in rows}),
                )
            )(*csv.reader(lines)),
            lambda lines: (
                lambda rows: (
                    torch.tensor([[float(v) for v in r[:-1]] for r in rows]),
                    torch.tensor([sorted({r[-1] for r in rows}).index(r[-1]) for r in rows]),
                    sorted({r[-1] for r in rows}),
                )
            )(list(csv.reader(lines))),
            lambda lines: (lambda f, labels, names: (f, labels, tuple(names)))(*parse_table(lines)),
        ],
        rules=[Holds(_parse_types)],
    ),
]

"""Module 08's inputs: the modules and small networks the checks of m08.py run answers on,
built on the ``meta`` device or from seeded values (no use of the global random generator)."""

from __future__ import annotations

import torch
from torch import nn

from torchcourse.grading.exercises._inputs import randn


class _WithBuffers(nn.Module):
    """A parameter, a persistent buffer and a non-persistent buffer (built on meta: no data)."""

    def __init__(self, device="meta"):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(3, 2, device=device))
        self.table = nn.Buffer(torch.empty(10, device=device))
        self.cache = nn.Buffer(torch.empty(4, 4, device=device), persistent=False)


def _count_cases():
    frozen = nn.Sequential(nn.Linear(5, 3, device="meta"), nn.Linear(3, 2, device="meta"))
    frozen[0].requires_grad_(False)
    net = nn.Sequential(
        nn.Linear(5, 3, device="meta"), nn.BatchNorm1d(3, device="meta"), nn.Linear(3, 1, device="meta")
    )
    tied = nn.Sequential(nn.Embedding(10, 4, device="meta"), nn.Linear(4, 10, device="meta"))
    tied[1].weight = tied[0].weight  # one weight used twice: an optimiser trains its 40 numbers once
    return [(nn.Linear(3, 4, device="meta"),), (net,), (frozen,), (_WithBuffers(),), (tied,)]


class _Unsorted(nn.Module):
    """Two unsaved buffers registered out of alphabetical order, and an unsaved None buffer
    (registered, but nothing for .to() to move and nothing for named_buffers() to yield)."""

    def __init__(self):
        super().__init__()
        self.zeta = nn.Buffer(torch.empty(2, device="meta"), persistent=False)
        self.alpha = nn.Buffer(torch.empty(3, device="meta"), persistent=False)
        self.register_buffer("empty_slot", None, persistent=False)
        self.kept = nn.Buffer(torch.empty(1, device="meta"))


def _unsaved_cases():
    nested = nn.Sequential(
        _WithBuffers(), nn.BatchNorm1d(2, device="meta"), nn.Sequential(nn.Linear(2, 2, device="meta"), _WithBuffers())
    )
    return [(_WithBuffers(),), (nested,), (nn.BatchNorm1d(4, device="meta"),), (_Unsorted(),)]


def _standardise_cases():
    return [
        (randn(50, 3, seed=800) * 2 + 1, randn(4, 3, seed=801)),
        (randn(20, 5, seed=802, dtype=torch.float64) * 0.5 - 3, randn(2, 5, seed=803, dtype=torch.float64)),
        (randn(8, 1, seed=804), randn(6, 1, seed=805)),
    ]


def _linear_cases():
    return [
        ({"weight": randn(4, 3, seed=810), "bias": randn(4, seed=811)}, randn(5, 3, seed=812)),
        ({"weight": randn(2, 6, seed=813), "bias": randn(2, seed=814)}, randn(1, 6, seed=815)),
        ({"weight": randn(3, 3, seed=816)}, randn(2, 3, seed=817)),  # a layer saved with bias=False
        # a float64 layer: an nn.Linear of the default dtype would load it into float32
        (
            {"weight": randn(3, 5, seed=818, dtype=torch.float64), "bias": randn(3, seed=819, dtype=torch.float64)},
            randn(2, 5, seed=820, dtype=torch.float64),
        ),
    ]


def _net(seed, n_in, n_out):
    """A small network in training mode, with seeded weights and running statistics."""
    net = nn.Sequential(
        nn.Linear(n_in, 8, device="meta"),
        nn.BatchNorm1d(8, device="meta"),
        nn.ReLU(),
        nn.Dropout(0.5),
        nn.Linear(8, n_out, device="meta"),
    )
    net.to_empty(device="cpu")  # real memory, no use of the global random generator
    with torch.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(randn(*p.shape, seed=seed + i))
        net[1].running_mean.copy_(randn(8, seed=seed + 10))
        net[1].running_var.copy_(randn(8, seed=seed + 11).abs() + 0.5)
        net[1].num_batches_tracked.fill_(100)
    return net


def _lazy_cases():
    return [
        (randn(30, 4, seed=820), randn(5, 30, seed=821)),
        (randn(12, 3, seed=822, dtype=torch.float64), randn(3, 12, seed=823, dtype=torch.float64)),
        (randn(6, 6, seed=824), randn(2, 6, seed=825)),
    ]


def _nested_net(seed: int, n_in: int, n_out: int) -> nn.Sequential:
    """A network with a nested block (BatchNorm inside an inner Sequential), seeded like :func:`_net`."""
    net = nn.Sequential(
        nn.Linear(n_in, 6, device="meta"),
        nn.Sequential(nn.BatchNorm1d(6, device="meta"), nn.ReLU()),
        nn.Dropout(0.5),
        nn.Linear(6, n_out, device="meta"),
    )
    net.to_empty(device="cpu")
    with torch.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(randn(*p.shape, seed=seed + i))
        bn = net[1][0]
        bn.running_mean.copy_(randn(6, seed=seed + 10))
        bn.running_var.copy_(randn(6, seed=seed + 11).abs() + 0.5)
        bn.num_batches_tracked.fill_(50)
    return net


class _Shrink(nn.Module):
    """A layer of the learner's own kind that reads ``self.training``: it halves its input while
    training (a stand-in for noise) and passes it through in eval mode."""

    def forward(self, x):
        return x * 0.5 if self.training else x


def _image_net(seed: int, channels: int) -> nn.Sequential:
    """Layers whose training and eval behaviours differ, other than Dropout and BatchNorm1d: BatchNorm2d,
    Dropout2d, AlphaDropout, InstanceNorm2d with running statistics and a module that reads self.training.
    Built without the global random generator (none of them draws initial weights)."""
    net = nn.Sequential(
        nn.BatchNorm2d(channels),
        nn.Dropout2d(0.5),
        _Shrink(),
        nn.InstanceNorm2d(channels, track_running_stats=True),
        nn.AlphaDropout(0.3),
        nn.Flatten(),
    )
    with torch.no_grad():
        for k, norm in enumerate((net[0], net[3])):
            norm.running_mean.copy_(randn(channels, seed=seed + 2 * k))
            norm.running_var.copy_(randn(channels, seed=seed + 2 * k + 1).abs() + 0.5)
        net[0].weight.copy_(randn(channels, seed=seed + 5))
        net[0].bias.copy_(randn(channels, seed=seed + 6))
    return net


def _restore_cases():
    """(model, x): in training mode; in eval mode; in training mode with its BatchNorm block frozen in
    eval mode (flags that differ from the parent's); in eval mode with only the Dropout in training."""
    frozen_bn = _nested_net(860, 4, 2)
    frozen_bn[1].eval()  # the inner block and its BatchNorm: eval; the rest: training
    odd_dropout = _nested_net(870, 3, 3).eval()
    odd_dropout[2].train()
    return [
        (_net(850, 3, 2), randn(5, 3, seed=851)),
        (_nested_net(855, 5, 1).eval(), randn(4, 5, seed=856)),
        (frozen_bn, randn(6, 4, seed=861)),
        (odd_dropout, randn(3, 3, seed=871)),
        (_image_net(880, 2), randn(3, 2, 4, 4, seed=881)),
    ]


# ---------------------------------------------------------------- 08.7's wrong answers


def _eval_no_restore(model, x):
    model.eval()
    with torch.no_grad():
        return model(x)


def _restore_top_flag(model, x):
    was = model.training
    model.eval()
    with torch.no_grad():
        y = model(x)
    model.train(was)  # sets every sub-module to the top flag
    return y


def _restore_children_only(model, x):
    flags = [c.training for c in model.children()]
    model.eval()
    with torch.no_grad():
        y = model(x)
    for c, flag in zip(model.children(), flags):
        c.training = flag  # the model itself and the modules nested deeper stay in eval mode
    return y


def _restore_in_reverse(model, x):
    flags = [(m, m.training) for m in model.modules()]
    model.eval()
    with torch.no_grad():
        y = model(x)
    for m, flag in reversed(flags):
        m.train(flag)  # train() recurses: the parent, last, overwrites its children's flags
    return y


def _no_grad_in_place(model, x):
    with torch.no_grad():
        return model(x)  # Dropout drops, BatchNorm updates its running statistics


def _eval_keeps_graph(model, x):
    flags = {m: m.training for m in model.modules()}
    model.eval()
    y = model(x)  # autograd records the forward pass
    for m, flag in flags.items():
        m.training = flag
    return y


def _eval_known_types(model, x):
    flags = {m: m.training for m in model.modules()}
    for m in model.modules():
        if isinstance(m, (nn.Dropout, nn.BatchNorm1d)):  # only the two layer types the lesson shows
            m.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        for m, flag in flags.items():
            m.training = flag


def _eval_library_families(model, x):
    flags = {m: m.training for m in model.modules()}
    for m in model.modules():  # every dropout and batch norm, but not InstanceNorm nor a custom layer
        if isinstance(m, (nn.modules.dropout._DropoutNd, nn.modules.batchnorm._BatchNorm)):
            m.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        for m, flag in flags.items():
            m.training = flag


def _eval_norm_and_dropout_layers(model, x):
    flags = {m: m.training for m in model.modules()}
    for m in model.modules():  # every library norm and dropout layer, but not a layer of one's own
        if isinstance(m, (nn.modules.dropout._DropoutNd, nn.modules.batchnorm._NormBase)):
            m.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        for m, flag in flags.items():
            m.training = flag


def _warm_up_then_predict(model, x):
    flags = {m: m.training for m in model.modules()}
    with torch.no_grad():
        model.train()(x)  # a "warm-up" call in training mode
        y = model.eval()(x)
    for m, flag in flags.items():
        m.training = flag
    return y


# ---------------------------------------------------------------- 08.8


class _MyBatchNorm(nn.BatchNorm1d):
    """A subclass of BatchNorm1d, as a library might define: still a BatchNorm layer."""


class FrozenBN(nn.BatchNorm2d):
    """A BatchNorm2d subclass whose name does not say BatchNorm (as detection libraries name theirs)."""


class BatchNormFreeBlock(nn.Sequential):
    """Not a BatchNorm layer, though its name contains the word: a container of a Linear and a Dropout."""


def _freeze_cases():
    """(model,): BatchNorm layers at several depths and of several kinds (2d, a subclass, SyncBatchNorm, a
    subclass whose name does not say BatchNorm), beside layers that are not BatchNorm (LayerNorm, InstanceNorm
    with running statistics, Dropout, a container whose name contains BatchNorm); models in training mode, in
    eval mode, and with mixed flags."""
    conv = nn.Sequential(
        nn.Conv2d(3, 4, 3, device="meta"),
        nn.BatchNorm2d(4, device="meta"),
        nn.ReLU(),
        nn.Sequential(nn.Conv2d(4, 4, 1, device="meta"), nn.Sequential(nn.BatchNorm2d(4, device="meta"))),
        nn.Dropout(0.1),
    )
    mixed = nn.Sequential(
        nn.Linear(4, 4, device="meta"),
        _MyBatchNorm(4, device="meta"),
        nn.LayerNorm(4, device="meta"),
        nn.InstanceNorm1d(4, track_running_stats=True, device="meta"),
        nn.SyncBatchNorm(4, device="meta"),
        nn.Dropout(0.5),
    )
    mixed[5].eval()  # one layer already in eval mode: it stays so
    evaluating = nn.Sequential(nn.Linear(3, 3, device="meta"), nn.BatchNorm1d(3, device="meta"), nn.Dropout()).eval()
    plain = nn.Sequential(nn.Linear(2, 2, device="meta"), nn.ReLU())  # nothing to freeze
    named = nn.Sequential(  # judged by class, not by name
        nn.Conv2d(3, 4, 3, device="meta"),
        FrozenBN(4, device="meta"),
        BatchNormFreeBlock(nn.Linear(4, 4, device="meta"), nn.Dropout(0.2)),
    )
    return [(conv,), (mixed,), (evaluating,), (plain,), (named,)]


def _freeze_everything_in_place(model):
    return model.eval()


def _freeze_by_name(model):
    for m in model.modules():
        if "Norm" in type(m).__name__:  # LayerNorm and InstanceNorm too
            m.eval()
    return model


def _freeze_children_only(model):
    for m in model.children():  # one level deep
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.eval()
    return model


def _freeze_exact_classes(model):
    for m in model.modules():
        if type(m) in (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d):  # misses subclasses
            m.eval()
    return model


def _freeze_norm_base(model):
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._NormBase):  # InstanceNorm is a _NormBase too
            m.eval()
    return model


def _train_then_freeze(model):
    model.train()  # "fine-tuning": but the other flags were to be left as they were
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.eval()
    return model


def _freeze_by_class_name(model):
    for m in model.modules():
        if "BatchNorm" in type(m).__name__:  # misses FrozenBN, and catches BatchNormFreeBlock
            m.eval()
    return model

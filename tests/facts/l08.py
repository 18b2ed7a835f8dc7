"""Facts lesson 08 (nn.Module as a container) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import inspect
import io

import pytest
import torch
from torch import nn

from tests.facts import fact


class _Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(2))
        self.offset = nn.Buffer(torch.zeros(2))
        self.steps = nn.Buffer(torch.tensor(0))
        self.flag = nn.Buffer(torch.tensor(True))


def _net(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Dropout(0.5))


@fact(
    "08",
    "module-to-returns-itself",
    "recursively through sub-modules, convert each one, and return the module itself",
)
def _():
    outer = nn.Sequential(_Holder())
    assert outer.double() is outer and outer.to("meta") is outer
    assert outer[0].weight.device.type == "meta" and outer[0].offset.dtype == torch.float64


@fact(
    "08",
    "buffer-replaced-old-reference-stale",
    "a **buffer** is replaced: the module's attribute now names the new tensor, and a reference you took earlier "
    "still names the old one, with the old dtype and device",
)
def _():
    h = _Holder()
    before = h.offset
    h.double()
    assert h.offset is not before and before.dtype == torch.float32 and h.offset.dtype == torch.float64
    before = h.offset
    h.to("meta")
    assert h.offset is not before and before.device.type == "cpu"


@fact(
    "08",
    "parameter-keeps-its-object",
    "a **parameter** keeps its `nn.Parameter` object for a dtype cast or a move between the CPU and a GPU: "
    "PyTorch swaps the new tensor in as its data (`param.data = new`)",
)
def _():
    h = _Holder()
    weight = h.weight
    old_ptr = weight.data_ptr()
    h.double()
    assert h.weight is weight and weight.dtype == torch.float64 and weight.data_ptr() != old_ptr
    assert not torch.__future__.get_overwrite_module_params_on_conversion()
    source = inspect.getsource(nn.Module._apply)
    assert "param.data = param_applied" in source and "self._buffers[key] = fn(buf)" in source
    if torch.accelerator.is_available():
        device = torch.accelerator.current_accelerator()
        assert torch._has_compatible_shallow_copy_type(torch.ones(1), torch.ones(1, device=device))
        h.to(device)
        assert h.weight is weight and weight.device.type == device.type


@fact("08", "meta-replaces-parameter", "A move to or from `meta` replaces the parameter too")
def _():
    h = _Holder()
    weight = h.weight
    h.to("meta")
    assert h.weight is not weight and isinstance(h.weight, nn.Parameter) and weight.device.type == "cpu"


@fact(
    "08",
    "unconverted-tensors-kept",
    "a tensor that needs no conversion (already on that device with that dtype) is kept.",
)
def _():
    h = _Holder()
    before = {name: t for name, t in [*h.named_parameters(), *h.named_buffers()]}
    h.to("cpu")
    h.float()
    assert all(getattr(h, name) is t for name, t in before.items())


@fact(
    "08",
    "integer-and-bool-buffers-keep-dtype",
    "Integer and bool buffers keep their dtype under `.double()` and `.half()`: only floating point tensors are cast.",
)
def _():
    h = _Holder().double()
    assert (h.steps.dtype, h.flag.dtype, h.offset.dtype) == (torch.int64, torch.bool, torch.float64)
    h.half()
    assert (h.steps.dtype, h.flag.dtype, h.offset.dtype) == (torch.int64, torch.bool, torch.float16)


@fact(
    "08",
    "state-dict-params-and-persistent-buffers",
    "`state_dict()` is an ordered dict from dotted names to tensors: parameters and persistent buffers, nothing else",
)
def _():
    m = nn.Sequential(_Holder())
    m[0].cache = nn.Buffer(torch.zeros(1), persistent=False)
    m[0].plain = torch.zeros(1)
    assert list(m.state_dict()) == ["0.weight", "0.offset", "0.steps", "0.flag"]


@fact("08", "none-buffer-left-out", "A buffer that is `None` is left out of `state_dict()`.")
def _():
    m = nn.Module()
    m.register_buffer("P", None)
    assert "P" in dict(m._buffers) and list(m.state_dict()) == []


@fact(
    "08",
    "buffer-none-is-empty-tensor",
    "`nn.Buffer(None)` would make an empty tensor, not a `None` placeholder.",
)
def _():
    b = nn.Buffer(None)
    assert isinstance(b, torch.Tensor) and b.shape == (0,)


@fact(
    "08",
    "buffer-shares-storage",
    "`nn.Buffer(A)` did not copy `A` (like `detach`, it shares the storage)",
)
def _():
    A = torch.ones(3, 2)
    m = nn.Module()
    m.A = nn.Buffer(A)
    assert m.A.data_ptr() == A.data_ptr()
    m.load_state_dict({"A": torch.zeros(3, 2)})
    assert torch.equal(A, torch.zeros(3, 2))  # loading copied into A's memory


@fact(
    "08",
    "load-state-dict-copies-strict",
    "`load_state_dict` copies values into a module's existing tensors and, by default (`strict=True`), insists "
    "that the keys match exactly",
)
def _():
    m = _Holder()
    weight = m.weight
    m.load_state_dict({**m.state_dict(), "weight": torch.full((2,), 3.0)})
    assert m.weight is weight and torch.equal(weight.detach(), torch.full((2,), 3.0))
    with pytest.raises(RuntimeError, match="Unexpected key"):
        m.load_state_dict({**m.state_dict(), "extra": torch.zeros(1)})
    with pytest.raises(RuntimeError, match="Missing key"):
        m.load_state_dict({"weight": torch.ones(2)})


@fact(
    "08",
    "eval-sets-training-flag-only",
    "sets the flag `training` to `False` on the module and on every sub-module, and returns the module",
)
def _():
    net = _net()
    assert all(m.training for m in net.modules())  # a new module starts in training mode
    assert net.eval() is net and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    assert net.train(False) is net and not net[1].training


@fact(
    "08",
    "eval-changes-dropout-and-batchnorm",
    "`Dropout` then passes its input through instead of zeroing random elements, and `BatchNorm` normalises with "
    "its saved running statistics instead of the batch's own, and stops updating them.",
)
def _():
    net = _net().eval()
    x = torch.randn(8, 4)
    stats = net[1].running_mean.clone()
    with torch.no_grad():
        y = net(x)
        bn = net[1]
        expected = (net[0](x) - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps) * bn.weight + bn.bias
    assert torch.allclose(y, expected) and torch.equal(net[1].running_mean, stats)


@fact(
    "08",
    "inference-mode-keeps-training-behaviour",
    "It changes no layer's behaviour: a module in training mode still drops out and still updates its running "
    "statistics there.",
)
def _():
    net = _net()
    x = torch.randn(8, 4)
    stats = net[1].running_mean.clone()
    with torch.inference_mode():
        first, second = net(x), net(x)
    assert not torch.equal(first, second) and not torch.equal(net[1].running_mean, stats)
    assert net[1].num_batches_tracked.item() == 2


@fact("08", "eval-leaves-autograd-on", "Autograd is not affected.")
def _():
    net = _net().eval()
    assert net(torch.randn(2, 4)).requires_grad and torch.is_grad_enabled()


@fact(
    "08",
    "inference-tensor-cannot-be-saved",
    "An inference tensor cannot be saved for a later backward pass.",
)
def _():
    with torch.inference_mode():
        P = torch.ones(3, 3)
    assert P.is_inference()
    x = torch.ones(1, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        x @ P


@fact(
    "08",
    "torch-load-weights-only-default",
    "`torch.load` uses `weights_only=True` by default since PyTorch 2.6",
)
def _():
    buffer = io.BytesIO()
    torch.save(nn.Linear(2, 2), buffer)  # a whole module: needs arbitrary unpickling
    buffer.seek(0)
    with pytest.raises(Exception, match="weights_only"):
        torch.load(buffer)


@fact(
    "08",
    "assign-takes-loaded-tensors",
    "`load_state_dict(state, assign=True)`, which takes the loaded tensors as they are instead of copying into the "
    "meta placeholders",
)
def _():
    with torch.device("meta"):
        m = nn.Module()
        m.A = nn.Buffer(torch.empty(3, 2))
    A = torch.ones(3, 2)
    m.load_state_dict({"A": A}, assign=True)
    assert m.A is A


@fact(
    "08",
    "train-on-a-child-leaves-parent",
    "Called on one child, it changes that child and what is below it, and leaves the parent and the siblings as "
    "they were: a model's flags need not agree.",
)
def _():
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.BatchNorm1d(2), nn.ReLU()), nn.Dropout())
    net.eval()
    net[1].train()
    assert [m.training for m in net.modules()] == [False, False, True, True, True, False]


@fact(
    "08",
    "training-attribute-one-module",
    "Assigning the attribute, `module.training = False`, sets that one module's flag only, without recursion.",
)
def _():
    net = _net()
    net.training = False
    assert not net.training and all(m.training for m in list(net.modules())[1:])


@fact(
    "08",
    "dropout-scales-kept-elements",
    "**Dropout** in training mode zeroes each element with probability `p` and scales the others by `1/(1 - p)`",
)
def _():
    torch.manual_seed(0)
    out = nn.Dropout(p=0.25)(torch.ones(10_000))
    assert set(torch.unique(out).tolist()) == {0.0, torch.tensor(1 / 0.75).item()}  # in float32
    assert abs(float((out == 0).float().mean()) - 0.25) < 0.02  # 43 standard deviations: 0.0043 each


@fact(
    "08",
    "dropout-eval-identity",
    "in eval mode it returns its input unchanged",
)
def _():
    x = torch.randn(5, 7)
    assert torch.equal(nn.Dropout(p=0.9).eval()(x), x)


@fact(
    "08",
    "batchnorm-train-batch-stats-and-update",
    "**BatchNorm** in training mode normalises each feature with the batch's own mean and biased variance (divided "
    "by `n`), and folds the batch into its running statistics: `running = (1 - momentum) · running + momentum · "
    "batch`, with `momentum = 0.1` and, for the variance, the unbiased batch variance (divided by `n - 1`).",
)
def _():
    bn = nn.BatchNorm1d(3)
    x = torch.randn(6, 3, dtype=torch.float64)
    bn.double()
    y = bn(x)
    assert torch.allclose(y, (x - x.mean(0)) / torch.sqrt(x.var(0, correction=0) + bn.eps))
    assert bn.momentum == 0.1
    assert torch.allclose(bn.running_mean, 0.1 * x.mean(0))
    assert torch.allclose(bn.running_var, 0.9 + 0.1 * x.var(0, correction=1))


@fact(
    "08",
    "batchnorm-eval-running-stats",
    "In eval mode it normalises with `running_mean` and `running_var` and leaves them alone.",
)
def _():
    bn = nn.BatchNorm1d(3).double()
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([1.0, -2.0, 0.5]))
        bn.running_var.copy_(torch.tensor([4.0, 0.25, 1.0]))
    bn.eval()
    x = torch.randn(5, 3, dtype=torch.float64)
    before = bn.running_mean.clone(), bn.running_var.clone(), bn.num_batches_tracked.clone()
    y = bn(x)
    assert torch.allclose(y, (x - before[0]) / torch.sqrt(before[1] + bn.eps))
    assert all(torch.equal(a, b) for a, b in zip(before, (bn.running_mean, bn.running_var, bn.num_batches_tracked)))


@fact(
    "08",
    "grad-modes-leave-training-flags",
    "`torch.no_grad()` and `torch.inference_mode()` stop autograd from recording; they read and change no "
    "`training` flag. A module left in training mode under `no_grad` still drops out and still updates its "
    "running statistics",
)
def _():
    for mode in (torch.no_grad, torch.inference_mode):
        net = _net()
        stats = net[1].running_mean.clone()
        with mode():
            out = net(torch.randn(8, 4))
            dropped = nn.Dropout(0.5)(torch.ones(1000))
        assert not out.requires_grad and all(m.training for m in net.modules())
        assert not torch.equal(net[1].running_mean, stats) and bool((dropped == 0).any())


def _stepped(optimizer_cls, **kwargs):
    """A float32 Linear after one optimiser step, then cast to float64 with a float64 gradient."""
    torch.manual_seed(0)
    lin = nn.Linear(3, 1)
    opt = optimizer_cls(lin.parameters(), lr=0.1, **kwargs)
    xs = torch.randn(8, 3)
    lin(xs).pow(2).mean().backward()
    opt.step()
    lin.double()
    opt.zero_grad()
    lin(xs.double()).pow(2).mean().backward()
    return lin, opt


@fact(
    "08",
    "optimiser-state-does-not-follow",
    "the parameter is float64 now, Adam's running averages are still float32, and the update mixes them.",
    rival="the optimiser lost track of the parameters when the module was cast: it did not (the same objects, "
    "now float64); the failing tensors are its own state, and an optimiser that has not stepped yet steps fine",
)
def _():
    for foreach in (False, True):
        lin, opt = _stepped(torch.optim.Adam, foreach=foreach)
        assert opt.param_groups[0]["params"][0] is lin.weight and lin.weight.dtype == torch.float64
        assert opt.state[lin.weight]["exp_avg"].dtype == torch.float32
        with pytest.raises(RuntimeError, match="dtype"):
            opt.step()
    # the rival: the same cast before any step leaves nothing stale, and the step works
    lin = nn.Linear(3, 1)
    opt = torch.optim.Adam(lin.parameters(), lr=0.1)
    lin.double()
    lin(torch.randn(8, 3, dtype=torch.float64)).sum().backward()
    opt.step()
    assert opt.state[lin.weight]["exp_avg"].dtype == torch.float64


@fact(
    "08",
    "sgd-momentum-silently-float32",
    "SGD with momentum is worse: it raises nothing, and its float32 `momentum_buffer` quietly rounds every "
    "float64 gradient to float32.",
    rival="the float32 buffer is only storage and the update itself mixes in the float64 gradient (as promotion "
    "would): the step moves the parameter by exactly lr times the rounded float32 buffer, and the bits of the "
    "gradient below float32's precision are gone",
)
def _():
    for foreach in (False, True):
        lin, opt = _stepped(torch.optim.SGD, momentum=0.9, foreach=foreach)
        old_buf = opt.state[lin.weight]["momentum_buffer"].clone()
        grad, before = lin.weight.grad.clone(), lin.weight.detach().clone()
        assert not torch.equal(grad.float().double(), grad)  # the gradient has bits float32 cannot hold
        opt.step()  # no error
        buf = opt.state[lin.weight]["momentum_buffer"]
        assert buf.dtype == torch.float32 and lin.weight.dtype == torch.float64
        assert torch.equal(buf, old_buf.mul(0.9).add(grad).float())  # the new buffer, rounded to float32
        assert torch.equal(lin.weight.detach(), before.add(buf, alpha=-0.1))  # the step is made from it
        wide = old_buf.double().mul(0.9).add(grad)  # what a float64 buffer would have held
        assert not torch.equal(lin.weight.detach(), before.add(wide, alpha=-0.1))


@fact(
    "08",
    "optimiser-load-state-dict-casts",
    "`Optimizer.load_state_dict` casts each state tensor to its parameter's dtype and device.",
)
def _():
    lin, opt = _stepped(torch.optim.Adam)
    opt.load_state_dict(opt.state_dict())
    state = opt.state[lin.weight]
    assert state["exp_avg"].dtype == state["exp_avg_sq"].dtype == torch.float64
    opt.step()  # works now
    src = inspect.getsource(torch.optim.Optimizer._process_value_according_to_param_policy)
    assert "value.to(dtype=param.dtype, device=param.device)" in src  # a move to a GPU is cast the same way


@fact(
    "08",
    "state-dict-shares-memory",
    "`state_dict()` does not copy anything: its tensors are the module's own, detached from autograd but "
    "sharing their memory.",
)
def _():
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    best = m.state_dict()
    for name, t in best.items():
        live = dict(m.named_parameters()) | dict(m.named_buffers())
        assert t.data_ptr() == live[name].data_ptr() and not t.requires_grad, name
    with torch.no_grad():
        m[0].weight.add_(1.0)
    assert torch.equal(best["0.weight"], m[0].weight)  # changed with the module
    snapshot = {k: v.clone() for k, v in m.state_dict().items()}
    with torch.no_grad():
        m[0].weight.add_(1.0)
    assert not torch.equal(snapshot["0.weight"], m[0].weight)
    buf = io.BytesIO()
    torch.save(m.state_dict(), buf)  # written at that moment: the file does not follow the module
    with torch.no_grad():
        m[0].weight.add_(1.0)
    buf.seek(0)
    assert not torch.equal(torch.load(buf)["0.weight"], m[0].weight)

"""Families of torch calls, for rules that forbid or require a kind of call rather than one name."""

from __future__ import annotations

# One table of call families: a rule that forbids or requires "a tensor factory" or "a
# concatenation" names the family, never one spelling of it. Each family lists the names the
# recorder sees at both levels: torch functions and tensor methods (``zeros``, ``new_zeros``)
# and the aten operations they dispatch (``aten::zeros``), so a spelling the list forgot is
# still caught where it reaches aten.
FAMILIES: dict[str, frozenset[str]] = {
    "factory": frozenset(
        {
            *"empty zeros ones full arange range linspace logspace tensor as_tensor asarray from_numpy frombuffer "
            "from_dlpack empty_like zeros_like ones_like full_like rand randn randint randperm rand_like randn_like "
            "randint_like eye empty_strided scalar_tensor normal bernoulli poisson polar complex tril_indices "
            "triu_indices new_empty new_zeros new_ones new_full new_tensor new_empty_strided sparse_coo_tensor "
            "sparse_csr_tensor".split(),
            *(
                f"aten::{op}"
                for op in "empty zeros ones full arange range linspace logspace empty_like zeros_like ones_like "
                "full_like rand randn randint randperm rand_like randn_like randint_like eye empty_strided "
                "scalar_tensor normal bernoulli poisson polar complex tril_indices triu_indices new_empty new_zeros "
                "new_ones new_full new_empty_strided lift_fresh lift_fresh_copy "
                "_sparse_coo_tensor_with_dims_and_tensors "
                "sparse_csr_tensor".split()
            ),
        }
    ),
    "concatenation": frozenset(
        {
            *"cat concat concatenate stack hstack vstack dstack column_stack row_stack block_diag cartesian_prod "
            "all_gather all_gather_into_tensor all_gather_object gather_object full_tensor".split(),
            *(f"aten::{op}" for op in "cat stack hstack vstack dstack column_stack row_stack block_diag".split()),
        }
    ),
    # every entry into autograd, reverse or forward mode: torch.func's grad/vjp/jacrev reach
    # torch.autograd.grad, its jvp/jacfwd and torch.autograd.forward_ad reach _make_dual
    "autograd": frozenset(
        {
            "grad",
            "backward",
            "_make_dual",
            "make_dual",
            "_unpack_dual",
            "unpack_dual",
            "vjp",
            "jvp",
            "jacobian",
            "hessian",
        }
    ),
    "inverse": frozenset(
        {"inverse", "linalg_inv", "linalg_inv_ex", "pinverse", "linalg_pinv", "cholesky_inverse", "linalg_tensorinv"}
        | {f"aten::{op}" for op in ("inverse", "linalg_inv", "linalg_inv_ex", "linalg_pinv", "cholesky_inverse")}
    ),
    # every solver of a linear system: torch.linalg.solve and solve_ex reach aten::_linalg_solve_ex,
    # lu_solve, lstsq, cholesky_solve and the triangular solvers their own aten operations
    "solve": frozenset(
        {"solve", "linalg_solve", "linalg_solve_ex", "lu_solve", "linalg_lu_solve", "lstsq", "linalg_lstsq"}
        | {"cholesky_solve", "solve_triangular", "linalg_solve_triangular", "triangular_solve", "tensorsolve"}
        | {"linalg_tensorsolve", "ldl_solve", "linalg_ldl_solve"}
        | {
            f"aten::{op}"
            for op in (
                "_linalg_solve_ex",
                "linalg_solve",
                "linalg_solve_ex",
                "linalg_lu_solve",
                "lu_solve",
                "linalg_lstsq",
                "cholesky_solve",
                "_cholesky_solve_helper",
                "linalg_solve_triangular",
                "triangular_solve",
                "linalg_ldl_solve",
            )
        }
    ),
    # a Cholesky factorisation, by any spelling: torch.linalg.cholesky and cholesky_ex reach
    # aten::linalg_cholesky_ex, the deprecated torch.cholesky its own aten::cholesky
    "cholesky": frozenset(
        {"cholesky", "linalg_cholesky", "linalg_cholesky_ex", "cholesky_ex"}
        | {"aten::cholesky", "aten::linalg_cholesky", "aten::linalg_cholesky_ex"}
    ),
    # an LU factorisation, and the general solvers built on one (torch.linalg.solve is LU inside)
    "lu": frozenset(
        {"lu", "lu_factor", "lu_factor_ex", "linalg_lu", "linalg_lu_factor", "linalg_lu_factor_ex", "lu_unpack"}
        | {"lu_solve", "linalg_lu_solve", "solve", "linalg_solve", "linalg_solve_ex", "tensorsolve"}
        | {"linalg_tensorsolve"}
        | {
            f"aten::{op}"
            for op in (
                "linalg_lu",
                "linalg_lu_factor",
                "linalg_lu_factor_ex",
                "lu_unpack",
                "linalg_lu_solve",
                "lu_solve",
                "_linalg_solve_ex",
                "linalg_solve",
                "linalg_solve_ex",
            )
        }
    ),
    "device copy": frozenset({"to", "cuda", "cpu", "copy_", "type", "pin_memory", "aten::_to_copy", "aten::copy_"}),
    "strided view": frozenset(
        {"as_strided", "as_strided_", "set_", "aten::as_strided", "aten::as_strided_", "aten::set_"}
    ),
    # a maximum along a dim, by either spelling (x.amax(dim) or x.max(dim).values)
    "maximum": frozenset({"amax", "max", "aten::amax", "aten::max"}),
    "exponential": frozenset({"exp", "exp_", "aten::exp", "aten::exp_"}),
    "softmax": frozenset({"softmax", "log_softmax", "aten::_softmax", "aten::_log_softmax", "aten::softmax"}),
    "scatter": frozenset(
        {"one_hot", "scatter", "scatter_", "scatter_add", "scatter_add_", "index_put", "index_put_", "index_fill"}
        | {"index_fill_", "aten::one_hot", "aten::scatter", "aten::scatter_", "aten::index_put_", "aten::index_put"}
    ),
    "split": frozenset(
        {"chunk", "tensor_split", "split", "split_with_sizes", "unsafe_split", "unsafe_chunk", "hsplit", "vsplit"}
        | {"dsplit", "unbind", "aten::split", "aten::chunk", "aten::tensor_split", "aten::split_with_sizes"}
    ),
    # every way a tensor's values leave torch for another library: NumPy (t.numpy(), np.asarray(t) through
    # __array__), any DLPack consumer (np.from_dlpack, CuPy, JAX reach __dlpack__), and Python lists
    "way out of torch": frozenset({"numpy", "__array__", "__dlpack__", "tolist"}),
    "to Python": frozenset(
        {"item", "tolist", "__float__", "__int__", "__bool__", "__index__", "aten::_local_scalar_dense"}
    ),
}


def family(name: str) -> frozenset[str]:
    """The call names of one family of :data:`FAMILIES`."""
    return FAMILIES[name]

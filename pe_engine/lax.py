"""`jax.lax` as this engine offers it: the public names, each re-exported from the module that
defines its primitive (as `jax/lax/__init__.py` re-exports `jax/_src/lax/`). No engine module
imports this one: they import the defining modules."""
from __future__ import annotations

from . import missing as _missing
from .conditionals import cond, switch
from .control_flow import scan
from .convolution import ConvDimensionNumbers, conv_general_dilated
from .cumulative import associative_scan, cumprod
from .elementwise import (
    RoundingMethod,
    atan2,
    bitwise_not,
    bitwise_xor,
    ceil,
    clamp,
    erf,
    erfc,
    expm1,
    floor,
    is_finite,
    log1p,
    rem,
    round,  # noqa: A004 - JAX's name
    rsqrt,
    select,
    stop_gradient,
)
from .lax_base import (
    abs,  # noqa: A004 - JAX's name
    add,
    bitwise_and,
    bitwise_or,
    broadcast_in_dim,
    convert_element_type,
    cos,
    device_put,  # noqa: F401 - not jax.lax, but the engine's tests reach it here
    div,
    dot_general,
    eq,
    exp,
    expand_dims,
    full,
    full_like,
    ge,
    gt,
    integer_pow,
    le,
    log,
    logistic,
    lt,
    max,  # noqa: A004 - JAX's name
    min,  # noqa: A004 - JAX's name
    mul,
    ne,
    neg,
    pow,  # noqa: A004 - JAX's name
    reduce_max,
    reduce_min,
    reduce_precision,
    reduce_sum,
    reshape,
    select_n,
    sign,
    sin,
    slice,  # noqa: A004 - JAX's name
    sqrt,
    square,
    squeeze,
    sub,
    tan,
    tanh,
    transpose,
)
from .lax_base_rules import pad
from .lax_math import (
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    bessel_i0e,
    bessel_i1e,
    bitcast_convert_type,
    cbrt,
    cosh,
    exp2,
    nextafter,
    population_count,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
    sinh,
)
from .lax_special import digamma, lgamma
from .loops import fori_loop, map, while_loop  # noqa: A004
from .slicing import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    dynamic_slice,
    dynamic_update_slice,
    gather,
    scatter,
    scatter_add,
    scatter_max,
    scatter_min,
    scatter_mul,
)
from .slicing_in_dim import (
    dynamic_index_in_dim,
    dynamic_slice_in_dim,
    dynamic_update_index_in_dim,
    dynamic_update_slice_in_dim,
    index_in_dim,
    slice_in_dim,
)
from .sorting import sort, sort_key_val
from .structural import (
    argmax,
    argmin,
    broadcasted_iota,
    concatenate,
    cumsum,
    iota,
    reduce_prod,
    rev,
    split,
)

__all__ = [
    "abs", "add", "bitwise_and", "bitwise_or", "broadcast_in_dim", "convert_element_type",
    "cos", "div", "dot_general", "eq", "exp", "expand_dims", "ge", "gt", "integer_pow", "le",
    "log", "logistic", "lt", "max", "min", "mul", "ne", "neg", "pow", "reduce_max",
    "reduce_min", "reduce_sum", "reshape", "select_n", "sign", "sin", "slice", "sqrt",
    "squeeze", "sub", "tan", "tanh", "transpose", "full", "full_like", "reduce_precision",
    "square", "scan", "GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers",
    "dynamic_index_in_dim", "dynamic_slice", "dynamic_update_slice", "gather", "scatter",
    "scatter_add", "scatter_max", "scatter_min", "scatter_mul", "fori_loop", "map",
    "while_loop", "RoundingMethod", "argmax", "argmin", "atan2", "bitwise_not", "bitwise_xor",
    "broadcasted_iota", "ceil", "clamp", "concatenate", "cond", "switch", "cumsum", "erf",
    "erfc", "expm1", "floor", "iota", "is_finite", "log1p", "pad", "reduce_prod", "rem", "rev",
    "round", "rsqrt", "select", "split", "stop_gradient", "dynamic_slice_in_dim",
    "dynamic_update_index_in_dim", "dynamic_update_slice_in_dim", "index_in_dim",
    "slice_in_dim", "sort", "sort_key_val", "acos", "acosh", "asin", "asinh", "atan", "atanh",
    "bitcast_convert_type", "cbrt", "cosh", "exp2", "nextafter", "population_count",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "sinh", "associative_scan",
    "cumprod", "ConvDimensionNumbers", "conv_general_dilated", "bessel_i0e", "bessel_i1e",
    "digamma", "lgamma"
]

# A name JAX has and the engine lacks fails in one line ("jnp.fft is not in this engine").
__getattr__ = _missing.module_getattr("jax.lax")

"""`import numpy as np` in user code: numpy's array API with the page's element limits.

JAX code uses numpy for constants and test data (`np.ones(3)`, `np.random.randn(4, 4)`,
`np.float32`). Those must stay real numpy values (an operation on them is not staged, as
in JAX), but no allocation may exceed the limit jnp has. So the facade's functions check
the size of what they would make before making it, and every array they return is a
`LimitedArray`: an ndarray whose ufuncs (hence its operators) check the broadcast result
first. Random numbers come from a generator that every request re-seeds, so one request
cannot change the next one's data and every answer is reproducible.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .budget import check_bytes
from .facades import Facade, instance_check_only
from .numpy_sizes import check_elements, check_sequence, index_size, matmul_size, shape_size


def _plain(x: Any) -> Any:
    """numpy's own view of an argument, checked if it is a list numpy would convert."""
    return x.view(np.ndarray) if isinstance(x, LimitedArray) else check_sequence(x)


def operand(x: Any, beside_list: bool) -> Any:
    """One operand of a Python operator on numpy values (operators.py): a bare ndarray as
    a LimitedArray, and a numpy scalar beside a list or tuple as a 0-d one, so that the
    list is converted by a LimitedArray's ufunc, checked (numpy's scalar would convert it
    unchecked into a bare ndarray)."""
    if type(x) is np.ndarray:
        return wrap(x)
    if beside_list and isinstance(x, np.generic):
        return wrap(np.asarray(x))
    return x


def wrap(x: Any) -> Any:
    """numpy's result as the user sees it: arrays limited, everything else as is."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "biufc":
            raise TypeError(f"numpy arrays of dtype {x.dtype} are not supported here "
                            "(numbers and booleans only)")
        return x if type(x) is LimitedArray else x.view(LimitedArray)
    if isinstance(x, tuple):
        return tuple(wrap(v) for v in x)
    if isinstance(x, list):
        return [wrap(v) for v in x]
    return x


class LimitedArray(np.ndarray):
    """An ndarray whose operations check their result's size before numpy allocates it."""

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any
                        ) -> Any:
        if kwargs.get("out") is not None:
            raise TypeError("out= is not supported here")
        plain = [_plain(x) for x in inputs]
        if method == "__call__":
            shapes = [np.shape(x) for x in plain]
            if ufunc is np.matmul:
                check_elements(matmul_size(*shapes), "the product")
            else:
                check_elements(shape_size(np.broadcast_shapes(*shapes)), "the result")
        elif method == "outer":
            check_elements(math.prod(np.size(x) for x in plain), "the outer product")
        elif method not in ("reduce", "accumulate", "reduceat"):
            raise TypeError(f"{ufunc.__name__}.{method} is not supported here")
        return wrap(getattr(ufunc, method)(*plain, **kwargs))

    # numpy's dot also takes out=, which user code is not given: the result is a new array
    def dot(self, other: Any) -> Any:  # type: ignore[override]
        return dot(self, other)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        # numbers only: a text dtype's size is per element (U1000000: 4 MB each)
        return super().astype(_dtype(dtype), *args, **kwargs)

    def __getitem__(self, key: Any) -> Any:
        n = index_size(self.shape, key)
        if n is not None:
            check_elements(n, "the indexed array")
        return wrap(super().__getitem__(_plain_key(key)))

    def __setitem__(self, key: Any, value: Any) -> None:
        index_size(self.shape, key)
        super().__setitem__(_plain_key(key), _plain(value))

    def tolist(self) -> Any:
        check_bytes(32 * self.size, "a list of the array's items")  # a float object each
        return super().tolist()

    def __reduce__(self) -> Any:
        raise TypeError("arrays cannot be pickled here")


def _plain_key(key: Any) -> Any:
    if isinstance(key, tuple):
        return tuple(_plain(k) for k in key)
    return _plain(key)


def _dtype(dtype: Any) -> np.dtype[Any] | None:
    if dtype is None:
        return None
    dt: np.dtype[Any] = np.dtype(dtype)
    if dt.kind not in "biufc":
        raise TypeError(f"dtype {dt} is not supported here (numbers and booleans only)")
    return dt


def _asarray(x: Any, dtype: Any = None) -> np.ndarray:
    arr = np.asarray(_plain(x), dtype=_dtype(dtype))
    check_elements(arr.size)
    limited: np.ndarray = wrap(arr)
    return limited


# --------------------------------------------------------------------------- constructors


def array(obj: Any, dtype: Any = None, copy: bool = True, ndmin: int = 0) -> Any:
    arr = np.array(_plain(obj), dtype=_dtype(dtype), copy=copy, ndmin=min(int(ndmin), 32))
    check_elements(arr.size)
    return wrap(arr)


def asarray(obj: Any, dtype: Any = None) -> Any:
    return _asarray(obj, dtype)


def _sized(make: Callable[..., np.ndarray]) -> Callable[..., Any]:
    def constructor(shape: Any, dtype: Any = float) -> Any:
        check_elements(shape_size(shape))
        return wrap(make(shape, dtype=_dtype(dtype)))
    constructor.__name__ = constructor.__qualname__ = make.__name__
    return constructor


zeros = _sized(np.zeros)
ones = _sized(np.ones)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    check_elements(shape_size(shape))
    return wrap(np.full(shape, _plain(fill_value), dtype=_dtype(dtype)))


def _like(make: Callable[..., np.ndarray]) -> Callable[..., Any]:
    def constructor(a: Any, *args: Any, dtype: Any = None, **kwargs: Any) -> Any:
        check_elements(shape_size(np.shape(_plain(a))))
        return wrap(make(_plain(a), *args, dtype=_dtype(dtype), **kwargs))
    constructor.__name__ = constructor.__qualname__ = make.__name__
    return constructor


zeros_like = _like(np.zeros_like)
ones_like = _like(np.ones_like)
full_like = _like(np.full_like)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
    lo, hi = (0, start) if stop is None else (start, stop)
    if step == 0:
        raise ValueError("arange: step must not be zero")
    check_elements(max(0, math.ceil((float(hi) - float(lo)) / float(step))))
    return wrap(np.arange(lo, hi, step, dtype=_dtype(dtype)))


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             dtype: Any = None) -> Any:
    check_elements(int(num))
    return wrap(np.linspace(start, stop, int(num), endpoint=endpoint, dtype=_dtype(dtype)))


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = float) -> Any:
    check_elements(int(N) * int(N if M is None else M))
    return wrap(np.eye(N, M, k, dtype=_dtype(dtype)))


def identity(n: int, dtype: Any = float) -> Any:
    return eye(n, dtype=dtype)


def broadcast_to(a: Any, shape: Any) -> Any:
    check_elements(shape_size(shape))
    return wrap(np.broadcast_to(_plain(a), shape))


def _joined(make: Callable[..., np.ndarray]) -> Callable[..., Any]:
    def join(arrays: Sequence[Any], axis: int = 0, **kwargs: Any) -> Any:
        parts = [_plain(a) for a in arrays]
        check_elements(sum(int(np.size(p)) for p in parts), "the result")
        return wrap(make(parts, axis, **kwargs))
    join.__name__ = join.__qualname__ = make.__name__
    return join


stack = _joined(np.stack)
concatenate = _joined(np.concatenate)


def outer(a: Any, b: Any) -> Any:
    check_elements(int(np.size(_plain(a))) * int(np.size(_plain(b))), "the outer product")
    return wrap(np.outer(_plain(a), _plain(b)))


def dot(a: Any, b: Any) -> Any:
    sa, sb = np.shape(_plain(a)), np.shape(_plain(b))
    if len(sa) > 2 or len(sb) > 2:  # dot's N-d rule: every row of a with every b
        check_elements(shape_size(sa[:-1]) * shape_size(sb[:-2] + sb[-1:]), "the product")
    else:
        check_elements(matmul_size(sa, sb), "the product")
    return wrap(np.dot(_plain(a), _plain(b)))


def matmul(a: Any, b: Any) -> Any:
    return _asarray(a) @ _asarray(b)


def einsum(subscripts: str, *operands: Any) -> Any:
    """Two-operand (or more) einsum with explicit letters: the output's size is known from
    the subscripts before numpy runs."""
    if not isinstance(subscripts, str) or "." in subscripts:
        raise ValueError("einsum here takes subscripts of letters, without '...'")
    ins, _, out = subscripts.replace(" ", "").partition("->")
    terms = ins.split(",")
    plain = [_plain(o) for o in operands]
    if len(terms) != len(plain):
        raise ValueError("einsum: as many operands as subscript terms")
    dims: dict[str, int] = {}
    for term, op in zip(terms, plain):
        for letter, d in zip(term, np.shape(op)):
            dims[letter] = max(dims.get(letter, 1), int(d))
    if not _:
        out = "".join(sorted(c for c in dims if ins.count(c) == 1))
    check_elements(math.prod(dims.get(c, 1) for c in out), "the result")
    return wrap(np.einsum(subscripts, *plain))


def where(condition: Any, *xy: Any) -> Any:
    plain = [_plain(condition), *(_plain(v) for v in xy)]
    check_elements(shape_size(np.broadcast_shapes(*(np.shape(p) for p in plain))), "the result")
    return wrap(np.where(*plain))


def dtype(x: Any) -> np.dtype[Any] | None:
    return _dtype(x)


# --------------------------------------------------------------------------- the rest of the API


def _passthrough(fn: Callable[..., Any], data_args: int) -> Callable[..., Any]:
    """A numpy function whose result is the broadcast of its first `data_args` arguments
    (or smaller): that size is checked first, then the result is wrapped."""
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("out") is not None:
            raise TypeError("out= is not supported here")
        args = tuple(_plain(a) for a in args)
        shapes = [np.shape(a) for a in args[:data_args]]
        check_elements(shape_size(np.broadcast_shapes(*shapes)), "the result")
        return wrap(fn(*args, **kwargs))
    call.__name__ = call.__qualname__ = fn.__name__
    return call


# numpy's ufuncs and the functions that reduce, reshape or round a single array
_PASSTHROUGH = (
    "sin cos tan exp log sqrt tanh abs sign maximum minimum power square floor ceil log1p "
    "expm1 arctan2 isnan isfinite exp2 log2 log10 negative reciprocal multiply add subtract "
    "divide sum max min mean prod reshape transpose expand_dims squeeze shape ndim size "
    "cumsum round argmax argmin std var any all clip allclose isclose"
).split()
_DATA_ARGS = {"clip": 3, "allclose": 2, "isclose": 2}
_DTYPES = ("float16 float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
           "bool_ complex64 complex128").split()


class _ScalarMeta(type):
    """`np.float32` and the other scalar types: a dtype (np.dtype reads its `dtype`), a
    class for isinstance, and a constructor whose arrays are the page's: numpy's own type
    called with a list makes an unlimited bare ndarray."""

    dtype: np.dtype

    def __call__(cls, value: Any = 0) -> Any:
        if isinstance(value, (list, tuple)) or np.ndim(value) > 0:
            return array(value, dtype=cls.dtype)
        return cls.dtype.type(_plain(value))

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls.dtype.type)

    def __repr__(cls) -> str:
        return f"<class 'numpy.{cls.__name__}'>"


def _scalar_type(name: str) -> _ScalarMeta:
    return _ScalarMeta(name, (), {"dtype": np.dtype(getattr(np, name)), "__slots__": ()})


# --------------------------------------------------------------------------- random


class _RandomState:
    """The generator every request starts from (seed 0), made when first drawn from:
    seeding one costs a tenth of a millisecond, twice a request, and few requests draw."""

    rng: np.random.RandomState | None = None


def _rng() -> np.random.RandomState:
    if _RandomState.rng is None:
        _RandomState.rng = np.random.RandomState(0)
    return _RandomState.rng


def reset() -> None:
    _RandomState.rng = None


def _sample(draw: Callable[..., Any], size: Any) -> Any:
    if size is not None:
        check_elements(shape_size(size))
    return wrap(draw(size))


class Rng:
    """What `np.random.default_rng(seed)` returns: a seeded generator with size limits."""

    __slots__ = ("_gen",)

    def __init__(self, seed: Any = None):
        self._gen = np.random.default_rng(0 if seed is None else seed)

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: Any = None) -> Any:
        return _sample(lambda s: self._gen.normal(loc, scale, s), size)

    def standard_normal(self, size: Any = None) -> Any:
        return _sample(self._gen.standard_normal, size)

    def uniform(self, low: float = 0.0, high: float = 1.0, size: Any = None) -> Any:
        return _sample(lambda s: self._gen.uniform(low, high, s), size)

    def random(self, size: Any = None) -> Any:
        return _sample(self._gen.random, size)

    def integers(self, low: int, high: int | None = None, size: Any = None) -> Any:
        return _sample(lambda s: self._gen.integers(low, high, s), size)


def _random_facade() -> Facade:
    def seed(s: int) -> None:
        _RandomState.rng = np.random.RandomState(int(s) % (1 << 32))

    def rand(*shape: int) -> Any:
        return _sample(lambda s: _rng().random_sample(s), shape or None)

    def randn(*shape: int) -> Any:
        return _sample(lambda s: _rng().standard_normal(s), shape or None)

    def normal(loc: float = 0.0, scale: float = 1.0, size: Any = None) -> Any:
        return _sample(lambda s: _rng().normal(loc, scale, s), size)

    def uniform(low: float = 0.0, high: float = 1.0, size: Any = None) -> Any:
        return _sample(lambda s: _rng().uniform(low, high, s), size)

    def randint(low: int, high: int | None = None, size: Any = None) -> Any:
        return _sample(lambda s: _rng().randint(low, high, s), size)

    def default_rng(seed: Any = None) -> Rng:
        return Rng(seed)

    return Facade("numpy.random", {f.__name__: f for f in (
        seed, rand, randn, normal, uniform, randint, default_rng)})


def numpy_facade() -> Facade:
    g = globals()
    attrs: dict[str, Any] = {}
    for n in _PASSTHROUGH:
        fn = getattr(np, n)
        nin = fn.nin if isinstance(fn, np.ufunc) else _DATA_ARGS.get(n, 1)
        attrs[n] = _passthrough(fn, nin)
    attrs.update({n: g[n] for n in (
        "array asarray zeros ones full zeros_like ones_like full_like arange linspace eye "
        "identity broadcast_to stack concatenate outer dot matmul einsum where dtype").split()})
    attrs.update({n: _scalar_type(n) for n in _DTYPES})
    attrs.update({"pi": np.pi, "e": np.e, "inf": np.inf, "nan": np.nan, "newaxis": None,
                  "finfo": np.finfo, "iinfo": np.iinfo, "random": _random_facade(),
                  "ndarray": instance_check_only("ndarray", lambda x: isinstance(x, np.ndarray))})
    return Facade("numpy", attrs)

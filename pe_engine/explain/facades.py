"""What `import jax` (and the other allowed imports) gives user code: read-only facades.

A facade is a namespace of explicitly listed values and nothing else: an engine module's
`__all__`, never the module itself, its submodules or its globals. It cannot be changed
(no attribute can be set or deleted), so one request cannot alter what the next one sees.
A missing name fails with one line that names it ("jnp.fft is not in this engine").
"""
from __future__ import annotations

import difflib
import functools
import math
import types
from collections.abc import Callable, Iterable
from types import MappingProxyType
from typing import Any

from .. import core
from ..ad_checkpoint import checkpoint_name
from ..missing import SHORT, not_in_engine
from .budget import check_printable
from .limits import MAX_FACTORIAL_ARG
from .stepping import guarded_reduce


class Facade:
    """A read-only module stand-in: `name` as the user imported it, and its values."""

    __slots__ = ("_name", "_attrs")
    _name: str
    _attrs: MappingProxyType[str, Any]

    def __init__(self, name: str, attrs: dict[str, Any]):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_attrs", MappingProxyType(dict(attrs)))

    @property
    def name(self) -> str:
        return self._name

    def lookup(self, name: str) -> Any:
        try:
            return self._attrs[name]
        except KeyError:
            raise AttributeError(self.missing(name)) from None

    def has(self, name: str) -> bool:
        return name in self._attrs

    # The import statement reads names with getattr: the same values, the same message.
    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(f"module '{self._name}' has no attribute '{name}'")
        return self.lookup(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"module '{self._name}' is read-only here")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"module '{self._name}' is read-only here")

    def __dir__(self) -> list[str]:
        return sorted(self._attrs)

    def __repr__(self) -> str:
        return f"<module '{self._name}'>"

    def supported(self) -> list[str]:
        """The names worth suggesting to a user: functions, constants and submodules (the
        capitalised ones are classes and dtypes)."""
        return sorted(n for n, v in self._attrs.items()
                      if n[:1].islower() or isinstance(v, Facade))

    def missing(self, name: str) -> str:
        """One line naming the missing name, and the nearest one the facade has, if any."""
        near = difflib.get_close_matches(name, self.supported(), n=1, cutoff=0.7)
        hint = f" (did you mean {SHORT.get(self._name, self._name)}.{near[0]}?)" if near else ""
        return not_in_engine(self._name, name) + hint


def engine_facade(module: types.ModuleType, public_name: str,
                  overrides: dict[str, Any] | None = None) -> Facade:
    """The facade of an engine module: exactly its `__all__`, submodules as facades (or the
    value `overrides` gives for a name)."""
    attrs: dict[str, Any] = {}
    for n in module.__all__:
        v = getattr(module, n)
        if overrides and n in overrides:
            v = overrides[n]
        elif isinstance(v, types.ModuleType):
            v = engine_facade(v, f"{public_name}.{n}")
        elif isinstance(v, types.SimpleNamespace):
            v = Facade(f"{public_name}.{n}", {k: x for k, x in vars(v).items()
                                              if not k.startswith("_")})
        elif isinstance(v, types.FunctionType) and "<locals>" in v.__qualname__:
            v.__qualname__ = v.__name__  # "sin() takes 1 positional argument", as in JAX
        attrs[n] = v
    return Facade(public_name, attrs)


class ConfigView:
    """`jax.config`: flags read live, `update` to set one. The request layer restores every
    flag afterwards, so a flag set by one request never reaches the next."""

    __slots__ = ()

    def update(self, name: str, value: Any) -> None:
        core.config.update(name, value)

    def __getattr__(self, name: str) -> Any:
        try:
            return core.config.values[name]
        except KeyError:
            raise AttributeError(f"'jax.config' has no flag '{name}'") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("set flags with jax.config.update(name, value)")

    @staticmethod
    def attributes() -> frozenset[str]:
        return frozenset({"update", *core.config.values})


def _bounded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A math function whose integer arguments are bounded: these run in C for as long as
    their result needs (math.factorial(10**6) takes seconds no interrupt can stop)."""
    @functools.wraps(fn)
    def bounded(*args: Any) -> Any:
        for a in args:
            if isinstance(a, int) and abs(a) > MAX_FACTORIAL_ARG:
                raise ValueError(f"math.{fn.__name__}: {a} is over the page's limit of "
                                 f"{MAX_FACTORIAL_ARG}")
        return fn(*args)
    return bounded


_MATH_NAMES = (
    "pi e tau inf nan sqrt cbrt exp exp2 expm1 log log1p log2 log10 sin cos tan asin acos "
    "atan atan2 sinh cosh tanh asinh acosh atanh erf erfc gamma lgamma floor ceil trunc fabs "
    "copysign hypot isfinite isinf isnan isclose radians degrees fmod remainder pow gcd isqrt"
).split()


def math_facade() -> Facade:
    attrs: dict[str, Any] = {n: getattr(math, n) for n in _MATH_NAMES if hasattr(math, n)}
    attrs.update({n: _bounded(getattr(math, n)) for n in ("factorial", "comb", "perm")})
    return Facade("math", attrs)


def functools_facade() -> Facade:
    # reduce steps in Python: reduce(math.gcd, ...) would loop in C, out of the interrupt's reach
    return Facade("functools", {"partial": functools.partial, "reduce": guarded_reduce})


def checked_checkpoint_name(x: Any, name: Any) -> Any:
    """jax.ad_checkpoint.checkpoint_name, its name refused here if it cannot be printed:
    the name is a param of the program the page prints, long after the user's line ran."""
    return checkpoint_name(x, check_printable(name))


def instance_check_only(name: str, test: Callable[[Any], bool]) -> type:
    """A class for `isinstance(x, name)` that cannot be instantiated (`np.ndarray(shape)`
    would allocate without the page's limits)."""
    class Meta(type):
        def __instancecheck__(cls, obj: Any) -> bool:
            return test(obj)

    def refuse(cls: type, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{name}(...) cannot be called here: make arrays with the array "
                        "constructors (array, zeros, ones, ...)")
    return Meta(name, (), {"__new__": refuse, "__slots__": ()})


def names_of(facades: Iterable[Facade]) -> dict[str, list[str]]:
    return {f.name: f.supported() for f in facades}

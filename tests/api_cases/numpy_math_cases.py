"""Differential cases for jax.numpy's elementwise math, reductions and statistics.

Keyed by the public name ("jax.numpy.NAME", or "jax.numpy.NAME/variant"); each value is
(f(M, *args), args, differentiable), with M the engine or JAX (see breadth_harness).
"""
from __future__ import annotations

import numpy as np
from api_inputs import A, I, P, U, V

rng = np.random.default_rng(46)
W = rng.standard_normal(5).astype(np.float32)
G = rng.uniform(1.5, 4.0, 5).astype(np.float32)  # above 1 (arccosh)
J = np.array([8, 21, -4, 9, 0], np.int32)
S = np.array([0.0, -0.0, 1.5, -2.0, np.inf], np.float32)  # signs, zeros and an infinity
NANS = np.array([1.0, np.nan, -2.0, 3.5, np.nan], np.float32)
A3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7
NANS2 = np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, np.nan], [0.5, -1.0, 4.0]], np.float32)

CASES: dict[str, tuple] = {}


def _unary(name: str, data: np.ndarray, diff: bool = True) -> None:
    CASES[f"jax.numpy.{name}"] = (lambda M, x: getattr(M.jnp, name)(x), (data,), diff)


for _name, _data in (("arcsin", U), ("asin", U), ("arccos", U), ("acos", U), ("arctan", V),
                     ("atan", V), ("sinh", V), ("cosh", V), ("arcsinh", V), ("asinh", V),
                     ("arccosh", G), ("acosh", G), ("arctanh", U), ("atanh", U), ("cbrt", P),
                     ("exp2", V), ("log2", P), ("log10", P), ("fabs", V), ("positive", V),
                     ("reciprocal", P), ("deg2rad", V), ("radians", V), ("rad2deg", V),
                     ("degrees", V), ("conj", V), ("conjugate", V), ("real", V), ("imag", V),
                     ("angle", V), ("trunc", V * 3), ("rint", V * 3)):
    _unary(_name, _data)
for _name, _data in (("isnan", NANS), ("isinf", S), ("isposinf", S), ("isneginf", -S),
                     ("signbit", S), ("isreal", V), ("iscomplex", V)):
    _unary(_name, _data, diff=False)

CASES.update({
    "jax.numpy.cbrt/int": (lambda M, x: M.jnp.cbrt(x), (I,), False),
    "jax.numpy.arcsin/scalar_mix": (lambda M, x: M.jnp.arcsin(x * 0.5) + M.jnp.arcsin(0.25),
                                    (U,), True),
    "jax.numpy.angle/deg": (lambda M, x: M.jnp.angle(x, deg=True), (V,), True),
    "jax.numpy.rint/int": (lambda M, x: M.jnp.rint(x), (I,), False),
    "jax.numpy.trunc/int": (lambda M, x: M.jnp.trunc(x), (I,), False),
    "jax.numpy.isinf/int": (lambda M, x: M.jnp.isinf(x), (I,), False),
    "jax.numpy.signbit/int": (lambda M, x: M.jnp.signbit(x), (I,), False),
    "jax.numpy.atan2": (lambda M, x, y: M.jnp.atan2(x, y), (V, P), True),
    "jax.numpy.float_power": (lambda M, x, y: M.jnp.float_power(x, y), (P, V), True),
    "jax.numpy.float_power/scalar": (lambda M, x: M.jnp.float_power(x, 3), (V,), True),
    "jax.numpy.pow": (lambda M, x, y: M.jnp.pow(x, y), (P, V), True),
    "jax.numpy.pow/int_exponent": (lambda M, x: M.jnp.pow(x, 3), (V,), True),
    "jax.numpy.copysign": (lambda M, x, y: M.jnp.copysign(x, y), (V, S), True),
    "jax.numpy.heaviside": (lambda M, x, y: M.jnp.heaviside(x, y), (S, P), True),
    "jax.numpy.hypot": (lambda M, x, y: M.jnp.hypot(x, y), (V, W), True),
    "jax.numpy.fmin": (lambda M, x, y: M.jnp.fmin(x, y), (V, NANS), True),
    "jax.numpy.fmax": (lambda M, x, y: M.jnp.fmax(x, y), (V, NANS), True),
    "jax.numpy.fmod": (lambda M, x, y: M.jnp.fmod(x, y), (V * 4, P), True),
    "jax.numpy.fmod/int": (lambda M, x, y: M.jnp.fmod(x, y), (I, J), False),
    "jax.numpy.modf": (lambda M, x: M.jnp.modf(x * 3), (V,), True),
    "jax.numpy.nextafter": (lambda M, x, y: M.jnp.nextafter(x, y), (V, W), False),
    "jax.numpy.left_shift": (lambda M, x, y: M.jnp.left_shift(x, y), (I, J % 5), False),
    "jax.numpy.bitwise_left_shift": (lambda M, x: M.jnp.bitwise_left_shift(x, 2), (I,), False),
    "jax.numpy.right_shift": (lambda M, x, y: M.jnp.right_shift(x, y), (I, J % 5), False),
    "jax.numpy.right_shift/uint": (lambda M, x: M.jnp.right_shift(x.astype(np.uint32), 1),
                                   (I,), False),
    "jax.numpy.bitwise_right_shift": (lambda M, x: M.jnp.bitwise_right_shift(x, 1), (I,),
                                      False),
    "jax.numpy.bitwise_invert": (lambda M, x: M.jnp.bitwise_invert(x), (I,), False),
    "jax.numpy.bitwise_count": (lambda M, x: M.jnp.bitwise_count(x), (I,), False),
    "jax.numpy.gcd": (lambda M, x, y: M.jnp.gcd(x, y), (I, J), False),
    "jax.numpy.lcm": (lambda M, x, y: M.jnp.lcm(x, y), (I, J), False),
})

# reductions
CASES.update({
    "jax.numpy.all": (lambda M, x: M.jnp.all(x > 0), (V,), False),
    "jax.numpy.all/axis_keepdims": (lambda M, a: M.jnp.all(a, axis=1, keepdims=True), (A,), False),
    "jax.numpy.any": (lambda M, a: M.jnp.any(a > 1.0, axis=0), (A,), False),
    "jax.numpy.any/float": (lambda M, x: M.jnp.any(x), (V,), False),
    "jax.numpy.count_nonzero": (lambda M, a: M.jnp.count_nonzero(a > 0, axis=0), (A,), False),
    "jax.numpy.count_nonzero/all": (lambda M, x: M.jnp.count_nonzero(x), (S,), False),
    "jax.numpy.ptp": (lambda M, x: M.jnp.ptp(x), (V,), True),
    "jax.numpy.ptp/axis": (lambda M, a: M.jnp.ptp(a, axis=1, keepdims=True), (A,), True),
    "jax.numpy.average": (lambda M, a: M.jnp.average(a), (A,), True),
    "jax.numpy.average/weights": (lambda M, x, w: M.jnp.average(x, weights=w), (V, P), True),
    "jax.numpy.average/axis_weights": (lambda M, a, w: M.jnp.average(a, axis=1, weights=w),
                                       (A, P[:3]), True),
    "jax.numpy.average/returned": (lambda M, a: M.jnp.average(a, axis=0, returned=True),
                                   (A,), True),
    "jax.numpy.nanmax": (lambda M, x: M.jnp.nanmax(x), (NANS,), True),
    "jax.numpy.nanmax/axis": (lambda M, a: M.jnp.nanmax(a, axis=1), (NANS2,), True),
    "jax.numpy.nanmin": (lambda M, x: M.jnp.nanmin(x), (NANS,), True),
    "jax.numpy.nanmin/initial": (lambda M, a: M.jnp.nanmin(a, axis=0, initial=0.0), (NANS2,), True),
    "jax.numpy.nansum": (lambda M, x: M.jnp.nansum(x), (NANS,), True),
    "jax.numpy.nansum/axis": (lambda M, a: M.jnp.nansum(a, axis=0, keepdims=True), (NANS2,), True),
    "jax.numpy.nanprod": (lambda M, x: M.jnp.nanprod(x), (NANS,), True),
    "jax.numpy.nanmean": (lambda M, x: M.jnp.nanmean(x), (NANS,), True),
    "jax.numpy.nanmean/axis": (lambda M, a: M.jnp.nanmean(a, axis=1), (NANS2[[0, 2]],), True),
    "jax.numpy.nanvar": (lambda M, x: M.jnp.nanvar(x), (NANS,), True),
    "jax.numpy.nanvar/ddof": (lambda M, a: M.jnp.nanvar(a, axis=1, ddof=1), (NANS2[[0, 2]],), True),
    "jax.numpy.nanstd": (lambda M, x: M.jnp.nanstd(x), (NANS,), True),
    "jax.numpy.nanargmax": (lambda M, x: M.jnp.nanargmax(x), (NANS,), False),
    "jax.numpy.nanargmin": (lambda M, a: M.jnp.nanargmin(a, axis=1), (NANS2,), False),
    "jax.numpy.nanargmax/int": (lambda M, x: M.jnp.nanargmax(x), (I,), False),
    "jax.numpy.nansum/int": (lambda M, x: M.jnp.nansum(x), (I,), False),
})

# float parts and closeness
CASES.update({
    "jax.numpy.divmod": (lambda M, x, y: M.jnp.divmod(x, y), (V * 4, P), True),
    "jax.numpy.divmod/int": (lambda M, x, y: M.jnp.divmod(x, y), (I, J + 20), False),
    "jax.numpy.logaddexp2": (lambda M, x, y: M.jnp.logaddexp2(x, y), (V, W), True),
    "jax.numpy.frexp": (lambda M, x: M.jnp.frexp(x), (S * 3 + 0.1,), False),
    "jax.numpy.ldexp": (lambda M, x, e: M.jnp.ldexp(x, e), (V, J % 7), False),
    "jax.numpy.spacing": (lambda M, x: M.jnp.spacing(x), (V,), False),
    "jax.numpy.sinc": (lambda M, x: M.jnp.sinc(x), (S[:4],), True),
    "jax.numpy.sinc/values": (lambda M, x: M.jnp.sinc(x), (V,), True),
    "jax.numpy.nan_to_num": (lambda M, x: M.jnp.nan_to_num(x), (NANS * S,), True),
    "jax.numpy.nan_to_num/values": (lambda M, x: M.jnp.nan_to_num(x, nan=1.0, posinf=9.0),
                                    (NANS * S,), True),
    "jax.numpy.isclose": (lambda M, x, y: M.jnp.isclose(x, y), (V, V + W * 1e-6), False),
    "jax.numpy.isclose/equal_nan": (lambda M, x: M.jnp.isclose(x, x, equal_nan=True), (NANS,),
                                    False),
    "jax.numpy.isclose/tolerances": (lambda M, x, y: M.jnp.isclose(x, y, rtol=0.1, atol=0.5),
                                     (V, W), False),
    "jax.numpy.allclose": (lambda M, x, y: M.jnp.allclose(x, y), (V, V + W * 1e-6), False),
    "jax.numpy.array_equal": (lambda M, x, y: M.jnp.array_equal(x, y), (V, W), False),
    "jax.numpy.array_equal/equal_nan": (lambda M, x: M.jnp.array_equal(x, x, equal_nan=True),
                                        (NANS,), False),
    "jax.numpy.array_equal/shapes": (lambda M, x, a: M.jnp.array_equal(x, a), (V, A), False),
    "jax.numpy.array_equiv": (lambda M, a, x: M.jnp.array_equiv(a, x[:4]), (A, V), False),
})

# cumulative
CASES.update({
    "jax.numpy.cumprod": (lambda M, x: M.jnp.cumprod(x), (V,), True),
    "jax.numpy.cumprod/axis": (lambda M, a: M.jnp.cumprod(a, axis=1), (A,), True),
    "jax.numpy.cumprod/bool": (lambda M, x: M.jnp.cumprod(x > 0), (V,), False),
    "jax.numpy.nancumsum": (lambda M, x: M.jnp.nancumsum(x), (NANS,), True),
    "jax.numpy.nancumprod": (lambda M, a: M.jnp.nancumprod(a, axis=0), (NANS2,), True),
    "jax.numpy.cumulative_sum": (lambda M, x: M.jnp.cumulative_sum(x), (V,), True),
    "jax.numpy.cumulative_sum/initial": (
        lambda M, a: M.jnp.cumulative_sum(a, axis=1, include_initial=True), (A,), True),
    "jax.numpy.cumulative_sum/int": (lambda M, x: M.jnp.cumulative_sum(x), (I,), False),
    "jax.numpy.cumulative_prod": (lambda M, x: M.jnp.cumulative_prod(x), (P,), True),
    "jax.numpy.cumulative_prod/initial": (
        lambda M, a: M.jnp.cumulative_prod(a, axis=0, include_initial=True), (A,), True),
})

# differences and statistics
CASES.update({
    "jax.numpy.diff": (lambda M, x: M.jnp.diff(x), (V,), True),
    "jax.numpy.diff/n2_axis0": (lambda M, a: M.jnp.diff(a, n=2, axis=0), (A.T,), True),
    "jax.numpy.diff/prepend_append": (lambda M, x: M.jnp.diff(x, prepend=0.0, append=x[:2]),
                                      (V,), True),
    "jax.numpy.diff/bool": (lambda M, x: M.jnp.diff(x > 0), (V,), False),
    "jax.numpy.ediff1d": (lambda M, a: M.jnp.ediff1d(a), (A,), True),
    "jax.numpy.ediff1d/ends": (lambda M, x: M.jnp.ediff1d(x, to_end=x[:2], to_begin=1.0),
                               (V,), True),
    "jax.numpy.gradient": (lambda M, x: M.jnp.gradient(x), (V,), True),
    "jax.numpy.gradient/2d": (lambda M, a: M.jnp.gradient(a), (A,), True),
    "jax.numpy.gradient/spacing": (lambda M, a: M.jnp.gradient(a, 0.5, axis=1), (A,), True),
    "jax.numpy.gradient/coordinates": (lambda M, x, c: M.jnp.gradient(x, M.jnp.cumsum(c)),
                                       (V, P), True),
    "jax.numpy.trapezoid": (lambda M, x: M.jnp.trapezoid(x), (V,), True),
    "jax.numpy.trapezoid/dx_axis": (lambda M, a: M.jnp.trapezoid(a, dx=0.5, axis=0), (A,), True),
    "jax.numpy.trapezoid/x": (lambda M, y, x: M.jnp.trapezoid(y, M.jnp.cumsum(x)), (V, P), True),
    "jax.numpy.unwrap": (lambda M, x: M.jnp.unwrap(x * 4.0), (V,), True),
    "jax.numpy.unwrap/axis": (lambda M, a: M.jnp.unwrap(a * 5.0, axis=0), (A,), True),
    "jax.numpy.cov": (lambda M, a: M.jnp.cov(a), (A,), True),
    "jax.numpy.cov/y_rowvar": (lambda M, a, b: M.jnp.cov(a, b, rowvar=False), (A.T, A.T[::-1]),
                               True),
    "jax.numpy.cov/vector_bias": (lambda M, x: M.jnp.cov(x, bias=True), (V,), True),
    "jax.numpy.corrcoef": (lambda M, x: M.jnp.corrcoef(x), (V,), True),
})

# polynomials
CASES.update({
    "jax.numpy.polyval": (lambda M, p, x: M.jnp.polyval(p, x), (V[:3], W), True),
    "jax.numpy.polyval/scalar_x": (lambda M, p: M.jnp.polyval(p, 2.0), (V,), True),
    "jax.numpy.polyadd": (lambda M, a, b: M.jnp.polyadd(a, b), (V[:3], W), True),
    "jax.numpy.polyadd/longer_first": (lambda M, a, b: M.jnp.polyadd(a, b), (W, V[:2]), True),
    "jax.numpy.polysub": (lambda M, a, b: M.jnp.polysub(a, b), (V[:3], W), True),
    "jax.numpy.polyder": (lambda M, p: M.jnp.polyder(p), (V,), True),
    "jax.numpy.polyder/m2": (lambda M, p: M.jnp.polyder(p, 2), (V,), True),
    "jax.numpy.polyint": (lambda M, p: M.jnp.polyint(p), (V,), True),
    "jax.numpy.polyint/m2_k": (lambda M, p: M.jnp.polyint(p, m=2, k=1.5), (V,), True),
})

# convolution
CASES.update({
    "jax.numpy.convolve": (lambda M, a, v: M.jnp.convolve(a, v), (V, W[:3]), True),
    "jax.numpy.convolve/short_first_same": (lambda M, a, v: M.jnp.convolve(a, v, mode="same"),
                                            (W[:2], V), True),
    "jax.numpy.convolve/valid": (lambda M, a, v: M.jnp.convolve(a, v, mode="valid"),
                                 (V, W[:3]), True),
    "jax.numpy.correlate": (lambda M, a, v: M.jnp.correlate(a, v), (V, W[:3]), True),
    "jax.numpy.correlate/short_first_full": (
        lambda M, a, v: M.jnp.correlate(a, v, mode="full"), (W[:2], V), True),
    "jax.numpy.polymul": (lambda M, a, b: M.jnp.polymul(a, b), (V[:3], W), True),
    "jax.numpy.polymul/int": (lambda M, a, b: M.jnp.polymul(a, b), (I, J), False),
})

CASES.update({
    "jax.numpy.i0": (lambda M, x: M.jnp.i0(x), (V * 3,), True),
    "jax.numpy.i0/zero": (lambda M, x: M.jnp.i0(x), (S[:4],), True),
    "jax.numpy.isfinite/nans": (lambda M, x: M.jnp.isfinite(x), (NANS * S,), False),
})

# order statistics
Q = np.array([0.1, 0.5, 0.9], np.float32)
CASES.update({
    "jax.numpy.median": (lambda M, x: M.jnp.median(x), (V,), True),
    "jax.numpy.median/axis": (lambda M, a: M.jnp.median(a, axis=1), (A,), True),
    "jax.numpy.median/keepdims": (lambda M, a: M.jnp.median(a, axis=0, keepdims=True), (A,),
                                  True),
    "jax.numpy.median/nan": (lambda M, x: M.jnp.median(x), (NANS,), False),
    "jax.numpy.quantile": (lambda M, x: M.jnp.quantile(x, 0.3), (V,), True),
    "jax.numpy.quantile/vector_q": (lambda M, a, q: M.jnp.quantile(a, q, axis=1), (A, Q), True),
    "jax.numpy.quantile/axes_keepdims": (
        lambda M, a: M.jnp.quantile(A3, 0.7, axis=(0, 2), keepdims=True) * a.sum(), (A,), True),
    "jax.numpy.quantile/methods": (
        lambda M, x: [M.jnp.quantile(x, 0.3, method=m) for m in
                      ("lower", "higher", "nearest", "midpoint")], (V,), True),
    "jax.numpy.percentile": (lambda M, x: M.jnp.percentile(x, 30.0), (V,), True),
    "jax.numpy.percentile/vector_q": (lambda M, a: M.jnp.percentile(a, Q * 100, axis=0),
                                      (A,), True),
    "jax.numpy.nanmedian": (lambda M, x: M.jnp.nanmedian(x), (NANS,), True),
    "jax.numpy.nanmedian/axis": (lambda M, a: M.jnp.nanmedian(a, axis=1), (NANS2,), True),
    "jax.numpy.nanquantile": (lambda M, x: M.jnp.nanquantile(x, 0.3), (NANS,), True),
    "jax.numpy.nanquantile/keepdims": (
        lambda M, a, q: M.jnp.nanquantile(a, q, axis=0, keepdims=True), (NANS2, Q), True),
    "jax.numpy.nanpercentile": (lambda M, x: M.jnp.nanpercentile(x, 75), (NANS,), True),
})

CASES.update({
    "jax.numpy.right_shift/operators": (lambda M, x, y: (x >> 1, x << y % 5, 3 >> y % 3), (I, J),
                                        False),
})

# the same functions as array methods
CASES.update({
    "jax.numpy.all/array_methods": (lambda M, a: ((a > 0).all(), (a > 1).any(axis=1)), (A,),
                                    False),
    "jax.numpy.ptp/array_methods": (
        lambda M, a: (a.ptp(axis=0), a.cumprod(axis=1), a.conj(), a.real, a.imag), (A,), True),
})

CASES.update({
    "jax.numpy.polydiv": (lambda M, u, v: M.jnp.polydiv(u, v), (V, P[:3]), True),
    "jax.numpy.polydiv/shorter_numerator": (lambda M, u, v: M.jnp.polydiv(u, v), (P[:2], V),
                                            True),
})

# window functions
CASES.update({
    f"jax.numpy.{_w}": (lambda M, x, _w=_w: getattr(M.jnp, _w)(5) * x, (V,), True)
    for _w in ("bartlett", "blackman", "hamming", "hanning")
})
CASES.update({
    "jax.numpy.hamming/one": (lambda M, x: M.jnp.hamming(1) * x, (V,), True),
    "jax.numpy.kaiser": (lambda M, x: M.jnp.kaiser(5, 2.0) * x, (V,), True),
    "jax.numpy.kaiser/traced_beta": (lambda M, b: M.jnp.kaiser(4, b[0] + 3.0), (P,), True),
})

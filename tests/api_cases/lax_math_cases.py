"""jax.lax's elementwise math and dtype functions added for jnp's (issue 45), and jnp's dtype
queries, each inside a traced function (their Python answers scale an array)."""
from __future__ import annotations

import numpy as np
from api_inputs import A, I, P, U, V

L = "jax.lax."
J = "jax.numpy."

CASES: dict[str, tuple] = {
    **{L + n: (lambda M, x, n=n: getattr(M.lax, n)(x), (V,), True)
       for n in ("asinh", "atan", "cbrt", "cosh", "exp2", "sinh")},
    **{L + n: (lambda M, x, n=n: getattr(M.lax, n)(x), (U,), True)
       for n in ("acos", "asin", "atanh")},
    L + "acosh": (lambda M, x: M.lax.acosh(x), (P + 1.0,), True),
    L + "nextafter": (lambda M, x, y: M.lax.nextafter(x, y), (V, P), False),
    L + "cumprod": (lambda M, a: M.lax.cumprod(a, axis=1), (A,), True),
    L + "associative_scan": (lambda M, x: M.lax.associative_scan(M.lax.add, x), (V,), True),
    L + "bitcast_convert_type": (lambda M, x: M.lax.bitcast_convert_type(x, np.int32), (V,),
                                 False),
    L + "population_count": (lambda M, i: M.lax.population_count(i), (I,), False),
    **{L + n: (lambda M, i, n=n: getattr(M.lax, n)(i, np.int32(2)), (I,), False)
       for n in ("shift_left", "shift_right_arithmetic", "shift_right_logical")},
    J + "ndim": (lambda M, a: a * M.jnp.ndim(a), (A,), True),
    J + "shape": (lambda M, a: a * M.jnp.shape(a)[1], (A,), True),
    J + "size": (lambda M, a: a * M.jnp.size(a), (A,), True),
    J + "isscalar": (lambda M, x: x * M.jnp.isscalar(2.0) + M.jnp.isscalar(x), (V,), True),
    J + "iterable": (lambda M, x: x * M.jnp.iterable([1]) + M.jnp.iterable(1.0), (V,), True),
    J + "issubdtype": (lambda M, x: x * M.jnp.issubdtype(x.dtype, np.floating), (V,), True),
    J + "isdtype": (lambda M, x: x * M.jnp.isdtype(x.dtype, "real floating"), (V,), True),
    J + "can_cast": (lambda M, x: x * M.jnp.can_cast(M.jnp.int32, x.dtype), (V,), True),
    J + "promote_types": (lambda M, x: (x * 4).astype(M.jnp.promote_types(M.jnp.int32, x.dtype)),
                          (V,), True),
    # the lax primitives jnp's math, sorting and convolution brought (issue 45)
    L + "bessel_i0e": (lambda M, x: M.lax.bessel_i0e(x), (V,), True),
    L + "bessel_i1e": (lambda M, x: M.lax.bessel_i1e(x), (V,), True),
    L + "sort": (lambda M, x: M.lax.sort(x), (V,), True),
    L + "sort/dimension": (lambda M, a: M.lax.sort(a, dimension=0), (A,), True),
    L + "sort_key_val": (lambda M, k, v: M.lax.sort_key_val(k, v), (V, P), False),
    L + "conv_general_dilated": (
        lambda M, x, w: M.lax.conv_general_dilated(x.reshape(1, 1, 5), w.reshape(1, 1, 3),
                                                   (1,), "SAME"),
        (V, V[:3]), True),
}

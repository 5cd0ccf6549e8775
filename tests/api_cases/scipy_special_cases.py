"""jax.scipy.special's functions, each as a user calls it."""
from __future__ import annotations

import numpy as np
from api_inputs import A, P, U, V

S = "jax.scipy.special."

CASES: dict[str, tuple] = {
    S + "logsumexp": (lambda M, a: M.scipy.special.logsumexp(a, axis=0), (A,), True),
    S + "logit": (lambda M, u: M.scipy.special.logit(u), (U,), True),
    S + "expit": (lambda M, x: M.scipy.special.expit(x), (V,), True),
    S + "erf": (lambda M, x: M.scipy.special.erf(x), (V,), True),
    S + "erfc": (lambda M, x: M.scipy.special.erfc(x), (V,), True),
    S + "xlogy": (lambda M, x, p: M.scipy.special.xlogy(x, p), (V, P), True),
    S + "xlogy/zero": (lambda M, x, p: M.scipy.special.xlogy(x * np.float32([0, 1, 0, 1, 1]), p),
                       (V, P), True),
    S + "xlog1py": (lambda M, x, p: M.scipy.special.xlog1py(x, p), (V, P), True),
    S + "gammaln": (lambda M, p: M.scipy.special.gammaln(p), (P,), True),
    S + "gammaln/int": (lambda M, x: x * M.scipy.special.gammaln(3), (V,), True),
    S + "digamma": (lambda M, p: M.scipy.special.digamma(p), (P,), False),
    S + "entr": (lambda M, u: M.scipy.special.entr(u), (U,), True),
    S + "rel_entr": (lambda M, u, p: M.scipy.special.rel_entr(u, p), (U, P), True),
    S + "kl_div": (lambda M, u, p: M.scipy.special.kl_div(u, p), (U, P), True),
    S + "softmax": (lambda M, a: M.scipy.special.softmax(a, axis=1), (A,), True),
    S + "log_softmax": (lambda M, x: M.scipy.special.log_softmax(x), (V,), True),
    S + "ndtr": (lambda M, x: M.scipy.special.ndtr(x * 3.0), (V,), True),
    S + "factorial": (lambda M, p: M.scipy.special.factorial(p * 3.0 - 2.0), (P,), True),
    "jax.lax.lgamma": (lambda M, p: M.lax.lgamma(p), (P,), True),
    "jax.lax.digamma": (lambda M, p: M.lax.digamma(p), (P,), False),
}

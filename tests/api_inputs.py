"""The inputs the API cases (tests/api_cases/*_cases.py) share, drawn once from a fixed seed.

V: a float vector with both signs; P: a positive one (logs, roots, divisors); U: one in (0, 1)
(logit, probabilities); A, B: matrices that multiply (2x3 @ 3x4); BA, BB: batches of them;
IDX: an int32 index vector within V; I: an int32 vector with both signs.
"""
from __future__ import annotations

import numpy as np

_rng = np.random.default_rng(45)
V = _rng.standard_normal(5).astype(np.float32)
P = (np.abs(_rng.standard_normal(5)) + 0.5).astype(np.float32)
U = _rng.uniform(0.1, 0.9, 5).astype(np.float32)
A = _rng.standard_normal((2, 3)).astype(np.float32)
B = _rng.standard_normal((3, 4)).astype(np.float32)
BA = _rng.standard_normal((4, 2, 3)).astype(np.float32)
BB = _rng.standard_normal((4, 3, 5)).astype(np.float32)
IDX = np.array([0, 3, 1], np.int32)
I = np.array([-3, 5, 0, 7, -1], np.int32)  # noqa: E741 - "I" for integers, beside V and P

"""Every program the engine builds while the suite runs is type-checked, and every split is
checked to compose back to its program (pe_engine.typecheck), as JAX's own suite runs with
jax_enable_checks.

The property tests draw the same examples on every run (hypothesis's derandomize): a gate
that passes or fails by the luck of the draw tells a maintainer nothing; HYPOTHESIS_PROFILE=explore
draws new ones, for hunting."""
import os

import pytest
from hypothesis import settings

# The differential checks live in breadth_harness: its asserts show both sides too.
pytest.register_assert_rewrite("breadth_harness")

import pe_engine  # noqa: E402

pe_engine.config.update("jax_enable_checks", True)

settings.register_profile("gate", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "gate"))

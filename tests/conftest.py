"""Every program the engine builds while the suite runs is type-checked, and every split is
checked to compose back to its program (pe_engine.typecheck), as JAX's own suite runs with
jax_enable_checks."""
import pe_engine

pe_engine.config.update("jax_enable_checks", True)

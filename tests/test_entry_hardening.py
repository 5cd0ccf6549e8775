"""Issue 42's attacks on the entry point, each sent as the page sends a request
(`entry.call`, JSON in and out): a policy's exception is the user's (finding 7), hashing a
deeply nested value is refused instead of crashing the process (finding 2), and a request
whose time limit expired ends as the interrupt however its code catches, continues or
returns (finding 3)."""
from __future__ import annotations

import json

import pytest

from pe_engine.explain import entry

HEADER = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n"
FIRST = 5  # the first line after HEADER


def call(source: str, mode: str = "split", known: bool = True,
         name: str = "pe_engine.explain.run", **extra: object) -> dict:
    req = {"mode": mode, "source": HEADER + source, "args": [{"known": known, "value": "1.0"}],
           **extra}
    return json.loads(entry.call(name, json.dumps(req)))


POLICY_RAISES = """def pol(prim, *args, **params):
    raise ValueError('my policy fails')
def f(x):
    return jax.checkpoint(lambda a: jnp.sin(jnp.sin(a)), policy=pol)(x)
"""


@pytest.mark.parametrize("mode", ["grad", "checkpoint"])
def test_an_exception_in_a_checkpoint_policy_is_the_users_error(mode):
    """The policy runs when the engine splits the checkpoint, after the trace: its error was
    reported as the engine's (`internal`, with the engine's traceback)."""
    err = call(POLICY_RAISES, mode, known=False)["result"]["error"]
    assert err == {"type": "trace", "message": "ValueError: my policy fails",
                   "lineno": FIRST + 1}

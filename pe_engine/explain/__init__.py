"""The page's host layer over the engine: user code loaded in a sandbox, traced, and told as
JSON records the page animates. `run(mode, **request)` is the worker's entry point, and
`checkpoint_policy(**request)` adds one policy to a checkpoint record asked with
only_selected."""
from .modes import MODES, as_json, checkpoint_policy, run

__all__ = ["MODES", "as_json", "checkpoint_policy", "run"]

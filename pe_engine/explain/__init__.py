"""The page's host layer over the engine: user code loaded in a sandbox, traced, and told as
JSON records the page animates. `run(mode, **request)` is the worker's entry point,
`checkpoint_policy(**request)` adds one policy to a checkpoint record asked with
only_selected, and `signature(source=...)` names the function a source's requests trace."""
from .modes import MODES, as_json, checkpoint_policy, run, signature

__all__ = ["MODES", "as_json", "checkpoint_policy", "run", "signature"]

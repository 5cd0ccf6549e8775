"""The page's host layer over the engine: user code loaded in a sandbox, traced, and told as
JSON records the page animates. `run(mode, **request)` is the worker's one entry point."""
from .modes import MODES, as_json, run

__all__ = ["MODES", "as_json", "run"]

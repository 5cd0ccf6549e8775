"""Run inside Pyodide by import_cache.mjs: import the engine and answer one request as the page's
first call does, then compile every module that took, outside the engine (whose wheel carries
its own bytecode), to bytecode. The value of the last line is the JSON
{python, files: {path under /: base64}}:
- numpy's modules as `__pycache__/<name>.cpython-312.pyc` beside their sources in
  site-packages, where the import system looks first;
- the standard library's modules (read from python_stdlib.zip, whose files the build does not
  change) as sourceless `.pyc` files in a folder the worker puts first on sys.path.
Unchecked-hash pycs: never compared with the sources, which are these very files."""
import base64
import importlib.util
import json
import marshal
import sys

STDLIB_CACHE = "/lib/python3.12/pe-import-cache"
before = set(sys.modules)

import pe_engine.explain.entry as entry  # noqa: E402

entry.call("pe_engine.explain.run", json.dumps({
    "mode": "split", "source": "import jax.numpy as jnp\ndef f(x, y):\n    return jnp.sin(x) * y\n",
    "args": [{"known": True, "value": "1.0"}, {"known": False, "value": "2.0"}]}))


def pyc(code: object, source: bytes) -> bytes:
    flags = 0b11  # hash-based, check_source off (PEP 552)
    return (importlib.util.MAGIC_NUMBER + flags.to_bytes(4, "little")
            + importlib.util.source_hash(source) + marshal.dumps(code))


out = {"python": sys.version.split()[0], "files": {}}
for name in sorted(set(sys.modules) - before):
    spec = getattr(sys.modules[name], "__spec__", None)
    origin = getattr(spec, "origin", None) or ""
    if not origin.endswith(".py") or "/pe_engine/" in origin:
        continue
    loader = spec.loader
    source = loader.get_data(origin) if hasattr(loader, "get_data") else None
    if source is None:
        continue
    code = compile(source, origin, "exec", dont_inherit=True)
    if ".zip/" in origin:  # the standard library, from python_stdlib.zip
        rel = origin.split(".zip/", 1)[1][:-3] + ".pyc"
        target = f"{STDLIB_CACHE}/{rel}"
    else:
        target = importlib.util.cache_from_source(origin)
    out["files"][target.lstrip("/")] = base64.b64encode(pyc(code, source)).decode()
json.dumps(out)

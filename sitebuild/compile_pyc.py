"""Run inside Pyodide by compile_pyc.mjs: SOURCES ({path in the wheel: text}) is set by the
caller; the value of the last line is the JSON {python, pycs: {path: base64}}.

Unchecked-hash pycs: never compared with the sources, which ship with them in one wheel."""
import base64
import json
import os
import py_compile
import site
import sys

root = site.getsitepackages()[0]
out = {"python": sys.version.split()[0], "pycs": {}}
for rel, text in SOURCES.items():  # noqa: F821 - set by compile_pyc.mjs
    full = os.path.join(root, rel)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)
    cfile = py_compile.compile(full, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    with open(cfile, "rb") as f:
        out["pycs"][os.path.relpath(cfile, root)] = base64.b64encode(f.read()).decode()
json.dumps(out)

"""dist/wheels/import-cache.zip: bytecode for the modules the engine's boot imports besides its
own (numpy's, and the standard library's it pulls in), compiled at build time by the Pyodide
that ships. Pyodide compiles those from source on every boot otherwise: about a second of the
engine's start in the browser. The worker unpacks the zip at / before the first import."""
from __future__ import annotations

import base64
import io
import json
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from .common import CACHE, BuildError, cache_key, log, sha256_file
from .pyodide import PYODIDE_VERSION

HERE = Path(__file__).resolve().parent
NAME = "import-cache.zip"
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def build_import_cache(out: Path, engine_wheel: Path, numpy_wheels: list[Path]) -> str | None:
    """Write out/wheels/import-cache.zip and return its path in dist/, or None without Node
    (the page then boots without it, compiling as it imports)."""
    key = cache_key(PYODIDE_VERSION, sha256_file(engine_wheel), *map(sha256_file, numpy_wheels),
                    (HERE / "import_cache_pyodide.py").read_text())
    cached = CACHE / f"import-cache-{key}.json"
    if not cached.exists():
        node = shutil.which("node")
        if node is None:
            log("node not found: no import cache (the engine's boot compiles numpy instead)")
            return None
        proc = subprocess.run([node, str(HERE / "import_cache.mjs"), str(out), str(engine_wheel),
                               str(HERE / "import_cache_pyodide.py")], capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=300)
        if proc.returncode != 0:
            raise BuildError(f"the import cache could not be built in Pyodide: "
                             f"{proc.stderr[-2000:]}")
        with tempfile.NamedTemporaryFile("w", dir=CACHE, delete=False) as f:
            f.write(proc.stdout)
        Path(f.name).replace(cached)
    data = json.loads(cached.read_text())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, b64 in sorted(data["files"].items()):
            info = zipfile.ZipInfo(path, ZIP_EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, base64.b64decode(b64))
    target = out / "wheels" / NAME
    target.write_bytes(buf.getvalue())
    log(f"wheels/{NAME}: {len(data['files'])} modules' bytecode for Python {data['python']}, "
        f"{target.stat().st_size} B")
    return f"wheels/{NAME}"

"""dist/wheels/pyodide-heap.bin: the heap of a booted Pyodide (the interpreter initialised and
Pyodide's own Python modules imported), made at build time by the Pyodide that ships, which the
worker starts from instead of initialising Python itself: about 1.3 s of a cold start on a
2-core machine. loadPyodide takes it as `_loadSnapshot` (Pyodide 0.27 marks the option
experimental; it refuses a heap made by another build of Pyodide, by its build id).

Stored as the heap XOR the image instantiating the wasm lays down (zeros, with the wasm's data
segment at __memory_base), gzipped: 3.7 MB instead of the plain heap's 5.2, most of the 4.6 MB
segment being unchanged by the boot. The manifest says where the segment lies in the wasm file
and in the heap, so the worker undoes the XOR with a slice of the wasm it already holds.

What the heap fixes at build time for every reader: the hash secret of str and bytes, the time
zone Python's time module read at import (UTC: the build sets TZ) and the random module's seed
(the worker reseeds it from the browser's entropy)."""
from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from .common import CACHE, BuildError, cache_key, log, sha256_bytes
from .pyodide import PYODIDE_VERSION

HERE = Path(__file__).resolve().parent
NAME = "pyodide-heap.bin"
# pyodide.asm.js gives the main module's data its address in the heap as a constant global
MEMORY_BASE = re.compile(
    r'___memory_base=new WebAssembly\.Global\(\{"value":"i32","mutable":false\},(\d+)\)')


def _leb128(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def data_segment(wasm: bytes) -> tuple[int, int]:
    """(offset in the file, length) of the wasm's one active data segment."""
    at = 8  # magic and version
    while at < len(wasm):
        section = wasm[at]
        size, body = _leb128(wasm, at + 1)
        if section == 11:
            count, at = _leb128(wasm, body)
            kind, at = _leb128(wasm, at)
            # global.get __memory_base (0x23) or i32.const (0x41), then end (0x0b)
            if count != 1 or kind != 0 or wasm[at] not in (0x23, 0x41):
                raise BuildError("pyodide.asm.wasm: expected one active data segment")
            _, at = _leb128(wasm, at + 1)
            if wasm[at] != 0x0B:
                raise BuildError("pyodide.asm.wasm: unexpected data segment offset")
            length, start = _leb128(wasm, at + 1)
            return start, length
        at = body + size
    raise BuildError("pyodide.asm.wasm has no data section")


def pack(heap: bytes, segment: bytes, heap_at: int) -> bytes:
    """gzip(heap XOR segment placed at heap_at)."""
    end = heap_at + len(segment)
    if end > len(heap):
        raise BuildError("the heap snapshot is smaller than the wasm's data")
    mixed = (int.from_bytes(heap[heap_at:end], "little")
             ^ int.from_bytes(segment, "little")).to_bytes(len(segment), "little")
    return gzip.compress(heap[:heap_at] + mixed + heap[end:], compresslevel=9, mtime=0)


def build_heap_snapshot(out: Path) -> dict:
    """Write out/wheels/pyodide-heap.bin; return the manifest's entry for it."""
    core = out / "pyodide"
    wasm = (core / "pyodide.asm.wasm").read_bytes()
    found = MEMORY_BASE.search((core / "pyodide.asm.js").read_text())
    if found is None:
        raise BuildError("pyodide.asm.js: __memory_base not found")
    key = cache_key(PYODIDE_VERSION, sha256_bytes(wasm), (HERE / "heap_snapshot.mjs").read_text())
    raw = CACHE / f"pyodide-heap-{key}.bin"
    if not raw.exists():
        node = shutil.which("node")
        if node is None:
            raise BuildError("node not found: it makes Pyodide's heap snapshot")
        with tempfile.NamedTemporaryFile(dir=CACHE, delete=False) as f:
            tmp = Path(f.name)
        proc = subprocess.run([node, str(HERE / "heap_snapshot.mjs"), str(out), str(tmp)],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=300, env={**os.environ, "TZ": "UTC"})
        if proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise BuildError(f"Pyodide's heap snapshot failed: {proc.stderr[-2000:]}")
        tmp.replace(raw)
    heap = raw.read_bytes()
    start, length = data_segment(wasm)
    # Pyodide's snapshot: a header (the offset of the heap in it is its second uint32), then
    # the heap, whose byte 0 is address 0
    heap_at = int.from_bytes(heap[4:8], "little") + int(found.group(1))
    target = out / "wheels" / NAME
    target.write_bytes(pack(heap, wasm[start:start + length], heap_at))
    log(f"wheels/{NAME}: a booted Pyodide's heap, {len(heap)} B, "
        f"{target.stat().st_size} B packed")
    return {"path": f"wheels/{NAME}", "heap_at": heap_at, "wasm_segment": [start, length]}

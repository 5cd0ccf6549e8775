"""What every build step shares: the repo's paths, the log, hashing, commands, cached downloads."""
from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache"
DIST = ROOT / "dist"
ENGINE_PKG = "pe_engine"


class BuildError(Exception):
    pass


def log(msg: str) -> None:
    print(f"[build] {msg}", flush=True)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def cache_key(*parts: str) -> str:
    """The name under .cache/ of something built from `parts`: a change to any part rebuilds."""
    return sha256_bytes("\0".join(parts).encode())[:16]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def run(cmd: list[str], cwd: Path | None = None) -> None:
    log("$ " + " ".join(cmd) + (f"   (in {cwd})" if cwd else ""))
    try:
        subprocess.run(cmd, cwd=cwd, check=True, stdin=subprocess.DEVNULL)
    except FileNotFoundError as e:
        raise BuildError(f"command not found: {cmd[0]} ({e})") from e
    except subprocess.CalledProcessError as e:
        raise BuildError(f"command failed with exit code {e.returncode}: {' '.join(cmd)}") from e


def iter_files(path: Path) -> Iterator[Path]:
    """Files under path (or path itself), sorted, skipping caches and dotfiles."""
    if path.is_file():
        yield path
        return
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path).parts
        if any(part.startswith(".") or part == "__pycache__" for part in rel):
            continue
        if p.is_file() and p.suffix != ".pyc":
            yield p


def cached_download(dest: Path, want_sha256: str, fetch: Callable[[str], list[str]]) -> Path:
    """`dest` from the cache, or fetched by the command `fetch(tmpdir)` into a temporary
    folder and moved into place; either way checked against its pinned sha256."""
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            cmd = fetch(tmp)
            run(cmd)
            got = Path(tmp) / dest.name
            if not got.exists():
                raise BuildError(f"{' '.join(cmd)} did not produce {dest.name}")
            os.replace(got, dest)
    digest = sha256_file(dest)
    if digest != want_sha256:
        raise BuildError(f"sha256 MISMATCH for {dest}: got {digest}, want {want_sha256}"
                         " (delete the file to download it again)")
    return dest

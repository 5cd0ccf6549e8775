"""The page for dist/: node_modules from the lockfile (cached), the CodeMirror 6 bundle by
esbuild with its third-party licenses, and the page's own files."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from .common import CACHE, ROOT, BuildError, iter_files, log, run, sha256_bytes

CODEMIRROR_VERSION = "6.0.2"  # codemirror@6.65.x is CodeMirror 5 under a 6.x number: never that
CM6_ENTRY = "app/vendor/cm6-entry.js"
CM6_OUT = "app/vendor/cm6.js"
PAGE_INPUTS = ["index.html", "app", "static"]
SW_TEMPLATE = "app/sw.js"  # written to dist/sw.js by site.write_service_worker, not copied as is


def ensure_node_modules(src: Path = ROOT) -> Path:
    """.cache/npm-<hash of package.json and the lock>/ with node_modules installed, for the
    package.json in `src` (the page's by default; bench/lighthouse/ has its own)."""
    lock_bytes = (src / "package-lock.json").read_bytes()
    key = sha256_bytes((src / "package.json").read_bytes() + b"\0" + lock_bytes)[:16]
    folder = CACHE / f"npm-{key}"
    done = folder / ".installed"
    if not done.exists():
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        shutil.copy2(src / "package.json", folder / "package.json")
        shutil.copy2(src / "package-lock.json", folder / "package-lock.json")
        # --ignore-scripts: esbuild's binary comes from its platform optionalDependency
        run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline",
             "--loglevel=error"], cwd=folder)
        done.write_text("ok\n")
    if src != ROOT:
        return folder
    cm = json.loads((folder / "node_modules/codemirror/package.json").read_text())
    if cm.get("version") != CODEMIRROR_VERSION:
        raise BuildError(f"node_modules has codemirror {cm.get('version')}, "
                         f"want exactly {CODEMIRROR_VERSION} (6.65.x is CodeMirror 5)")
    return folder


def node_tool(name: str) -> Path:
    """node_modules/.bin/<name> (eslint, prettier, tsc) of the pinned packages."""
    tool = ensure_node_modules() / "node_modules" / ".bin" / name
    if not tool.exists():
        raise BuildError(f"{name} is not in package.json's devDependencies")
    return tool


def esbuild_binary(folder: Path) -> Path:
    for cand in ["node_modules/@esbuild/linux-x64/bin/esbuild", "node_modules/.bin/esbuild"]:
        p = folder / cand
        if p.exists():
            return p
    found = sorted(folder.glob("node_modules/@esbuild/*/bin/esbuild"))
    if found:
        return found[0]
    raise BuildError(f"esbuild binary not found under {folder}/node_modules")


def bundled_packages(metafile: Path) -> set[Path]:
    """node_modules/<pkg> folders (scoped ones too) that esbuild's metafile says it read."""
    pkgs = set()
    for inp in json.loads(metafile.read_text())["inputs"]:
        parts = Path(inp).parts
        if "node_modules" in parts:
            i = len(parts) - 1 - parts[::-1].index("node_modules")
            pkg = parts[i + 1: i + 3] if parts[i + 1].startswith("@") else parts[i + 1: i + 2]
            pkgs.add(Path(*parts[: i + 1], *pkg))
    return pkgs


def build_cm6(out: Path) -> None:
    folder = ensure_node_modules()
    entry = folder / "cm6-entry.js"  # bundle from inside the cache so bare imports resolve
    shutil.copy2(ROOT / CM6_ENTRY, entry)
    target = out / CM6_OUT
    target.parent.mkdir(parents=True, exist_ok=True)
    meta = folder / "cm6-meta.json"
    run([str(esbuild_binary(folder)), "cm6-entry.js", "--bundle", "--format=esm", "--minify",
         "--target=es2020", "--legal-comments=eof", f"--metafile={meta.name}",
         f"--outfile={target}", "--log-level=warning"], cwd=folder)
    pkgs = bundled_packages(meta)
    notices = []
    for p in sorted(pkgs):
        pj = json.loads((folder / p / "package.json").read_text())
        lic_files = sorted(x for x in (folder / p).iterdir()
                           if x.name.upper().startswith(("LICENSE", "LICENCE")))
        text = lic_files[0].read_text() if lic_files else f"License: {pj.get('license')}\n"
        notices.append(f"== {pj['name']}@{pj['version']} ==\n{text.strip()}\n")
    (target.parent / "cm6.LICENSES.txt").write_text("\n".join(notices))
    log(f"{CM6_OUT}: {target.stat().st_size} B from {len(pkgs)} npm packages")


def copy_page(out: Path) -> None:
    for item in PAGE_INPUTS:
        src = ROOT / item
        if not src.exists():
            raise BuildError(f"page input {item} is missing")
        for f in iter_files(src):
            rel = f.relative_to(ROOT)
            if rel.as_posix() in (CM6_ENTRY, SW_TEMPLATE):
                continue
            dst = out / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dst)
            dst.chmod(0o644)

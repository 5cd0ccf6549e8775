"""The page for dist/: node_modules from the lockfile (cached), the CodeMirror 6 bundle by
esbuild with its third-party licenses, and the page's own files."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from .common import CACHE, ROOT, BuildError, iter_files, log, run, sha256_bytes

CODEMIRROR_VERSION = "6.0.2"  # codemirror@6.65.x is CodeMirror 5 under a 6.x number: never that
CM6_ENTRY = "app/vendor/cm6-entry.js"
CM6_OUT = "app/vendor/cm6.js"
# CodeMirror in parts the page evaluates one task each (app/editor-slot.js imports
# app/vendor/cm6-<part>.js in this order, then app/editor.js): as one module, its evaluation
# held a 2-core machine's main thread for 70 ms. A package of CM6_ENTRY's exports belongs to
# one part; the code parts share goes into chunks.
CM6_PARTS = {
    "state": ["@codemirror/state"],
    "view": ["@codemirror/view"],
    "language": ["@codemirror/language", "@lezer/highlight"],
    "python": ["@codemirror/lang-python"],
    "setup": ["codemirror", "@codemirror/lint", "@codemirror/commands"],
}
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


def cm6_part_entries(facade: str) -> dict[str, str]:
    """The facade's `export {...} from "<package>";` statements, grouped into CM6_PARTS: the
    text of each part's entry module, in CM6_PARTS's order."""
    found = re.findall(r'export\s*\{[^}]*\}\s*from\s*"([^"]+)"\s*;', facade)
    statements = re.findall(r'export\s*\{[^}]*\}\s*from\s*"[^"]+"\s*;', facade)
    part_of = {pkg: part for part, pkgs in CM6_PARTS.items() for pkg in pkgs}
    stray = sorted(set(found) - set(part_of))
    if stray or not found:
        raise BuildError(f"{CM6_ENTRY}: packages in no part of frontend.CM6_PARTS: {stray}"
                         if stray else f"{CM6_ENTRY}: no `export {{...}} from` statements")
    parts: dict[str, str] = {part: "" for part in CM6_PARTS}
    for pkg, statement in zip(found, statements):
        parts[part_of[pkg]] += statement + "\n"
    return parts


def build_cm6(out: Path) -> None:
    """app/vendor/cm6.js (the facade app/editor.js imports) and its parts cm6-<part>.js, with
    the code they share in chunk-*.js files (esbuild's code splitting)."""
    folder = ensure_node_modules()
    facade = (ROOT / CM6_ENTRY).read_text()
    build_in = folder / "cm6-build"  # inside the cache so bare imports resolve
    if build_in.exists():
        shutil.rmtree(build_in)
    build_in.mkdir()
    (build_in / "cm6.js").write_text(facade)
    for part, text in cm6_part_entries(facade).items():
        (build_in / f"cm6-{part}.js").write_text(text)
    target = out / CM6_OUT
    target.parent.mkdir(parents=True, exist_ok=True)
    meta = folder / "cm6-meta.json"
    entries = ["cm6.js", *(f"cm6-{part}.js" for part in CM6_PARTS)]
    run([str(esbuild_binary(folder)), *(f"cm6-build/{e}" for e in entries), "--bundle",
         "--splitting", "--format=esm", "--minify", "--target=es2020", "--legal-comments=eof",
         f"--metafile={meta.name}", f"--outdir={target.parent}", "--chunk-names=cm6-chunk-[hash]",
         "--log-level=warning"], cwd=folder)
    pkgs = bundled_packages(meta)
    notices = []
    for p in sorted(pkgs):
        pj = json.loads((folder / p / "package.json").read_text())
        lic_files = sorted(x for x in (folder / p).iterdir()
                           if x.name.upper().startswith(("LICENSE", "LICENCE")))
        text = lic_files[0].read_text() if lic_files else f"License: {pj.get('license')}\n"
        notices.append(f"== {pj['name']}@{pj['version']} ==\n{text.strip()}\n")
    (target.parent / "cm6.LICENSES.txt").write_text("\n".join(notices))
    size = sum(f.stat().st_size for f in target.parent.glob("cm6*.js"))
    log(f"{CM6_OUT}: {size} B in {len(list(target.parent.glob('cm6*.js')))} modules "
        f"from {len(pkgs)} npm packages")


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

"""The explainer's command line (`python -m pe_engine`): the page's state from options, the
page's request or link from it, the engine's record as the page shows it.

    python -m pe_engine split FILE.py [--known x,y] [--mode split|grad|jit|checkpoint]
                              [--policy P] [--folding] [--value x=[0.5,1.0] ...]
                              [--json | --check-jax]
    python -m pe_engine link FILE.py [the same options] [--base-url URL]

The file's last top-level `def` is traced, as on the page; the inputs not listed in --known
are unknown, and an input without --value is the scalar 1.0. The request is built from the
request contract and the link in the page's format (page_state.py), with the function's
inputs as the engine reads them (the page's own way: pe_engine.explain.signature), so `split`
answers what the page would be answered and `link` opens the page in that state.
`--check-jax` runs the same request with real JAX (jaxcheck.py) and compares each pane.
Exit status: 0 done; 1 the engine's error, or --check-jax found a difference (or no JAX);
2 a bad file or option.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from .jaxcheck import JaxMissing, check, report, verdict
from .modes import as_json, run, signature
from .page_state import PAGE_MODES, LinkError, PageState, page_request, permalink
from .record import DEFAULT_POLICY, POLICY_NAMES
from .sandbox import NO_FUNCTION
from .textview import record_text

DEFAULT_BASE_URL = "http://127.0.0.1:8000/"  # where `python3 build.py serve` serves the page


class UsageError(Exception):
    """A bad file or option: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="python -m pe_engine", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)
    common = _Parser(add_help=False)
    common.add_argument("file", metavar="FILE.py", help="Python source; its last top-level def "
                        "is traced")
    common.add_argument("--known", default="", metavar="x,y",
                        help="the known inputs, by name (the others are unknown)")
    common.add_argument("--mode", choices=PAGE_MODES, default="split")
    common.add_argument("--policy", choices=POLICY_NAMES, default=DEFAULT_POLICY,
                        help=f"checkpoint policy (default {DEFAULT_POLICY})")
    common.add_argument("--folding", action="store_true", help="jit's eager constant folding")
    common.add_argument("--value", action="append", default=[], metavar="NAME=VALUE",
                        help="an input's value, a numpy literal as on the page: x=2.0, "
                        "x=[0.5,1.0], x='zeros((3, 4))' (default 1.0)")
    split = sub.add_parser("split", parents=[common], help="print the programs and residuals")
    out = split.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the record as JSON")
    out.add_argument("--check-jax", action="store_true",
                     help="run the same split with real JAX and compare each pane")
    link = sub.add_parser("link", parents=[common], help="print a permalink to that state")
    link.add_argument("--base-url", default=DEFAULT_BASE_URL, metavar="URL",
                      help=f"the page's address (default {DEFAULT_BASE_URL})")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    try:
        opts = _parser().parse_args(argv)
        state, params = page_state(opts)
        if opts.command == "link":
            print(link(state, params, opts.base_url))
            return 0
        return split(state, params, opts)
    except UsageError as e:
        print(f"python -m pe_engine: error: {e}", file=sys.stderr)
        return 2


def _signature(file: str, code: str) -> dict[str, Any]:
    """The traced function's {name, params}, as the engine reads it for the page. A source
    the engine cannot read (a syntax error) has no inputs: its request answers the error."""
    sig = signature(source=code)
    if "error" not in sig:
        return sig
    if sig["error"]["message"] == NO_FUNCTION:
        raise UsageError(f"{file} defines no function (the page traces the last top-level def)")
    return {"name": "the function", "params": []}


def page_state(opts: argparse.Namespace) -> tuple[PageState, list[str]]:
    """The page's state the options describe, and its function's parameters."""
    code = _read(opts.file)
    sig = _signature(opts.file, code)
    params = sig["params"]
    known = [n.strip() for n in opts.known.split(",") if n.strip()]
    _check_names("--known", known, sig)
    values: dict[str, str] = {}
    for item in opts.value:
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not name:
            raise UsageError(f"--value wants NAME=VALUE (e.g. x=[0.5,1.0]), got {item!r}")
        _check_names("--value", [name], sig)
        if name in values:
            raise UsageError(f"--value gives {name} twice")
        values[name] = text.strip()
    state: PageState = {"code": code, "known": {p: p in known for p in params},
                        "values": values, "mode": opts.mode, "policy": opts.policy,
                        "folding": opts.folding}
    return state, params


def _read(file: str) -> str:
    try:
        return Path(file).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{file} is not UTF-8 text") from None
    except OSError as e:
        raise UsageError(f"cannot read {file}: {e.strerror or e}") from None


def _check_names(option: str, names: list[str], sig: dict[str, Any]) -> None:
    for name in names:
        if name not in sig["params"]:
            inputs = ", ".join(sig["params"]) or "none"
            raise UsageError(f"{option}: {sig['name']} has no input {name!r} (its inputs: "
                             f"{inputs})")


def link(state: PageState, params: list[str], base_url: str) -> str:
    """The page's permalink to `state`, at `base_url`."""
    try:
        return base_url.split("#")[0] + "#" + permalink(state, params)
    except LinkError as e:
        raise UsageError(f"the page would not open this state: {e}") from None


def split(state: PageState, params: list[str], opts: argparse.Namespace) -> int:
    """Answer the page's request for `state` and print it (text, JSON, or JAX's verdict)."""
    mode, kwargs = page_request(state, params)
    record = as_json(run(mode, **kwargs))
    if opts.json:
        print(json.dumps(record, ensure_ascii=False))
        return 1 if "error" in record else 0
    if "error" in record:
        print(located(opts.file, record["error"]), file=sys.stderr)
        return 1
    if opts.check_jax:
        return check_jax(record)
    print(record_text(record), end="")
    return 0


def check_jax(record: dict[str, Any]) -> int:
    """Print each pane's verdict against real JAX: 0 they agree; 1 a pane differs, JAX made
    none of them, or there is no JAX."""
    try:
        checks = check(record)
    except JaxMissing as e:
        print(f"python -m pe_engine: {e}", file=sys.stderr)
        return 1
    import jax

    print(report(checks, jax.__version__), end="")
    return 0 if verdict(checks) else 1


def located(file: str, error: dict[str, Any]) -> str:
    """`FILE.py:3: message`, as a compiler says where: the source is the file, line for line."""
    where = f"{file}:{error['lineno']}" if error.get("lineno") is not None else file
    which = f" input {error['input']}:" if error.get("input") else ""
    message = error["message"]
    if which and message.startswith(f"input {error['input']}: "):
        which = ""  # the message names the input already
    return f"{where}:{which} {message}"

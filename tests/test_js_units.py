"""The page's pure JavaScript modules unit-tested in Node (node --test tests/js/unit/): the
page's update (app/page/update.js), the stage's view model (app/stage/model.js, on records the
engine answers here) and the engine session (app/page/answers.js, app/page/session.js: the
answers kept, a record's parts and their merge, asking ahead, the demos' and the explorer's
requests)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pe_engine.explain import as_json, run

ROOT = Path(__file__).resolve().parents[1]
UNITS = sorted((ROOT / "tests" / "js" / "unit").glob("*.test.mjs"))
CODE = """import jax.numpy as jnp

def f(x, y):
    a = jnp.sin(x)
    b = a * y
    return jnp.cos(b)
"""


def _records() -> dict:
    args = [{"known": True, "value": "2.0"}, {"known": False, "value": "3.0"}]
    return {mode: as_json(run(mode, source=CODE, args=args))
            for mode in ("split", "jit", "grad", "checkpoint")}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_js_unit(unit: Path, tmp_path: Path) -> None:
    records = tmp_path / "records.json"
    records.write_text(json.dumps(_records()))
    proc = subprocess.run(["node", "--test", str(unit)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env={**os.environ, "PE_RECORDS": str(records)},
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# pass 0" not in proc.stdout

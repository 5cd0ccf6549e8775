"""The page's permalink decoder (app/state.js, run in Node) takes any link: a valid state, or a
PermalinkError saying what is wrong. Valid states round-trip.

One Node process (tools/permalink_decode.mjs) serves the whole module, a JSON line per request.
"""
from __future__ import annotations

import base64
import json
import keyword
import queue
import re
import shutil
import subprocess
import threading
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pe_engine.explain.page_state import PAGE_MODES
from pe_engine.explain.record import DEFAULT_POLICY, POLICY_NAMES

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "permalink_decode.mjs"

MODES = PAGE_MODES  # every tab of the page
POLICIES = POLICY_NAMES
MAX_HASH_CHARS = 16 * 1024
MAX_CODE_CHARS = 20_000
KEYS = {"code", "known", "values", "mode", "policy", "step", "folding", "instantiate"}
NAME = re.compile(r"^[A-Za-z_]\w*$")

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


class Codec:
    """The Node side: one request line out, one answer line back."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(["node", str(TOOL)], cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, encoding="utf-8", bufsize=1)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put("")

    def __call__(self, **req) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.lines.get(timeout=30)
        if not line:
            raise RuntimeError(f"node exited: {self.proc.stderr.read()[-2000:]}")
        out = json.loads(line)
        assert "crash" not in out, f"the codec threw something else than PermalinkError: " \
                                   f"{out['crash']}\nrequest: {json.dumps(req)[:500]}"
        return out

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def codec():
    c = Codec()
    yield c
    c.close()


def pack(text: str | bytes) -> str:
    """What the page's encoder does: deflate-raw, base64url, no padding."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = z.compress(data) + z.flush()
    return "#v1." + base64.urlsafe_b64encode(packed).decode().rstrip("=")


def assert_valid_state(s: dict) -> None:
    assert set(s) == KEYS, s
    assert isinstance(s["code"], str) and len(s["code"]) <= MAX_CODE_CHARS
    assert s["mode"] in MODES and s["policy"] in POLICIES
    assert s["step"] is None or (type(s["step"]) is int and 0 <= s["step"] < 100_000)
    assert type(s["folding"]) is bool
    assert isinstance(s["instantiate"], list) and len(s["instantiate"]) <= 256
    assert all(type(b) is bool for b in s["instantiate"])
    for k, v in s["known"].items():
        assert NAME.match(k) and type(v) is bool
    for k, v in s["values"].items():
        assert NAME.match(k) and isinstance(v, str) and len(v) <= 4000


def assert_decodes_or_says_why(out: dict) -> None:
    if out["ok"]:
        assert_valid_state(out["state"])
    else:
        e = out["error"]
        assert e["name"] == "PermalinkError"
        msg = e["message"]
        assert msg and len(msg) < 400 and "undefined" not in msg and "[object" not in msg, msg


# ------------------------------------------------------------------------------- strategies

b64url = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                 max_size=400)
prefixes = st.sampled_from(["", "#", "#v1.", "v1.", "#v0.", "#v2.", "#v1", "#v01.", "#V1."])

json_scalars = (st.none() | st.booleans() | st.integers(-2**60, 2**60)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                           max_leaves=20)
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,7}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n))
field_values = {
    "code": st.text(max_size=60) | json_values,
    "known": st.dictionaries(st.text(max_size=8) | names, st.booleans() | json_scalars,
                             max_size=4) | json_values,
    "values": st.dictionaries(st.text(max_size=8) | names, st.text(max_size=20) | json_scalars,
                              max_size=4) | json_values,
    "mode": st.sampled_from(MODES) | json_scalars,
    "policy": st.sampled_from(POLICIES) | json_scalars,
    "step": st.integers(-5, 200_000) | json_scalars,
    "folding": st.booleans() | json_scalars,
    "instantiate": st.lists(st.booleans(), max_size=4) | json_values,
}
# dicts that look like a state, some fields of the wrong kind
almost_states = st.fixed_dictionaries(
    {}, optional={**field_values, "__proto__": json_values, "constructor": json_values})


@st.composite
def valid_states(draw):
    params = draw(st.lists(names, min_size=0, max_size=5, unique=True))
    body = draw(st.text(max_size=200))
    code = f"def f({', '.join(params)}):\n    return 0\n# {body}"
    mode = draw(st.sampled_from(MODES))
    known = {p: draw(st.booleans()) for p in params if draw(st.booleans())}
    values = {p: draw(st.text(max_size=40)) for p in params if draw(st.booleans())}
    # all false is nothing forced: the link says so by leaving instantiate out
    instantiate = draw(st.lists(st.booleans(), max_size=4).filter(lambda f: not f or any(f)))
    return {"code": code, "known": known, "values": values, "mode": mode,
            "policy": draw(st.sampled_from(POLICIES)),
            "step": draw(st.none() | st.integers(0, 99_999)),
            "folding": draw(st.booleans()),
            "instantiate": instantiate}


# ------------------------------------------------------------------------------- properties

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(prefixes, st.text(max_size=300))
def test_any_text_decodes_or_says_why(codec, prefix, text):
    assert_decodes_or_says_why(codec(op="decode", hash=prefix + text))


@SETTINGS
@given(prefixes, b64url)
def test_any_base64url_decodes_or_says_why(codec, prefix, payload):
    assert_decodes_or_says_why(codec(op="decode", hash=prefix + payload))


@SETTINGS
@given(json_values | almost_states)
def test_any_packed_json_decodes_or_says_why(codec, obj):
    out = codec(op="decode", hash=pack(json.dumps(obj)))
    assert_decodes_or_says_why(out)
    if out["ok"]:  # what was accepted is what was sent, checked and filled in
        assert out["state"]["code"] == obj["code"]


@SETTINGS
@given(st.binary(max_size=300))
def test_packed_garbage_bytes_decode_or_say_why(codec, data):
    assert_decodes_or_says_why(codec(op="decode", hash=pack(data)))


@SETTINGS
@given(valid_states())
def test_valid_states_round_trip(codec, s):
    enc = codec(op="encode", state=s)
    assert enc["ok"], enc
    assert enc["hash"].startswith("v1.") and len(enc["hash"]) < MAX_HASH_CHARS
    for h in (enc["hash"], "#" + enc["hash"]):
        dec = codec(op="decode", hash=h)
        assert dec["ok"], dec
        # every choice comes back, the policy and folding in every mode too
        assert dec["state"] == s


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_states(), st.data())
def test_damaged_links_decode_or_say_why(codec, s, data):
    """Truncated, one character changed, characters dropped or added: never a crash."""
    h = codec(op="encode", state=s)["hash"]
    n = len(h)
    how = data.draw(st.sampled_from(["truncate", "flip", "drop", "insert", "tail"]))
    i = data.draw(st.integers(0, n - 1))
    if how == "truncate":
        bad = h[:i]
    elif how == "flip":
        c = data.draw(st.sampled_from("AZaz09-_+/=.%# "))
        assume(c != h[i])
        bad = h[:i] + c + h[i + 1:]
    elif how == "drop":
        bad = h[:i] + h[i + data.draw(st.integers(1, 8)):]
    elif how == "insert":
        bad = h[:i] + data.draw(st.text(min_size=1, max_size=5)) + h[i:]
    else:  # what chat services and mail clients append
        bad = h + data.draw(st.sampled_from([")", ".", ",", "%20", "&utm=x", "\n", "…"]))
    out = codec(op="decode", hash="#" + bad)
    assert_decodes_or_says_why(out)
    if how == "truncate" and i < n - 8:
        assert not out["ok"]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.none(), st.text(max_size=200), json_values.map(json.dumps),
                 almost_states.map(json.dumps)),
       st.none() | st.text(max_size=20))
def test_local_storage_restores_or_ignores(codec, stored, hash_):
    out = codec(op="local", stored=stored, hash=hash_)
    assert out["ok"]
    if out["state"] is not None:
        assert_valid_state(out["state"])


# ------------------------------------------------------------------------------- examples

@pytest.mark.parametrize("hash_,words", [
    ("", "version prefix"),
    ("#", "version prefix"),
    ("#v1.", "empty"),
    ("#v1.A", "truncated"),
    ("#v2.AAAA", "version 2"),
    ("#v99999999999999999999.AAAA", "version prefix"),
    ("#v1.not*base64!", "base64url"),
    ("#v1.AAAA", "does not decompress"),
    ("#v1." + "A" * 17_000, "over the limit"),
    (pack("not json"), "valid JSON"),
    (pack("[1, 2]"), "page state"),
    (pack('{"code": 42}'), "no code"),
    (pack('{"code": "def f(x): pass", "mode": "<img src=x onerror=alert(1)>"}'),
     "unknown mode"),
    (pack('{"code": "def f(x): pass", "policy": "os.system"}'), "checkpoint policy"),
    (pack('{"code": "def f(x): pass", "step": -1}'), "step"),
    (pack('{"code": "def f(x): pass", "step": 1.5}'), "step"),
    (pack('{"code": "def f(x): pass", "folding": "yes"}'), "folding"),
    (pack('{"code": "def f(x): pass", "instantiate": [1]}'), "instantiate"),
    (pack('{"code": "def f(x): pass", "instantiate": {"0": true}}'), "instantiate"),
    (pack('{"code": "def f(x): pass", "known": [true]}'), "known"),
    (pack('{"code": "def f(x): pass", "known": {"x y": true}}'), "argument name"),
    (pack('{"code": "def f(x): pass", "known": {"x": "true"}}'), "known.x"),
    (pack('{"code": "def f(x): pass", "values": {"x": 2.0}}'), "values.x"),
    (pack('{"code": "def f(x): pass", "values": {"x": "' + "9" * 5000 + '"}}'), "values.x"),
    (pack(json.dumps({"code": "#" * (MAX_CODE_CHARS + 1)})), "over 20000"),
    (pack(b"\xff\xfe{}"), "does not decompress"),
])
def test_bad_links_say_what_is_wrong(codec, hash_, words):
    out = codec(op="decode", hash=hash_)
    assert not out["ok"], out
    assert words in out["error"]["message"], out["error"]


def test_decompression_bombs_are_refused(codec):
    bomb = pack(json.dumps({"code": "#" * 10_000_000}))
    assert len(bomb) < MAX_HASH_CHARS  # the link itself is under the cap
    out = codec(op="decode", hash=bomb)
    assert not out["ok"] and "unpacks to over" in out["error"]["message"]


def test_proto_keys_are_plain_names(codec):
    out = codec(op="decode", hash=pack(
        '{"code": "def f(__proto__, constructor): pass", "known": {"__proto__": false, '
        '"constructor": false}, "values": {"__proto__": "2.0", "toString": "3.0"}}'))
    assert out["ok"], out
    assert out["state"]["known"] == {"__proto__": False, "constructor": False}
    assert out["state"]["values"] == {"__proto__": "2.0", "toString": "3.0"}


def test_hostile_code_is_kept_as_text(codec):
    code = 'def f(x):\n    return x  # </script><img src=x onerror=alert(1)>\n'
    out = codec(op="decode", hash=pack(json.dumps({"code": code, "mode": "split"})))
    assert out["ok"] and out["state"]["code"] == code


def test_over_long_states_are_refused_on_encode(codec):
    noise = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(19_000))
    out = codec(op="encode", state={"code": "def f(x):\n    return x\n#" + noise,
                                    "known": {}, "values": {}, "mode": "split",
                                    "policy": DEFAULT_POLICY, "step": None, "folding": False,
                                    "instantiate": []})
    assert not out["ok"] and "limit" in out["error"]["message"]


def test_local_storage_base_hash(codec):
    """Saved ahead of the hash in the address bar (a reload within the debounce): restored
    over that hash. Saved in step with it, or under another hash: the link wins."""
    s = {"code": "def f(x):\n    return x\n", "known": {"x": False}, "values": {"x": "2.0"},
         "mode": "split", "policy": DEFAULT_POLICY, "step": None, "folding": False,
         "instantiate": [True]}
    ahead = codec(op="save", state=s, base="#v1.abc", ahead=True)["stored"]
    assert codec(op="local", stored=ahead, hash=None)["state"] == s
    assert codec(op="local", stored=ahead, hash="#v1.abc")["state"] == s
    assert codec(op="local", stored=ahead, hash="#v1.other")["state"] is None
    in_step = codec(op="save", state=s, base="#v1.abc", ahead=False)["stored"]
    assert codec(op="local", stored=in_step, hash=None)["state"] == s
    assert codec(op="local", stored=in_step, hash="#v1.abc")["state"] is None


@pytest.mark.parametrize("mode", MODES)
def test_policy_and_folding_choices_kept_in_every_mode(codec, mode):
    """Chosen in checkpoint and jit, then shared from another mode: the link (and the saved
    state) still has them, so switching back finds them."""
    s = {"code": "def f(x):\n    return x\n", "known": {"x": True}, "values": {"x": "2.0"},
         "mode": mode, "policy": "dots_saveable", "step": None, "folding": True,
         "instantiate": []}
    enc = codec(op="encode", state=s)
    assert codec(op="decode", hash=enc["hash"])["state"] == s
    stored = codec(op="save", state=s, base="", ahead=False)["stored"]
    assert codec(op="local", stored=stored, hash=None)["state"] == s

"""The input-value parser takes any text: a value, or a ValueParseError saying why not."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_engine.explain.limits import MAX_VALUE_ELEMENTS as MAX_ELEMENTS
from pe_engine.explain.values import ValueParseError, format_value, parse_value

finite = st.floats(allow_nan=False, allow_infinity=False, width=32)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=200))
def test_any_text_parses_or_says_why(text):
    try:
        v = parse_value(text)
    except ValueParseError as e:
        assert str(e)
        return
    arr = np.asarray(v)
    assert arr.dtype.kind in "biuf" and arr.size <= MAX_ELEMENTS
    assert isinstance(format_value(v), str)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="[](),.-+e0123456789 zerosonesful", max_size=80))
def test_literal_shaped_text_parses_or_says_why(text):
    try:
        parse_value(text)
    except ValueParseError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(finite, min_size=3, max_size=3), min_size=1, max_size=4))
def test_nested_lists_round_trip_as_float32(rows):
    v = parse_value(repr(rows))
    assert v.dtype == np.float32 and v.shape == (len(rows), 3)
    np.testing.assert_array_equal(v, np.asarray(rows, np.float32))


@pytest.mark.parametrize("text,words", [
    ("", "empty"), ("[1, [2]]", "ragged"), ("'abc'", "numbers"), ("[1, 2", "parse"),
    ("zeros((100000, 100000))", "limit"), ("[" * 5000 + "]" * 5000, "nested"),
    ("9" * 50, "int32"), ("open('x')", "constructor"), ("{1: 2}", "numbers"),
    ("zeros((-1,))", "shape"),
])
def test_bad_values_get_a_clear_message(text, words):
    with pytest.raises(ValueParseError, match=words):
        parse_value(text)


def test_scalars_stay_python_scalars_and_arrays_are_32_bit():
    assert parse_value("2.0") == 2.0 and type(parse_value("2.0")) is float
    assert type(parse_value("3")) is int
    assert parse_value("[1, 2]").dtype == np.int32
    assert parse_value("ones((2, 3))").shape == (2, 3)
    assert parse_value("full((2,), 0.5)").tolist() == [0.5, 0.5]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["-", "+", "~", "not ", "(", "[", "zeros(", "ones(("]),
       st.integers(1, 20_000))
def test_deeply_nested_text_parses_or_says_why(prefix, depth):
    """Nesting a parser recurses on: a value or a ValueParseError, never RecursionError."""
    closing = {"(": ")", "[": "]", "zeros(": ")", "ones((": "))"}.get(prefix, "")
    text = prefix * depth + "1" + closing * depth
    try:
        parse_value(text)
    except ValueParseError as e:
        assert str(e)


@pytest.mark.parametrize("text", [
    '"\ud800"', "1j", "2**1000", "[1.5, 2**40]", "zeros((2**31,))", "ones(True)",
    "ones(((2,),))", "zeros(shape=(2,))", "zeros((1,) * 40)", "arange(10)",
    "__import__('os')", "().__class__", "[x for x in range(3)]", "lambda: 1",
    "<img src=x onerror=alert(1)>",
])
def test_hostile_values_are_refused_with_a_message(text):
    with pytest.raises(ValueParseError) as e:
        parse_value(text)
    assert str(e.value)


def _array2string(x: object) -> str:
    """format_value as numpy's array2string writes it (the oracle of its direct path)."""
    from pe_engine.explain.values import _fmt_float
    with np.printoptions(threshold=12, edgeitems=2, formatter={"float_kind": _fmt_float}):
        s = " ".join(np.array2string(np.asarray(x), separator=", ").split())
    return s if len(s) <= 120 else s[:119] + "…"


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([(), (1,), (5,), (12,), (13,), (2, 3), (3, 4), (4, 4), (2, 2, 2), (40,),
                        (4, 8), (8, 4), (5, 3), (3, 5), (32, 8), (1, 20), (20, 1), (6, 6), (5, 5)]),
       st.sampled_from([np.float32, np.float64, np.float16]),
       st.lists(st.floats(width=32), min_size=16, max_size=16))
def test_small_float_arrays_print_as_array2string_does(shape, dtype, pool):
    with np.errstate(over="ignore"):  # float16 holds what overflows as inf, still a value
        v = np.resize(np.asarray(pool, dtype=dtype), shape)
    assert format_value(v) == _array2string(v)


@pytest.mark.parametrize("v, text", [
    (1.0, "1.0"), (-0.0, "-0.0"), (1000.0, "1000.0"), (-5.0, "-5.0"), (0.5, "0.5"),
    (12345.0, "1.234e+04"), (1e16, "1e+16"), (1e-7, "1e-07"), (float("nan"), "nan"),
    (float("inf"), "inf"), (float("-inf"), "-inf"), (np.float32(2.5), "2.5"),
])
def test_a_float_is_written_as_numpy_writes_it_with_four_digits(v, text):
    """_fmt_float: four significant digits, an integral value with ".0" (not nan or inf)."""
    from pe_engine.explain.values import _fmt_float
    assert _fmt_float(v) == text

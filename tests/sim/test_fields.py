"""``Fields``, the typed reader behind every asset file's validation: each reader against a plain
reference predicate (types, bounds inclusive or strict, lengths, null), with hypothesis reaching
the bounds exactly, and the error line's shape."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from game.sim.data import REQUIRED, AssetError, Fields


class Boom(ValueError):
    pass


def reader():
    return Fields("doc.json", error=Boom, restore="git checkout -- doc.json")


def outcome(fn):
    """``("ok", value)`` or ``("error", message)``."""
    try:
        return "ok", fn()
    except Boom as exc:
        msg = str(exc)
        assert msg.startswith("doc.json: ") and "\n" not in msg and "expected" in msg, msg
        assert msg.endswith(", or restore the shipped file with git checkout -- doc.json"), msg
        return "error", msg


def is_number(v) -> bool:
    return type(v) in (int, float)


def finite_float(v):
    try:
        x = float(v)
    except OverflowError:
        return None
    return x if math.isfinite(x) else None


BOUNDS = st.sampled_from([None, -2, -1.5, 0, 0.25, 1, 3])


#: values that sit on, just off and far from the bounds, and every JSON type
VALUES = st.one_of(
    st.sampled_from([-2, -1.5, 0, 0.25, 1, 3, -2.0, 0.0, 1.0, 3.0, math.nextafter(0.25, 1), math.nextafter(1, 0),
                     math.nextafter(-1.5, -9), True, False, None, "1", "", [], [1], {}, 10**400, -(10**400),
                     math.nan, math.inf, -math.inf]),
    st.integers(-5, 5), st.floats(-5, 5), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3), st.lists(st.integers(0, 3), max_size=4))


@pytest.mark.slow
@settings(max_examples=250, deadline=None)
@given(VALUES, BOUNDS, BOUNDS, BOUNDS)
@example(True, None, None, None)               # JSON true is not the number 1
@example(False, 0, 1, None)
@example(0.25, None, None, 0.25)               # "above" is strict, lo and hi are not
@example(0.25, 0.25, 0.25, None)
def test_fields_num_accepts_exactly_the_finite_numbers_in_range(v, lo, hi, above):
    got = outcome(lambda: reader().num({"k": v}, "k", "a.b", lo, hi, above=above))
    x = finite_float(v) if is_number(v) else None
    ok = (x is not None and (above is None or x > above) and (lo is None or x >= lo)
          and (hi is None or x <= hi))
    assert got[0] == ("ok" if ok else "error"), (v, lo, hi, above, got)
    if ok:
        assert type(got[1]) is float and got[1] == x
    else:
        assert got[1].startswith("doc.json: a.b.k: expected a finite number"), got[1]
        assert f"got {v!r}"[:40] in got[1] or "..." in got[1]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(VALUES, st.integers(-3, 3), st.integers(-3, 3))
@example(True, 0, 3)
@example(False, 0, 0)
@example(3, -3, 3)
def test_fields_whole_accepts_exactly_the_json_integers_in_range(v, lo, hi):
    got = outcome(lambda: reader().whole({"k": v}, "k", "", lo, hi))
    ok = type(v) is int and lo <= v <= hi
    assert got[0] == ("ok" if ok else "error"), (v, lo, hi, got)
    if ok:
        assert type(got[1]) is int and got[1] == v
    else:
        assert f": k: expected a whole number from {lo} to {hi}, got " in got[1]


LENGTHS = st.sampled_from([None, 0, 1, 2, 3])


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(st.integers(), max_size=5), VALUES), LENGTHS, st.integers(0, 3), LENGTHS)
def test_fields_items_accepts_exactly_lists_of_the_allowed_length(v, n, lo, hi):
    got = outcome(lambda: reader().items({"k": v}, "k", "w", "things", n=n, lo=lo, hi=hi))
    if n is not None:
        lo, hi = n, n
    ok = type(v) is list and len(v) >= lo and (hi is None or len(v) <= hi)
    assert got[0] == ("ok" if ok else "error"), (v, n, lo, hi, got)
    if ok:
        assert got[1] is v


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(VALUES, st.booleans())
def test_fields_text_flag_and_choice_against_their_definitions(v, nullable):
    got = outcome(lambda: reader().text({"k": v}, "k", "", nullable=nullable))
    ok = (type(v) is str and v != "") or (nullable and v is None)
    assert got[0] == ("ok" if ok else "error") and (not ok or got[1] is v), (v, nullable, got)
    got = outcome(lambda: reader().flag({"k": v}, "k", ""))
    assert got[0] == ("ok" if type(v) is bool else "error") and (type(v) is not bool or got[1] is v)
    got = outcome(lambda: reader().choice({"k": v}, "k", "", ("1", "x")))
    assert got[0] == ("ok" if v in ("1", "x") and type(v) is str else "error")


@pytest.mark.parametrize("call", [
    lambda f, d: f.num(d, "k", "p", 0, 1, default=d.get("dflt", REQUIRED)),
    lambda f, d: f.whole(d, "k", "p", 0, 1, default=d.get("dflt", REQUIRED)),
    lambda f, d: f.text(d, "k", "p", default=d.get("dflt", REQUIRED)),
    lambda f, d: f.flag(d, "k", "p", default=d.get("dflt", REQUIRED)),
    lambda f, d: f.choice(d, "k", "p", ("a",), default=d.get("dflt", REQUIRED)),
    lambda f, d: f.items(d, "k", "p", "x", default=d.get("dflt", REQUIRED)),
    lambda f, d: f.obj(d, "k", "p", default=d.get("dflt", REQUIRED)),
])
def test_fields_missing_key_is_its_default_or_a_missing_error(call):
    f = reader()
    sentinel = object()
    assert call(f, {"_other": 1, "dflt": sentinel}) is sentinel
    kind, msg = outcome(lambda: call(reader(), {}))
    assert kind == "error" and msg.startswith("doc.json: p.k: missing: expected "), msg


def test_fields_vec_names_the_bad_element_and_reads_every_one():
    f = reader()
    assert f.vec({"v": [0, 0.5, 1]}, "v", "a", 3, 0, 1) == [0.0, 0.5, 1.0]
    for bad in ([2, 0, 0], [0, -1, 0], [0, 0, math.inf]):
        kind, msg = outcome(lambda bad=bad: reader().vec({"v": bad}, "v", "a", 3, 0, 1))
        assert kind == "error" and f": a.v[{bad.index(next(b for b in bad if not 0 <= b <= 1))}]: " in msg, msg
    kind, msg = outcome(lambda: reader().vec({"v": [0, 0]}, "v", "a", 3))
    assert kind == "error" and ": a.v: expected a list of 3 numbers" in msg
    kind, msg = outcome(lambda: reader().vec({"v": [0.5, 0]}, "v", "a", 2, above=0))     # strictly positive
    assert kind == "error" and ": a.v[1]: expected a finite number > 0, got 0;" in msg, msg


def test_fields_error_shows_a_long_value_cut_to_sixty_characters():
    long = list(range(100))
    kind, msg = outcome(lambda: reader().num({"k": long}, "k", ""))
    shown = repr(long)[:57] + "..."
    assert kind == "error" and f"got {shown}; " in msg and repr(long) not in msg, msg


def test_fields_unknown_keys_are_the_ones_no_reader_asked_for():
    doc = {"a": 1, "b": {"c": 2, "_note": {"x": 1}}, "lst": [{"d": 1}], "_doc": "text"}
    f = Fields("doc.json")
    f.num(doc, "a", "", 0, 5)
    inner = f.obj(doc, "b", "")
    f.num(inner, "c", "b", 0, 5)
    for i, item in enumerate(f.items(doc, "lst", "", "objects")):
        f.num(item, "d", f"lst[{i}]", 0, 5)
    f.reject_unknown(doc)                            # all read: comments anywhere are fine
    f.num(inner, "zz", "b", default=None)            # asked for but absent: known, not an error
    doc["b"]["cc"] = 3
    with pytest.raises(AssetError, match=r"^doc\.json: b\.cc: expected a key the game reads, got unknown key 'cc'; "
                                         r"did you mean 'c'\?"):
        f.reject_unknown(doc)
    del doc["b"]["cc"]
    doc["lst"][0]["q"] = 1
    with pytest.raises(AssetError, match=r"lst\[0\]\.q: expected one of the keys the game reads here \(d\)"):
        f.reject_unknown(doc)

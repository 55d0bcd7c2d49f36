"""Every requirement of docs/spec.md is guarded by at least one test whose name carries its ID,
and no test names an ID the spec does not define (``speccoverage`` computes the list;
``python3 tests/helpers/speccoverage.py`` prints it)."""

from __future__ import annotations

from speccoverage import collected_tests, coverage, ids_of, spec_ids

#: what docs/spec.md defines: method A's 8 requirements, B's 9, C's 9
DEFINED = [f"{m}{i}" for m, n in (("A", 8), ("B", 9), ("C", 9)) for i in range(1, n + 1)]


def test_the_spec_defines_the_26_requirements_of_the_three_methods_once_each():
    assert spec_ids() == DEFINED


def test_every_requirement_has_a_test_that_names_it():
    missing = [i for i, tests in coverage().items() if i in DEFINED and not tests]
    assert not missing, f"no test names {missing}: put the ID in the name of a test that guards it"


def test_no_test_names_a_requirement_the_spec_does_not_define():
    unknown = {i: tests for i, tests in coverage().items() if i not in DEFINED}
    assert not unknown, f"IDs not in docs/spec.md: {unknown}"


def test_the_list_reads_the_tests_pytest_collects(request):
    """The names read from the files are the test functions this session collected (all of
    them, when it collected everything), so the list holds whatever a run selects."""
    read = {t.split("::", 1)[1].rsplit("::", 1)[-1] for t in collected_tests()}
    session = {item.originalname for item in request.session.items if hasattr(item, "originalname")}
    assert session <= read, sorted(session - read)[:5]
    assert ids_of("tests/x.py::test_B3_B4_C_struck_crate_A10") == ["B3", "B4", "A10"]

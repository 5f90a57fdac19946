"""Test parameters: one per table, with a loud skip where a source of tables is missing."""

import os

import pytest

import tables

CORPUS_MISSING = (
    "public corpus not found at <repo>/../shared/corpus/public nor $ICESCOPE_CORPUS: "
    "the corpus tables were NOT tested"
)


def corpus_params() -> list:
    """One param per corpus table; a single skipped param when the corpus is absent, so the
    run says so (skip reason, and the header from conftest) instead of collecting nothing."""
    found = tables.corpus_tables()
    if not found:
        return [missing("corpus-missing", CORPUS_MISSING)]
    return [pytest.param(t, id=f"corpus/{t.name}") for t in found]


def example_params() -> list:
    found = tables.example_tables()
    if not found:
        return [missing("examples-missing", "no examples under public/examples: run tests/lab/make_examples.py")]
    return [pytest.param(t, id=f"examples/{t.name}") for t in found]


def missing(name: str, reason: str):
    """The one param standing for a missing source of tables: skipped with why, or under CI
    (tests/run.sh sets CI=true) failed by the `missing_tables` fixture, naming it."""
    if os.environ.get("CI"):
        return pytest.param(reason, id=name, marks=pytest.mark.usefixtures("missing_tables"))
    return pytest.param(None, id=name, marks=pytest.mark.skip(reason=reason))

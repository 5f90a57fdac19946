"""Test parameters: one per table, with a loud skip where a source of tables is missing."""

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
        return [pytest.param(None, id="corpus-missing", marks=pytest.mark.skip(reason=CORPUS_MISSING))]
    return [pytest.param(t, id=f"corpus/{t.name}") for t in found]


def example_params() -> list:
    found = tables.example_tables()
    if not found:
        return [pytest.param(None, id="examples-missing", marks=pytest.mark.skip(
            reason="no examples under public/examples: run tests/lab/make_examples.py"))]
    return [pytest.param(t, id=f"examples/{t.name}") for t in found]

"""Shared fixtures: the CLI under test, and a run header saying what was (not) found."""

import os

import pytest

import cli
import tables
from needs import needs
from params import CORPUS_MISSING


def pytest_report_header(config):
    root = tables.corpus_root()
    binary = cli.binary()
    return [
        f"icescope corpus: {root or 'MISSING - ' + CORPUS_MISSING}",
        f"icescope CLI: {binary} ({'found' if binary.is_file() else 'not built'})",
    ]


@pytest.fixture(scope="session")
def icescope():
    """The CLI binary. Locally, a missing build skips with the command to fix it; in CI
    (CI=true) it fails, since a skipped comparison there would read as a pass."""
    binary = cli.binary()
    needs(binary.is_file(), f"icescope CLI not found at {binary}: run `cargo build --bin icescope` or set ICESCOPE_BIN")
    return binary


@pytest.fixture
def missing_tables(request):
    """Fails the param `params.missing` made under CI: a source of tables is absent."""
    pytest.fail(f"missing under CI: {request.node.callspec.id}: {request.node.callspec.params.get('table', '')}")

"""The lab's fixtures are whole and agree with the engines' facts (tests/lab/check_fixtures.py,
which needs no engine): every file the metadata references exists or was expired by a recorded
maintenance call, and the Flink job ids and row counts in facts.json match the snapshots."""

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"

spec = importlib.util.spec_from_file_location("check_fixtures", REPO / "tests" / "lab" / "check_fixtures.py")
check_fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_fixtures)

NAMES = sorted(p.name for p in FIXTURES.iterdir() if (p / "facts.json").exists())


def test_all_twenty_three_scenarios_are_there():
    assert NAMES == sorted(["append-stream", "maintenance-live", "taskmanager-kill", "savepoint-twice", "concurrent-writers",
                            "schema-on-the-wire", "late-data", "upsert-stream", "v3-deletion-vectors",
                            "savepoint-no-stop", "older-savepoint", "merge-append-long", "icebergsink-v2",
                            "dynamic-sink", "flink-maintenance", "savepoint-resume", "live-watch", "live-watch-icebergsink",
                            "live-watch-dynamic", "live-browser", "older-savepoint-icebergsink", "older-savepoint-dynamic",
                            "two-deployments"])


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_whole_and_agrees_with_its_facts(name):
    problems = check_fixtures.check(FIXTURES / name)
    assert not problems, "\n".join(problems)

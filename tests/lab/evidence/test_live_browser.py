"""What the app showed in Chromium while the lab's Flink job ran (tests/fixtures/live-browser, written by
`bash tests/lab/run_lab.sh live-browser`): the app opened the table through `icescope serve` and the
REST catalog, the Live switch on, while the job committed, lost its TaskManager, was stopped with a
savepoint and a second job resumed from it. After every look the app took, browser-looks.jsonl has
one line: when it looked, the growth chart's points, the snapshot count, the metadata file shown.

Each look is checked against the table's own metadata files (the fixture keeps every one the catalog
wrote): what it showed is a version of the table that existed when it looked, the counts never go
back, the last look shows the final version whole, and the resumed job's first commit is shown. No
timing is asserted.

Evidence of that recorded run, not a test of the current code: it is not part of tests/run.sh.
Run it after recording: `tests/.venv/bin/python -m pytest tests/lab/evidence`. The current code's
Live chart is tested by tests/e2e/live.test.mjs (the app following a table as it grows)."""

import json
import struct
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
DIR = REPO / "tests" / "fixtures" / "live-browser"


@pytest.fixture(scope="module")
def run():
    if not (DIR / "browser-looks.jsonl").exists():
        pytest.fail(f"{DIR}: no browser-looks.jsonl (bash tests/lab/run_lab.sh live-browser)")
    facts = json.loads((DIR / "facts.json").read_text())
    looks = [json.loads(line) for line in (DIR / "browser-looks.jsonl").read_text().splitlines() if line.strip()]
    versions = []
    for p in (DIR / "metadata").glob("v*.metadata.json"):
        m = json.loads(p.read_text())
        versions.append({"file": p.name, "version": int(p.name[1:].split(".")[0]), "updated_ms": m["last-updated-ms"],
                         "snapshots": len(m.get("snapshots", [])), "ids": [s["snapshot-id"] for s in m.get("snapshots", [])]})
    versions.sort(key=lambda v: v["version"])
    return facts, looks, versions


def test_the_run_recorded_looks_and_no_page_error(run):
    facts, looks, _ = run
    assert len(looks) == facts["browser"]["looks"]
    assert [x["look"] for x in looks] == list(range(1, len(looks) + 1)), "no look lost"
    assert facts["browser"]["page_errors"] == []
    assert facts["browser"]["failure"] is None
    assert all(x["problem"] is None for x in looks), [x["problem"] for x in looks if x["problem"]]


def test_every_look_shows_a_version_of_the_table_that_existed_then(run):
    _, looks, versions = run
    for x in looks:
        assert x["points"] == x["snapshot_count"], x
        existed = [v for v in versions if v["updated_ms"] <= x["looked_wall_ms"]]
        assert any(v["snapshots"] == x["snapshot_count"] for v in existed), (x, [(v["file"], v["snapshots"]) for v in existed[-3:]])
        if x["metadata"] and x["metadata"].endswith(".metadata.json"):
            shown = next(v for v in versions if v["file"] == x["metadata"].rsplit("/", 1)[-1])
            assert shown["snapshots"] == x["snapshot_count"] and shown["updated_ms"] <= x["looked_wall_ms"], (x, shown)


def test_the_counts_never_go_back(run):
    _, looks, _ = run
    for a, b in zip(looks, looks[1:]):
        assert b["snapshot_count"] >= a["snapshot_count"], (a, b)
        assert b["points"] >= a["points"], (a, b)
    assert looks[-1]["snapshot_count"] > looks[0]["snapshot_count"], "the chart grew while it was open"


def test_the_last_look_shows_every_snapshot_of_the_final_metadata_file(run):
    facts, looks, versions = run
    final = versions[-1]
    assert final["snapshots"] == len(facts["commits"]) == facts["browser"]["final_snapshots"]
    assert (looks[-1]["points"], looks[-1]["snapshot_count"]) == (final["snapshots"], final["snapshots"])
    if looks[-1]["metadata"] and looks[-1]["metadata"].endswith(".metadata.json"):
        assert looks[-1]["metadata"].rsplit("/", 1)[-1] == final["file"]


def test_the_resumed_jobs_first_commit_appears_and_is_a_new_job(run):
    facts, looks, versions = run
    j2 = facts["job_labels"]["2"]
    first = next(i for i, c in enumerate(facts["commits"]) if c["flink_job_id"] == j2)
    # the table before the resume is the job 1 part; job 2's first commit is the next snapshot
    before = next(v for v in versions if v["file"] == facts["resumes"][0]["table_before"]["metadata_file"])
    assert before["snapshots"] == first
    showing = [x for x in looks if x["snapshot_count"] > first]
    assert showing, f"no look showed more than the {first} snapshots before job 2's first commit"
    assert looks[0]["snapshot_count"] <= first, "Live was on before job 2 committed"
    # the new job is said once, by the look that first showed its commit or a later one
    assert looks[-1]["events"]["new_job"] == 1, looks[-1]
    assert all(x["events"]["new_job"] == 0 for x in looks if x["snapshot_count"] <= first)


def test_the_screenshots_are_800_px_wide_pngs_under_200_kb(run):
    facts, _, _ = run
    shots = facts["browser"]["shots"]
    assert shots, "no screenshot kept"
    for s in shots:
        b = (DIR / s["file"]).read_bytes()
        assert b[:8] == b"\x89PNG\r\n\x1a\n" and len(b) == s["bytes"] < 200_000, s
        assert struct.unpack(">I", b[16:20])[0] == 800, s

"""What `icescope watch` printed while the lab's Flink job ran (tests/fixtures/live-watch, written by
`bash tests/lab/run_lab.sh live-watch`; live-watch-icebergsink and live-watch-dynamic the same run
through IcebergSink and the DynamicIcebergSink), against what Flink, Spark and the table say happened:
every commit made while it watched is one event, in commit order, with the table's ids; the
TaskManager kill is a stall of job 1, said within `stall-after` times its interval plus a look of
its last commit and not before, then its resume; job 2, resumed from the older savepoint, is a new
job at its first commit with restored state, and the replay finding follows in the same look;
Spark's rewrite is a maintenance event; the cancelled job 2 stalls at the end.

The facts are Flink's REST record and Spark's reading of the table (facts.json); the events are
the watch's own JSON lines (watch-events.jsonl). These check the recording against the engines; that
the current code says what was recorded, look by look, is tests/live.rs
(`the_recorded_watches_are_what_the_current_code_says_at_the_same_looks`), so the two together hold
the current code to what Flink and Spark did."""

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
# FlinkSink, IcebergSink (sink v2) and the DynamicIcebergSink: the same scenario, each sink's own committer.
NAMES = ["live-watch", "live-watch-icebergsink", "live-watch-dynamic"]


@pytest.fixture(scope="module", params=NAMES)
def run(request):
    d = FIXTURES / request.param
    if not (d / "watch-events.jsonl").exists():
        pytest.fail(f"{d}: no watch-events.jsonl (bash tests/lab/run_lab.sh {request.param})")
    facts = json.loads((d / "facts.json").read_text())
    events = [json.loads(line) for line in (d / "watch-events.jsonl").read_text().splitlines() if line.strip()]
    return facts, events


def of(events, kind):
    return [e for e in events if e["event"] == kind]


def test_every_commit_made_while_watching_is_one_event_in_commit_order(run):
    facts, events = run
    first = of(events, "watching")[0]
    before = first["snapshots"]
    table = [str(c["snapshot_id"]) for c in facts["commits"]]
    said = [e["snapshot_id"] for e in events if e["event"] in ("commit", "maintenance")]
    assert said == table[before:]
    records = {str(c["snapshot_id"]): c["added_records"] for c in facts["commits"]}
    for e in of(events, "commit"):
        assert e["added_records"] == records[e["snapshot_id"]]
        assert e["at_ms"] >= e["committed_ms"]


def at(facts, event):
    """When a timeline event happened, on the wall clock."""
    return facts["t0_ms"] + next(e["t_ms"] for e in facts["timeline"] if e["event"] == event)


def test_the_taskmanager_kill_is_a_stall_of_job_1_then_its_resume(run):
    facts, events = run
    j1 = facts["job_labels"]["1"]
    stall_after = facts["watch"]["stall_after"]
    every = facts["watch"]["every_ms"]
    kill, restart = at(facts, "taskmanager-killed"), at(facts, "taskmanager-started")
    times = [e["committed_ms"] for e in of(events, "commit") if e["job_id"] == j1]
    last = max(t for t in times if t <= kill)
    stalls = [e for e in of(events, "stalled") if e["writer"] == f"job {j1}" and e["last_commit_ms"] == last]
    assert len(stalls) == 1, of(events, "stalled")
    stall = stalls[0]
    due = last + stall_after * stall["usual_interval_ms"]
    assert due < stall["at_ms"] <= due + every + 3_000, (stall, due)
    assert stall["at_ms"] < restart + 60_000
    resumed = [e for e in of(events, "resumed") if e["writer"] == f"job {j1}" and e["last_commit_ms"] == last]
    assert len(resumed) == 1
    after = min(t for t in times if t > last)
    assert resumed[0]["commit_ms"] == after and resumed[0]["gap_ms"] == after - last and resumed[0]["by_job"] is None


def test_every_stall_but_the_last_ends_in_a_resume(run):
    facts, events = run
    stalls = of(events, "stalled")
    for st in stalls[:-1]:
        later = [e for e in of(events, "resumed") if e["writer"] == st["writer"] and e["last_commit_ms"] == st["last_commit_ms"]]
        assert len(later) == 1, st
        assert later[0]["at_ms"] > st["at_ms"]
    assert stalls[-1]["writer"] == f"job {facts['job_labels']['3']}"


def test_the_resume_from_the_older_savepoint_is_a_new_job_and_a_replay_finding_in_the_same_look(run):
    facts, events = run
    labels = facts["job_labels"]
    sp = {p["label"]: p for p in facts["savepoints"]}
    new = {e["job_id"]: e for e in of(events, "new_job")}
    assert set(new) == {labels["2"], labels["3"]}
    for label in ("2", "3"):
        e = new[labels[label]]
        assert e["restored_state"] is True
        first_cp = min(c["max_committed_checkpoint_id"] for c in facts["commits"] if c["flink_job_id"] == labels[label])
        assert e["first_checkpoint_id"] == first_cp
        i = events.index(e)
        assert events[i + 1]["event"] == "commit" and events[i + 1]["job_id"] == labels[label]
    # Which checkpoint job 3 (restored from A) commits first is each committer's own rule
    # (apache/iceberg 1.11.0, flink/v2.1/flink/src/main/java/org/apache/iceberg/flink/sink/):
    sink = facts.get("sink", "flinksink")
    if sink == "flinksink":
        # IcebergFilesCommitter.java:182-192 looks up what the RESTORED job id (job 1's, from the
        # state) committed, up to B, and skips checkpoints up to it: job 3's first commit is past
        # B, among job 2's.
        assert new[labels["3"]]["first_checkpoint_id"] > sp["B"]["checkpoint_id"]
    elif sink == "icebergsink":
        # IcebergCommitter.java:125-134 looks up the committables' own job id, job 3's new one
        # (IcebergWriteAggregator.java:110-112), which committed nothing: it commits from the
        # checkpoint after A, over job 1's and job 2's.
        assert new[labels["3"]]["first_checkpoint_id"] == sp["A"]["checkpoint_id"] + 1
    elif sink == "dynamic":
        # DynamicCommitter.java:136-155 takes the job id of the batch's last committable and walks
        # the branch's ancestors for that id's flink.max-committed-checkpoint-id (:163-182); the
        # committable carries the running job's id (DynamicWriteResultAggregator.java:128-133,
        # getContainingTask().getEnvironment().getJobID()), so job 3's new checkpoints find -1 and
        # commit from the checkpoint after A. (A's own committables, restored with job 1's id, are
        # committed on their own at restore, Flink 2.1.1 CommitterOperator.initializeState ->
        # commitAndEmitCheckpoints, so they find job 1's commits up to B and are skipped,
        # signalAlreadyCommitted, :145-152.) The commit's validator keys on the same new id
        # (:314-336, :363-364), so nothing stops the replay.
        assert new[labels["3"]]["first_checkpoint_id"] == sp["A"]["checkpoint_id"] + 1
        # commitDeltaTxn (:278-305) commits each pending checkpoint as its own snapshot, never
        # folded: job 3, which failed no checkpoint, has one commit per completed checkpoint.
        j3 = next(j for j in facts["jobs"] if j["job_id"] == labels["3"])
        said = [e["checkpoint_id"] for e in of(events, "commit") if e["job_id"] == labels["3"]]
        assert said == j3["checkpoints"]["completed_ids"], (said, j3["checkpoints"]["completed_ids"])
    else:
        pytest.fail(f"no rule for sink {sink!r}")
    assert new[labels["3"]]["previous_job_id"] == labels["2"]
    replay = [e for e in of(events, "finding") if e["kind"] == "savepoint_replayed"]
    assert len(replay) == 1 and replay[0]["severity"] == "critical"
    assert replay[0]["at_ms"] == new[labels["3"]]["at_ms"]
    assert labels["3"] in replay[0]["job_ids"]
    assert facts["at_end"]["duplicates"] > 0


def committed_ms(commit) -> int:
    """Spark's committed_at (UTC, no zone) on the wall clock."""
    return round(datetime.fromisoformat(commit["committed_at"]).replace(tzinfo=timezone.utc).timestamp() * 1000)


def test_sparks_rewrite_is_maintenance(run):
    facts, events = run
    replaces = [str(c["snapshot_id"]) for c in facts["commits"] if c["operation"] == "replace"]
    m = facts["maintenance"][0]
    order = [str(c["snapshot_id"]) for c in facts["commits"]]
    # Spark's partial-progress commits all land between the snapshot before the call and the one
    # current when it returned (snapshot_after), and inside the call's time. snapshot_after can be the
    # live job's: in live-watch-dynamic the rewrite's last group lost its commit to job 3's checkpoint
    # 26 after its retries (CommitFailedException: branch "main" has changed), and the call returned
    # after that commit.
    assert replaces
    before, after = order.index(str(m["snapshot_before"])), order.index(str(m["snapshot_after"]))
    assert all(before < order.index(r) <= after for r in replaces)
    call = m["attempts"][-1]
    ms = {str(c["snapshot_id"]): committed_ms(c) for c in facts["commits"]}
    assert all(call["started_ms"] <= ms[r] <= call["started_ms"] + call["ms"] for r in replaces)
    assert [e["snapshot_id"] for e in of(events, "maintenance")] == replaces
    assert all(e["operation"] == "replace" and e["job_id"] is None for e in of(events, "maintenance"))


def test_the_cancelled_job_stalls_at_the_end(run):
    facts, events = run
    j3 = facts["job_labels"]["3"]
    stalls = [e for e in of(events, "stalled") if e["writer"] == f"job {j3}"]
    assert len(stalls) == 1
    last = max(e["committed_ms"] for e in of(events, "commit") if e["job_id"] == j3)
    assert stalls[0]["last_commit_ms"] == last
    assert stalls[0]["at_ms"] > at(facts, "canceled")

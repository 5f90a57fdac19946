"""Many Flink jobs and wide checkpoint holes: findings over pairs of jobs and over holes must stay
proportional (grouped, capped, saying how many were left out). The histories are late-data's
first commit repeated under new ids, job ids and checkpoint ids, all naming its one manifest list
(so every count is exact and every summary agrees)."""
import copy

from table import Case

F = "jobs"
# What a job finding reads, and the totals that make every count exact: the rest of a Flink
# summary would only make the file larger.
KEPT = {"operation", "added-data-files", "added-records", "total-data-files", "total-delete-files", "total-records", "manifests-created", "manifests-kept"}
CAP = 10  # findings of one kind listed one by one; the rest are one finding that counts them


def history(name, what, commits):
    """`commits`: (job id, checkpoint id) per snapshot, in commit order."""
    c = Case(F, name, what, "late1")
    first = c.snapshots()[0]
    snaps, log = [], []
    for k, (job, checkpoint) in enumerate(commits):
        s = copy.deepcopy(first)
        s["snapshot-id"] = first["snapshot-id"] + k
        s["sequence-number"] = k + 1
        s["timestamp-ms"] = first["timestamp-ms"] + 1000 * k
        if k:
            s["parent-snapshot-id"] = snaps[-1]["snapshot-id"]
        s["summary"] = {key: v for key, v in s["summary"].items() if key in KEPT}
        s["summary"]["flink.job-id"] = job
        s["summary"]["flink.max-committed-checkpoint-id"] = str(checkpoint)
        snaps.append(s)
        log.append({"snapshot-id": s["snapshot-id"], "timestamp-ms": s["timestamp-ms"]})
    c.meta["snapshots"] = snaps
    c.meta["snapshot-log"] = log
    c.meta["current-snapshot-id"] = snaps[-1]["snapshot-id"]
    c.meta["refs"] = {"main": {"snapshot-id": snaps[-1]["snapshot-id"], "type": "branch"}}
    c.meta["last-sequence-number"] = len(snaps)
    c.meta["last-updated-ms"] = snaps[-1]["timestamp-ms"]
    return c


def job(k):
    return f"{k:032x}"


def cases():
    out = []
    n = 60
    c = history("interleaved-60-jobs", f"{n} jobs each committing checkpoints 1 and 2, the second commits after every job's first: {n * (n - 1) // 2:,} pairs writing at once",
                [(job(k), 1) for k in range(n)] + [(job(k), 2) for k in range(n)])
    c.expect["findings"] = {"count": {"concurrent_writers": CAP + 1}, "text": {"concurrent_writers": [f"{n * (n - 1) // 2 - CAP:,} more"]}}
    out.append(c)

    c = history("resumed-40-times", "40 jobs one after another, each continuing the checkpoints of the one before: 39 ordinary resumes",
                [(job(k), k + 1) for k in range(40)])
    c.expect["findings"] = {"count": {"job_resumed": CAP + 1, "savepoint_replayed": 0}, "text": {"job_resumed": [f"{39 - CAP} more"]}}
    out.append(c)

    # The newest job, right after the one before it, may be a second deployment beside a running
    # one: the table cannot tell yet, so it is two writers or a restart from scratch, not a replay.
    c = history("replayed-30-times", "30 jobs one after another, each restarting at checkpoint 1 after the one before committed 1 and 2 "
                "(the newest, right after the one before it, is two writers or a restart from scratch)",
                [(job(k), cp) for k in range(30) for cp in (1, 2)])
    c.expect["findings"] = {"count": {"savepoint_replayed": CAP + 1, "concurrent_writers": 1},
                            "text": {"savepoint_replayed": [f"{28 - CAP} more"], "concurrent_writers": ["started without state"]}}
    out.append(c)

    holes = 29
    c = history("checkpoint-holes-of-9999", f"one job committing checkpoints 1, 10001, 20001, …: {holes} holes of 9,999 ids",
                [(job(1), 1 + 10_000 * k) for k in range(holes + 1)])
    c.expect["findings"] = {"count": {"checkpoint_gaps": 1}, "text": {"checkpoint_gaps": [f"{holes * 9999:,} ids", f"{holes - CAP} more"]}}
    out.append(c)

    c = history("checkpoint-hole-past-the-limit", "one job committing checkpoints 1 and 50001: a counter from elsewhere, not 50,000 failed checkpoints",
                [(job(1), 1), (job(1), 50_001)])
    c.expect["findings"] = {"count": {"checkpoint_gaps": 0}}
    out.append(c)

    c = history("end-of-input-in-50-jobs", "50 bounded jobs, each ending with an end-of-input commit",
                [(job(k), cp) for k in range(50) for cp in (k + 1, (1 << 63) - 1)])
    c.expect["findings"] = {"count": {"end_of_input_commit": 1}, "text": {"end_of_input_commit": [f"{50 - CAP} more"]}}
    out.append(c)
    return out

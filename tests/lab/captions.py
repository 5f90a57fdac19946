"""One paragraph per fixture, written from its facts.json (every number is read from the facts)."""


def _jobs(f):
    return f["final_table"]["flink_jobs_in_snapshot_log"]


def _n(x):
    return f"{x:,}" if isinstance(x, int) else str(x)


def _files(n, what="file"):
    return f"{n} {what}" + ("" if n == 1 else "s")


def append_stream(f):
    j = f["jobs"][0]
    t = f["final_table"]
    data = sum(p["files"] for p in t["files_by_partition"] if p["content"] == "data")
    parts = len([p for p in t["files_by_partition"] if p["content"] == "data"])
    cps = j["checkpoints"]["counts"]
    return (f"A Flink {f['versions']['flink']} job (Iceberg {f['versions']['iceberg']} FlinkSink) streamed generated "
            f"order events at 200 rows/s into a day-partitioned table through the SeaweedFS REST catalog, with a "
            f"checkpoint every 5 s, and was cancelled after {j['duration_ms'] // 1000} s. Flink completed "
            f"{cps['completed']} checkpoints and the table has {len(t['snapshots'])} snapshots, one per committed "
            f"checkpoint, each an append from job {j['job_id'][:8]}… with its flink.max-committed-checkpoint-id; "
            f"{_n(t['rows'])} rows live in {data} data files across {parts} day partitions, a file per partition "
            f"touched per checkpoint. The files the writer closed when it was cancelled, after the last completed "
            f"checkpoint, are on the store as {_files(len(f['store']['orphans']), 'uncommitted (orphan) file')}.")


def savepoint_twice(f):
    a, b, c = f["jobs"][:3]
    final = [j for j, v in _jobs(f).items() if 9223372036854775807 in v["checkpoint_ids"]]
    return (f"A bounded Flink job of {_n(f['bounded_rows'])} rows was stopped "
            f"with a savepoint once it had emitted {_n(a['source_records_emitted'])} rows "
            f"({_n(f['after_stop']['rows'])} committed). It was resumed from that savepoint and finished "
            f"({_n(f['after_first_resume']['rows'])} rows, {_n(f['after_first_resume']['distinct_ids'])} distinct ids), "
            f"then resumed AGAIN from the same savepoint and finished too: the table now holds "
            f"{_n(f['after_second_resume']['rows'])} rows for {_n(f['after_second_resume']['distinct_ids'])} distinct "
            f"ids, {_n(f['after_second_resume']['duplicates'])} duplicates. The resumed jobs ended {b['state']} and "
            f"{c['state']} with {b['exceptions']['count'] + c['exceptions']['count']} exceptions between them; the snapshot log carries {len(_jobs(f))} distinct flink.job-id values, and "
            f"{len(final)} of them end with the end-of-input commit under checkpoint id 9223372036854775807.")


def late_data(f):
    t = f["final_table"]
    parts = [p for p in t["files_by_partition"] if p["content"] == "data"]
    one_row = [p for p in parts if p["records"] == 1]
    c = f["compaction_scoped_to_month"]["result"][0] if f["compaction_scoped_to_month"]["result"] else {}
    return (f"A bounded Flink job wrote {t['rows']} events, half stamped today and half stamped about a month "
            f"earlier, into a day-partitioned table. They landed where their timestamps say: {len(parts)} partitions, "
            f"{len(one_row)} of them holding a single one-row file. A Spark rewrite_data_files scoped to this month "
            f"rewrote {c.get('rewritten_data_files_count', 0)} files, so the old partitions keep their one-row files.")


def upsert_stream(f):
    j = f["jobs"][0]
    bm = f["before_maintenance"]
    fc = {r["content"]: r for r in bm["files_by_content"]}
    m1, m2 = f["maintenance"]
    after = {r["content"]: r for r in m2["files_by_content_after"]}
    return (f"A Flink upsert stream (write.upsert.enabled, format v2, key id over 1,000 keys) wrote 500 rows/s with "
            f"5 s checkpoints for {j['duration_ms'] // 1000} s, completing {j['checkpoints']['counts']['completed']} "
            f"checkpoints. Before maintenance the table had {fc.get(0, {}).get('files', 0)} data files, "
            f"{fc.get(1, {}).get('files', 0)} position-delete files and {fc.get(2, {}).get('files', 0)} equality-delete "
            f"files, and Spark counted {_n(bm['rows'])} rows ({_n(bm['distinct_ids'])} keys). "
            f"rewrite_position_delete_files rewrote {m1['result'][0].get('rewritten_delete_files_count') if m1['result'] else 0} "
            f"delete files and left the equality deletes alone; rewrite_data_files with delete-file-threshold 1 "
            f"rewrote {m2['result'][0].get('rewritten_data_files_count') if m2['result'] else 0} data files into "
            f"{m2['result'][0].get('added_data_files_count') if m2['result'] else 0}, after which the current snapshot "
            f"still lists {after.get(1, {}).get('files', 0)} position-delete and {after.get(2, {}).get('files', 0)} "
            f"equality-delete files ({_n(after.get(2, {}).get('records', 0) or 0)} equality-delete rows) beside "
            f"{_n(m2['rows_after'])} live rows.")


def schema_on_the_wire(f):
    add, drop = f["schema_changes"]
    return (f"While a Flink job streamed 200 rows/s into the table, Spark added a column (schema "
            f"{add['schema_id_before']} -> {add['schema_id_after']}) and inserted one row, then dropped the column "
            f"'note' that the job writes on every checkpoint (schema {drop['schema_id_before']} -> "
            f"{drop['schema_id_after']}). The job stayed {drop['job_state_after_settle']} with "
            f"{drop['job_exceptions_after_settle']} exceptions and kept committing (snapshots "
            f"{drop['snapshots_before']} -> {drop['snapshots_after_settle']} in the {drop['settle_s']} s after the "
            f"drop). Of the {f['data_file_columns']['files_committed_after_drop']} data files it committed after the drop, "
            f"{f['data_file_columns']['of_which_still_carry_note']} still carry the dropped 'note' column in their "
            f"Parquet schema, a field no reader projects any more. Rows with extra "
            f"NULL: {_n(f['extra_column']['null_extra'])}, not NULL: {_n(f['extra_column']['not_null_extra'])}.")


def maintenance_live(f):
    rw, ex, rm = f["maintenance"]
    j = f["jobs"][0]

    def r(m, k):
        return m["result"][0].get(k) if m["result"] else None
    failed = [f"{m['call'].split('system.')[1].split('(')[0]} failed once ({m['attempts'][0]['error'].split(':')[0].split('.')[-1]}) "
              f"and {'succeeded' if m['result'] else 'failed again'} on a second try"
              for m in (rw, ex, rm) if not m["attempts"][0]["ok"]]
    note = (" Under the live writer " + "; ".join(failed) + ".") if failed else ""
    return (f"While a Flink job kept appending 200 rows/s with 5 s checkpoints, Spark ran rewrite_data_files with "
            f"partial progress ({r(rw, 'rewritten_data_files_count')} files into {r(rw, 'added_data_files_count')}), "
            f"expire_snapshots with no arguments under hot-class retention properties (deleted "
            f"{r(ex, 'deleted_manifest_lists_count')} manifest lists, {r(ex, 'deleted_manifest_files_count')} manifests, "
            f"{r(ex, 'deleted_data_files_count')} data files) and rewrite_manifests "
            f"({r(rm, 'rewritten_manifests_count')} manifests into {r(rm, 'added_manifests_count')}). The job was "
            f"{rm['job_state']} after each call and ended with {j['checkpoints']['counts']['completed']} completed and "
            f"{j['checkpoints']['counts']['failed']} failed checkpoints and {j['exceptions']['count']} exceptions.{note}")


def taskmanager_kill(f):
    j = f["jobs"][0]
    c = j["checkpoints"]["counts"]
    t = f["final_table"]
    ids = j["checkpoints"]["completed_ids"]
    maxc = any(9223372036854775807 in v["checkpoint_ids"] for v in _jobs(f).values())
    return (f"A bounded Flink job of {_n(f['bounded_rows'])} rows at {_n(f['rows_per_second'])} rows/s lost its only TaskManager to a SIGKILL about 30 s "
            f"in ({_n(f['at_kill']['table_rows'])} rows committed at that moment); a new TaskManager process was started "
            f"8 s later. The job restored from its last checkpoint and finished {j['state']}: "
            f"{c['completed']} checkpoints completed, {c['failed']} failed, {c['restored']} restored, and the table holds "
            f"{_n(t['rows'])} rows with {_n(t['distinct_ids'])} distinct ids. The data files the writer had already "
            f"uploaded for the checkpoint in flight at the kill were never committed and stay on the store as "
            f"{_files(len(f['store']['orphans']), 'orphan')}; "
            + ("the final end-of-input commit carries checkpoint id 9223372036854775807." if maxc else
               "no commit carries the end-of-input checkpoint id 9223372036854775807."))


def concurrent_writers(f):
    a, b = f["jobs"][:2]
    t = f["final_table"]
    jobs = _jobs(f)
    il = f["interleaving"]
    eoi = [j for j, v in jobs.items() if 9223372036854775807 in v["checkpoint_ids"]]

    def span(j):
        v = jobs.get(j["job_id"], {})
        return (f"job {j['job_id'][:8]}… committed {v.get('snapshots', 0)} snapshots "
                f"({_n(v.get('added_records', 0))} rows) from {str(v.get('first_commit'))[11:19]} "
                f"to {str(v.get('last_commit'))[11:19]} UTC")
    dup = t["rows"] - t["distinct_ids"]
    twice = " (every id twice)" if t["rows"] == 2 * t["distinct_ids"] else ""
    return (f"Two Flink jobs were submitted separately at the same moment, neither restored from a savepoint or "
            f"checkpoint and sharing no state, each generating the same {_n(f['bounded_rows'])} ids at "
            f"{_n(f['rows_per_second'])} rows/s with 5 s checkpoints into one day-partitioned table. "
            f"{span(a)[:1].upper() + span(a)[1:]}; {span(b)}. Their commits interleave in time (commit order {il['commit_order']}, "
            f"{il['switches']} switches between the two flink.job-id values), and each job's checkpoint counter "
            f"starts at {min(jobs[a['job_id']]['checkpoint_ids'])} and {min(jobs[b['job_id']]['checkpoint_ids'])}. "
            f"Both ended {a['state']} and {b['state']} with {a['exceptions']['count'] + b['exceptions']['count']} "
            f"exceptions between them, {len(eoi)} of them with the end-of-input commit under checkpoint id "
            f"9223372036854775807. Spark counts {_n(t['rows'])} rows for {_n(t['distinct_ids'])} distinct ids: "
            f"{_n(dup)} duplicates{twice}.")


def v3_deletion_vectors(f):
    d = f["deletion_vectors"]
    t = f["final_table"]
    ops = ", ".join(f"{s['step'].split(' (')[0]} ({s['operation']})" for s in f["steps"])
    most = max(d["vectors_per_puffin_file"].values()) if d["vectors_per_puffin_file"] else 0
    removed = sum(int(s["summary"].get("removed-dvs", 0)) for s in t["snapshots"])
    check = ("which is exactly count(*)" if d["equals_count_star"] else
             f"while count(*) is {_n(d['count_star'])}")
    return (f"Spark {f['versions']['spark']} (Iceberg {f['versions']['iceberg']}) wrote a format-v3, "
            f"merge-on-read, day-partitioned table in a local Hadoop catalog: {ops}; "
            f"{len(t['snapshots'])} snapshots. Row-level changes are deletion vectors, position deletes kept as "
            f"bitmaps in Puffin files: the current snapshot has {_files(d['live_deletion_vectors'], 'live vector')} "
            f"in {_files(d['puffin_files'], 'Puffin file')} (up to {most} in one), marking {_n(d['dv_cardinality_sum'])} "
            f"rows deleted in {len({v['referenced_data_file'] for v in d['vectors']})} of the {d['live_data_files']} "
            f"data files ({_n(d['data_records'])} records), and "
            f"{removed} older vectors were replaced when a later change hit a file that already had one. "
            f"{_n(d['data_records'])} − {_n(d['dv_cardinality_sum'])} = {_n(d['data_records_minus_dv_cardinality'])} "
            f"live rows, {check}.")


def _cps(j):
    return j["checkpoints"]["completed_ids"]


def _span(ids):
    """Checkpoint ids as ranges: [1, 2, 3, 5, 6] -> "1–3, 5–6"."""
    if not ids:
        return "none"
    out, lo, prev = [], ids[0], ids[0]
    for x in list(ids[1:]) + [None]:
        if x is not None and x == prev + 1:
            prev = x
            continue
        out.append(f"{lo}–{prev}" if prev != lo else f"{lo}")
        lo = prev = x
    return ", ".join(out)


def _commit_ids(f, job_id):
    return [c["max_committed_checkpoint_id"] for c in f["commits"] if c["flink_job_id"] == job_id]


def savepoint_no_stop(f):
    a, b = f["jobs"][:2]
    sp1, sp2 = f["savepoints"][:2]
    return (f"A bounded FlinkSink job of {_n(f['bounded_rows'])} rows ({f['rows_per_second']} rows/s, 5 s checkpoints) "
            f"took a savepoint without stopping (checkpoint id {sp1['checkpoint_id']}) and kept running; it was then "
            f"stopped with a second savepoint (id {sp2['checkpoint_id']}). Job {a['job_id'][:8]}… completed checkpoints "
            f"{_span(_cps(a))} besides the two savepoints, and the job's snapshots carry flink.max-committed-checkpoint-id "
            f"{', '.join(map(str, _commit_ids(f, a['job_id'])))}"
            + ("" if sp1["checkpoint_id"] in _commit_ids(f, a["job_id"]) else
               f" (none for the savepoint taken without stopping: its files went into the next checkpoint's commit)")
            + f". Job {b['job_id'][:8]}…, resumed from the second "
            f"savepoint, completed checkpoints {_span(_cps(b))} and committed "
            f"{', '.join(map(str, _commit_ids(f, b['job_id'])))}. The table ends with {_n(f['at_end']['rows'])} rows for "
            f"{_n(f['at_end']['distinct_ids'])} distinct ids ({_n(f['at_end']['duplicates'])} duplicates).")


def older_savepoint(f):
    sp = {s["label"]: s for s in f["savepoints"]}
    lab = {v: k for k, v in f["job_labels"].items()}
    dup = "; ".join(f"{_n(d['ids'])} ids ({_n(d['min_id'])}–{_n(d['max_id'])}) written by jobs "
                    f"{' and '.join(sorted(lab.get(x, x[:8]) for x in d['jobs'].split('+')))}"
                    for d in f["rows_by_writer"]["duplicated_ids_by_job_set"])
    j3 = f["job_labels"]["3"]
    j3cps = next(j for j in f["jobs"] if j["job_id"] == j3)["checkpoints"]["completed_ids"]
    j3commits = [c for c in f["commits"] if c["flink_job_id"] == j3]
    first = j3commits[0]
    skipped = [i for i in j3cps if i < first["max_committed_checkpoint_id"]]
    fold = (f" Job 3 completed checkpoints {_span(j3cps)} but made no snapshot for {_span(skipped)}: its first commit, "
            f"at checkpoint {first['max_committed_checkpoint_id']}, added {_n(first['added_records'])} rows at once "
            f"(job 1 had already committed up to checkpoint {sp['B']['checkpoint_id']})." if skipped else "")
    through = {"icebergsink": "IcebergSink", "dynamic": "DynamicIcebergSink"}.get(f.get("sink", "flinksink"), "FlinkSink")
    return (f"Through {through} at parallelism {f.get('parallelism', 1)}: job 1 (bounded, {_n(f['bounded_rows'])} rows, {f['checkpoint_ms'] // 1000} s checkpoints) took savepoint A "
            f"without stopping (checkpoint {sp['A']['checkpoint_id']}) and was stopped with savepoint B (checkpoint "
            f"{sp['B']['checkpoint_id']}); job 2 resumed from B and was stopped with savepoint C (checkpoint "
            f"{sp['C']['checkpoint_id']}); job 3 resumed from the OLDER savepoint A and ran to the end. The table holds "
            f"{_n(f['at_end']['rows'])} rows for {_n(f['at_end']['distinct_ids'])} distinct ids: the replay from A "
            f"repeated {_n(f['at_end']['duplicates'])} rows — {dup}.{fold}")


def merge_append_long(f):
    j = f["jobs"][0]
    c = f["commits"]
    merges = f["merges"]
    mtxt = "; ".join(f"at checkpoint {m['max_committed_checkpoint_id']} the manifest list went from "
                     f"{m['manifests_before']} to {m['manifests_after']} manifests" for m in merges) or "no merge happened"
    return (f"A FlinkSink job with a checkpoint every second ({f['rows_per_second']} rows/s, unpartitioned) ran "
            f"until Flink had completed {j['checkpoints']['counts']['completed']} checkpoints and was cancelled. Each commit is a "
            f"merge append that adds one manifest; the table has {len(c)} snapshots and the manifest list of the last "
            f"holds {c[-1]['manifests_in_list']} manifests: {mtxt} (commit.manifest.min-count-to-merge defaults "
            f"to 100). {_left_out(f)}")


def _left_out(f):
    lo = f.get("export", {}).get("left_out")
    if not lo:
        return ""
    return (f"SeaweedFS's catalog left all {lo['on_store_at_end']} metadata.json versions on the store although "
            f"write.metadata.delete-after-commit.enabled was set (it only trims the metadata-log to 10); the fixture "
            f"holds the current version and the ones its metadata-log names, and leaves out the other "
            f"{len(lo['files'])}.")


def _sink_caption(f, label):
    j = f["jobs"][0]
    cs = f["commits"]
    empty = [c for c in cs if c["flink_job_id"] is None and c["added_records"] == 0]
    ids = [c["max_committed_checkpoint_id"] for c in cs if c["flink_job_id"] is not None]
    return (f"A bounded job of {_n(f['bounded_rows'])} rows at {f['rows_per_second']} rows/s with 5 s checkpoints, written "
            f"with Iceberg {f['versions']['iceberg']}'s {label}, ran to FINISHED. Flink completed checkpoints "
            f"{_span(_cps(j))}; the table has {len(cs)} snapshots"
            + (f", the first an empty append without flink.* keys committed before the first checkpoint (the sink "
               f"creating the branch main on the empty table), then {len(ids)} Flink commits" if empty else "")
            + f" whose flink.max-committed-checkpoint-id values are {', '.join(map(str, ids))}, and {_n(f['at_end']['rows'])} rows for {_n(f['at_end']['distinct_ids'])} ids. "
            + (f"The end-of-input commit carries {ids[-1]}, the id of the final checkpoint Flink took when the source "
               f"finished, where FlinkSink writes 9223372036854775807."
               if ids and ids[-1] != 9223372036854775807 and ids[-1] == _cps(j)[-1] else
               f"The last snapshot carries {ids[-1] if ids else 'nothing'}"
               + (f"; checkpoint {_span([i for i in _cps(j) if i not in ids])} completed without a snapshot."
                  if any(i not in ids for i in _cps(j)) else ".")))


def icebergsink_v2(f):
    return _sink_caption(f, "IcebergSink (the sink-v2 API)")


def dynamic_sink(f):
    return _sink_caption(f, "DynamicIcebergSink (every record routed to this one table)")


def flink_maintenance(f):
    cs = f["commits"]
    m = f["maintenance_commits"]
    ops = ", ".join(f"{x['operation']}" for x in m)
    gone = f["maintenance"][0]["deleted_by_kind"]
    ever = f.get("snapshots_ever", [])
    em = [x for x in ever if x["maintenance"]]
    etxt = (f" Over the run {len(ever)} snapshots were committed, {len(em)} of them maintenance replaces "
            f"(each rewriting {', '.join(sorted({x['summary'].get('deleted-data-files', '?') for x in em}))} data files "
            f"into {', '.join(sorted({x['summary'].get('added-data-files', '?') for x in em}))}); "
            f"{sum(1 for x in ever if x['expired_in'])} snapshots were expired in {len(f.get('expirations', []))} "
            f"metadata versions (the ExpireSnapshots runs)." if ever else "")
    return (f"An IcebergSink job (100 rows/s, 2 s checkpoints, day partitions) ran with Flink's in-job table maintenance "
            f"(RewriteDataFiles every 5 commits, ExpireSnapshots every 10 commits keeping 5) and was cancelled after "
            f"{f['jobs'][0]['duration_ms'] // 1000} s, having completed {f['jobs'][0]['checkpoints']['counts']['completed']} "
            f"checkpoints. The table keeps {len(cs)} snapshots, {len(m)} of them maintenance "
            f"commits with engine-name flink and no flink.* keys ({ops or 'none'}).{etxt} Expiry removed {gone['data']} "
            f"data and {gone['metadata']} metadata objects from the store while the job ran.")


def savepoint_resume(f):
    lab = f["job_labels"]
    kept = {k["label"]: k for k in f["kept"]}
    chk = next(k for k in f["kept"] if k["label"].startswith("chk-"))
    b_rows = sum(c["added_records"] for c in f["commits_before_expire"] if c["flink_job_id"] == lab["B"])
    return (f"A bounded FlinkSink job of {_n(f['bounded_rows'])} rows ({f['rows_per_second']} rows/s, {f['checkpoint_ms'] // 1000} s checkpoints), "
            f"job A {lab['A'][:8]}…, was stopped with savepoint S1 (checkpoint {kept['S1']['checkpoint_id']}). Job B {lab['B'][:8]}… "
            f"resumed from S1 and was stopped with savepoint S2 (checkpoint {kept['S2']['checkpoint_id']}; its retained checkpoint "
            f"{chk['checkpoint_id']} was copied just before). Job C {lab['C'][:8]}… resumed from S1 AGAIN and finished: the table then held "
            f"{_n(f['after_c']['rows'])} rows for {_n(f['after_c']['distinct_ids'])} ids ({_n(f['after_c']['duplicates'])} duplicates, "
            f"the {_n(b_rows)} rows B had added). Then expire_snapshots kept only the newest snapshot, so S1's and S2's jobs have no "
            f"snapshot left. The savepoint folders, as Flink wrote them, are in tests/savepoints/savepoint-resume/.")


def live_watch(f):
    lab = f["job_labels"]
    kill = next(e for e in f["timeline"] if e["event"] == "taskmanager-killed")
    start = next(e for e in f["timeline"] if e["event"] == "taskmanager-started")
    sp = {p["label"]: p for p in f["savepoints"]}
    sink = {"icebergsink": "IcebergSink (sink v2)", "dynamic": "DynamicIcebergSink"}.get(f.get("sink"), "FlinkSink")
    return (f"icescope watch followed {sink} jobs ({f['checkpoint_ms'] // 1000} s checkpoints) through the REST catalog, one look "
            f"every {f['watch']['every_ms'] // 1000} s. Job 1 {lab['1'][:8]}… took savepoint A (checkpoint {sp['A']['checkpoint_id']}) and ran "
            f"on; its only TaskManager was killed and another started {(start['t_ms'] - kill['t_ms']) / 1000:.0f} s later; it was stopped "
            f"with savepoint B (checkpoint {sp['B']['checkpoint_id']}). Job 2 {lab['2'][:8]}… resumed from B and was stopped with savepoint C "
            f"(checkpoint {sp['C']['checkpoint_id']}). Job 3 {lab['3'][:8]}… resumed from the OLDER savepoint A; Spark rewrote the data "
            f"files while it ran, and it was cancelled. The table then held {_n(f['at_end']['rows'])} rows for "
            f"{_n(f['at_end']['distinct_ids'])} ids ({_n(f['at_end']['duplicates'])} duplicates). What the watch printed is in "
            f"watch-events.jsonl.")


def live_browser(f):
    lab = f["job_labels"]
    kill = next(e for e in f["timeline"] if e["event"] == "taskmanager-killed")
    start = next(e for e in f["timeline"] if e["event"] == "taskmanager-started")
    sp = {p["label"]: p for p in f["savepoints"]}
    b = f["browser"]
    return (f"Headless Chromium had the app open on this table through icescope serve, the Live switch on (a look every "
            f"{b['every_s']} s), while a FlinkSink job ({f['checkpoint_ms'] // 1000} s checkpoints, {f['rows_per_second']} rows/s) "
            f"wrote it: job 1 {lab['1'][:8]}… lost its only TaskManager (another started {(start['t_ms'] - kill['t_ms']) / 1000:.0f} s "
            f"later) and was stopped with savepoint A (checkpoint {sp['A']['checkpoint_id']}); job 2 {lab['2'][:8]}… resumed from A "
            f"and was cancelled. The table then held {_n(f['at_end']['rows'])} rows in {len(f['commits'])} snapshots. The app looked "
            f"{_n(b['looks'])} times; what it showed after each look is in browser-looks.jsonl.")


def two_deployments(f):
    lab = f["job_labels"]
    sp = {s["label"]: s for s in f["savepoints"]}
    return (f"Two deployments of one job graph (one sink operator id), parallelism {f['parallelism']}: job 1 "
            f"{lab['1'][:8]}… took savepoint A (checkpoint {sp['A']['checkpoint_id']}) without stopping; job 2 "
            f"{lab['2'][:8]}… was submitted fresh beside it (no state) and cancelled without a savepoint; job 3 "
            f"{lab['3'][:8]}… was restored from job 1's older savepoint A while job 1 ran on, then job 1 was stopped "
            f"with savepoint B (checkpoint {sp['B']['checkpoint_id']}). The table then held {_n(f['at_end']['rows'])} rows, "
            f"{_n(f['at_end']['distinct_ids'])} distinct ids, in {len(f['commits'])} snapshots; icescope watch followed it "
            f"(watch-events.jsonl).")


CAPTIONS = {
    "append-stream": append_stream,
    "savepoint-twice": savepoint_twice,
    "late-data": late_data,
    "upsert-stream": upsert_stream,
    "schema-on-the-wire": schema_on_the_wire,
    "maintenance-live": maintenance_live,
    "taskmanager-kill": taskmanager_kill,
    "concurrent-writers": concurrent_writers,
    "v3-deletion-vectors": v3_deletion_vectors,
    "savepoint-no-stop": savepoint_no_stop,
    "older-savepoint": older_savepoint,
    "older-savepoint-icebergsink": older_savepoint,
    "older-savepoint-dynamic": older_savepoint,
    "two-deployments": two_deployments,
    "savepoint-resume": savepoint_resume,
    "live-watch": live_watch,
    "live-watch-icebergsink": live_watch,
    "live-watch-dynamic": live_watch,
    "live-browser": live_browser,
    "merge-append-long": merge_append_long,
    "icebergsink-v2": icebergsink_v2,
    "dynamic-sink": dynamic_sink,
    "flink-maintenance": flink_maintenance,
}

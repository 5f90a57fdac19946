#!/usr/bin/env python3
"""The real-writer lab: Flink, Spark and SeaweedFS reproduce the streaming scenarios and every
resulting table is exported to tests/fixtures/<scenario>/ with the engines' own facts.

    bash tests/lab/run_lab.sh [scenario ...]       # the entry point (sets up the venv and the jars)

Each scenario creates its own table in one SeaweedFS (S3 + Iceberg REST catalog), drives one or more
Flink jobs on a standalone Flink cluster (one JobManager process, one TaskManager process) and, where
the scenario says so, Spark's maintenance procedures. Every number in facts.json is read from Flink's
REST API, from a Spark query or from a listing of the store; caption.md is written from facts.json.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import labkit as K  # noqa: E402
from labkit import log  # noqa: E402

DAY_MS = 86_400_000


def today_ms() -> int:
    return int(datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0).timestamp() * 1000)


class Scenario:
    def __init__(self, name: str, kind: str = "append", props: dict | None = None, partition: str | None = None):
        self.name = name
        self.table_name = name.replace("-", "_")
        self.ident = f"{K.NAMESPACE}.{self.table_name}"
        self.t = f"lab.{self.ident}"
        self.kind = kind
        self.facts: dict = {
            "scenario": name,
            "generated_by": "tests/lab/run_lab.sh",
            "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "catalog": dict(K.CATALOG),
            "table": self.ident,
            "jobs": [],
            "timeline": [],
        }
        self.t0 = K.now_ms()
        # The timeline's t_ms count from here: its events' wall-clock times are t0_ms + t_ms.
        self.facts["t0_ms"] = self.t0
        created = K.labjob("create", f"table={self.ident}", f"kind={kind}",
                           *([f"partition={partition}"] if partition else []),
                           *[f"prop.{k}={v}" for k, v in (props or {}).items()])
        self.location = created["location"]
        self.facts["location"] = self.location
        self.facts["created"] = {**created, "at_ms": K.now_ms(), "properties": props or {}}
        log(f"[{name}] table {self.ident} at {self.location}")

    def submit(self, raw: list[str] | None = None, cli: list[str] | None = None, **kw) -> str:
        """Submits LabJob through a remote environment, or, with `cli` (the run options, e.g.
        ["-s", path, "--allowNonRestoredState"]), through Flink's CLI (`flink run`, labkit.flink_run)."""
        return self.submit_full(raw, cli, **kw)["job_id"]

    def submit_full(self, raw: list[str] | None = None, cli: list[str] | None = None, **kw) -> dict:
        args = [f"table={self.ident}", f"kind={kw.pop('kind', self.kind)}", f"name={kw.pop('name', self.name)}"]
        args += [f"{k.replace('_', '-')}={v}" for k, v in kw.items()] + list(raw or [])
        r = K.labjob("submit", *args) if cli is None else K.flink_run(cli, "submit", *args)
        log(f"[{self.name}] submitted job {r['job_id']}", "(restore " + r["restore"] + ")" if r.get("restore") else "",
            "with " + " ".join(r["flink_run"][:6]) + " …" if r.get("flink_run") else "")
        self.mark("submitted", job_id=r["job_id"], restore=r.get("restore"),
                  **({"flink_run": r["flink_run"]} if r.get("flink_run") else {}))
        return r

    def mark(self, event: str, **kw):
        e = {"t_ms": K.now_ms() - self.t0, "event": event, **kw}
        self.facts["timeline"].append(e)
        return e

    def sample(self, job: str | None = None, with_rows=False, **kw) -> dict:
        s = {"store": K.store_census(self.location)}
        if job:
            s["job_state"] = K.job_state(job)
            s["checkpoints"] = K.checkpoint_counts(job)
            s["source_records_emitted"] = K.source_records(job)
        if with_rows:
            s["table_rows"] = K.sql(f"SELECT count(*) AS n FROM {self.t}")[0]["n"]
            s["snapshots"] = K.sql(f"SELECT count(*) AS n FROM {self.t}.snapshots")[0]["n"]
        return self.mark("sample", **s, **kw)

    def job(self, job_id: str, **extra):
        f = K.job_facts(job_id)
        f.update(extra)
        self.facts["jobs"].append(f)
        return f

    def finish(self, caption, key: str = "id", after_export=None):
        tf = K.table_facts(self.t, key)
        self.facts["final_table"] = tf
        refs = K.referenced_files(self.t)
        prefix = self.location.rstrip("/") + "/"
        on_store = [o for o in K.list_objects(self.location.split(f"s3://{K.BUCKET}/", 1)[1].rstrip("/") + "/data/")]
        orphans = sorted(f"s3://{K.BUCKET}/{o['key']}" for o in on_store if f"s3://{K.BUCKET}/{o['key']}" not in refs)
        self.facts["store"] = {
            "census": K.store_census(self.location),
            "data_and_delete_files_on_store": len(on_store),
            "referenced_by_any_snapshot": len(refs),
            "orphans": [o[len(prefix):] for o in orphans],
        }
        self.facts["versions"] = dict(K.VERSIONS)
        dest = K.FIXTURES / self.name
        self.facts["export"] = K.export_table(self.location, dest)
        if after_export:
            after_export(dest)
        self.facts["elapsed_ms"] = K.now_ms() - self.t0
        (dest / "facts.json").write_text(json.dumps(self.facts, indent=1, sort_keys=False, default=str) + "\n")
        (dest / "caption.md").write_text(caption(self.facts).strip() + "\n")
        log(f"[{self.name}] exported {self.facts['export']['objects']} objects, {self.facts['export']['bytes']} bytes")



class SavepointKeeper:
    """Keeps every savepoint a scenario takes as Flink wrote it, in tests/savepoints/<scenario>/<label>/,
    with flink.json (Flink's REST record of each savepoint's checkpoint: job, checkpoint id, path, trigger
    and ack times; each job's vertices; `resumes[].table_before`, the table's metadata file just before
    each resume) and flink-reader.json (Flink's own reader of them)."""

    def __init__(self, s: Scenario):
        self.s = s
        self.out = K.REPO / "tests" / "savepoints" / s.name
        if self.out.exists():
            shutil.rmtree(self.out)
        self.out.mkdir(parents=True)
        self.kept: list[dict] = []

    def keep(self, sp: dict):
        """The savepoint folder as Flink wrote it, and Flink's REST record of its checkpoint."""
        shutil.copytree(Path(sp["savepoint_path"].split("file:", 1)[-1]), self.out / sp["label"])
        self.kept.append({**sp, "folder": sp["label"], **checkpoint_record(sp["job_id"], sp["checkpoint_id"])})

    def table_now(self, catalog_only: bool = False) -> dict:
        """The table as a job resumed now finds it: the current metadata file (by Spark's metadata log and by
        the catalog's own loadTable answer) and snapshot. Metadata only, so that the resume is not held up.
        `catalog_only`: from the catalog's loadTable answer alone (one REST call, no Spark query: Spark's
        first queries of a run take seconds, and a stopped job that stays quiet long enough is a stall)."""
        if catalog_only:
            t = K.catalog_table(self.s.ident)
            return {"metadata_file": t["metadata-location"].rsplit("/", 1)[-1],
                    "catalog_metadata_location": t["metadata-location"],
                    "snapshot_id": t["metadata"].get("current-snapshot-id"), "source": "REST catalog loadTable"}
        return {"metadata_file": metadata_now(self.s.t),
                "catalog_metadata_location": K.catalog_table(self.s.ident).get("metadata-location"),
                "snapshot_id": K.current_snapshot(self.s.t)}

    def write(self, **extra):
        """flink.json (facts' job_labels and resumes, every job's vertices) and Flink's reader; facts.kept."""
        s = self.s
        s.facts["kept"] = self.kept
        (self.out / "flink.json").write_text(json.dumps({
            "scenario": s.name, "generated_by": "tests/lab/run_lab.sh", **extra, "table": s.ident,
            "fixture": f"tests/fixtures/{s.name}", "kept": self.kept, "job_labels": s.facts["job_labels"],
            "resumes": s.facts["resumes"],
            "vertices": {j["job_id"]: j.get("vertices") for j in s.facts["jobs"]}}, indent=1, default=str) + "\n")
        flink_reader(self.out)


def wait_checkpoints(job: str, n: int, timeout=300):
    K.wait_for(f"{n} completed checkpoints", lambda: K.checkpoint_counts(job)["completed"] >= n, timeout=timeout)


def call_recorded(proc: str, args: str, tries: int = 2):
    """A Spark procedure call under a live writer: a failure is a fact, recorded, then tried once more."""
    attempts = []
    for _ in range(tries):
        t0 = K.now_ms()
        try:
            res = K.call(proc, args)
            attempts.append({"started_ms": t0, "ms": K.now_ms() - t0, "ok": True})
            return res, attempts
        except Exception as e:  # noqa: BLE001 (Py4JJavaError carries the Java exception)
            msg = str(e)
            java = next((ln.strip(": ") for ln in msg.splitlines() if "Exception" in ln and "py4j" not in ln), msg[:300])
            attempts.append({"started_ms": t0, "ms": K.now_ms() - t0, "ok": False, "error": java[:500]})
            log(f"{proc} failed: {java[:200]}")
    return None, attempts


def flink_job_ids(tf: dict) -> list[str]:
    return list(tf["flink_jobs_in_snapshot_log"])


# ---------------------------------------------------------------- scenarios

def append_stream():
    s = Scenario("append-stream")
    dur = int(os.environ.get("LAB_APPEND_SECONDS", "60"))
    job = s.submit(rate=200, checkpoint_ms=5000, base_day_ms=today_ms())
    K.wait_running(job)
    t_run = time.time()
    for t in range(15, dur + 1, 15):
        time.sleep(max(0.0, t_run + t - time.time()))
        s.sample(job, at_s=t)
    K.cancel_job(job)
    s.mark("canceled", job_id=job)
    s.job(job, stopped_by="cancel (REST PATCH /jobs/:id?mode=cancel)")
    s.finish(CAPTIONS["append-stream"])


def savepoint_twice():
    """Job A stopped with savepoint A at about a quarter; job B resumes from A to FINISHED; job C resumes
    from A AGAIN to FINISHED. Savepoint A is kept as Flink wrote it (SavepointKeeper), with the table's
    metadata file just before each resume."""
    s = Scenario("savepoint-twice")
    keeper = SavepointKeeper(s)
    # Spark's first queries of a run take seconds (tens on a busy machine): asked here, on the empty
    # table, and not between A's stop and B's start, so that job B resumes within seconds of the
    # stop, as in a full run (where earlier scenarios have warmed Spark), and job A is not a stall.
    K.sql(f"SELECT count(*) AS n FROM {s.t}")
    K.current_snapshot(s.t)
    rows = int(os.environ.get("LAB_SAVEPOINT_ROWS", "100000"))
    rate = int(os.environ.get("LAB_SAVEPOINT_RATE", "2000"))
    base = today_ms()
    a = s.submit(rows=rows, rate=rate, checkpoint_ms=5000, base_day_ms=base, name="savepoint-twice A")
    K.wait_running(a)
    # a quarter of the way through, by the clock (the REST metric of the running source lags)
    time.sleep(max(1.0, rows / rate / 4 - 3))  # a savepoint takes a few seconds to complete
    s.facts["bounded_rows"], s.facts["rows_per_second"] = rows, rate
    s.sample(a, with_rows=False, note="stop-with-savepoint requested")
    sp = K.stop_with_savepoint(a)
    s.facts["savepoint"] = sp
    s.mark("stopped-with-savepoint", job_id=a, **sp)
    s.job(a, stopped_by="stop-with-savepoint (REST POST /jobs/:id/stop, drain false)", vertices=vertices(a))
    spa = {"label": "A", "job_id": a, **sp}
    keeper.keep(spa)
    before_b = keeper.table_now(catalog_only=True)  # job B follows within seconds, as it did before A was kept
    s.facts["after_stop"] = {"rows": K.sql(f"SELECT count(*) AS n FROM {s.t}")[0]["n"],
                             "snapshot_id": K.current_snapshot(s.t)}

    b = s.submit(rows=rows, rate=rate, checkpoint_ms=5000, base_day_ms=base, restore=sp["savepoint_path"],
                 name="savepoint-twice B (resume)")
    K.wait_job(b, ("FINISHED",), timeout=900)
    s.job(b, restored_from=sp["savepoint_path"], vertices=vertices(b))
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["after_first_resume"] = {"rows": r["n"], "distinct_ids": r["k"], "snapshot_id": K.current_snapshot(s.t)}
    s.mark("first-resume-finished", job_id=b, **s.facts["after_first_resume"])

    before_c = keeper.table_now(catalog_only=True)
    c = s.submit(rows=rows, rate=rate, checkpoint_ms=5000, base_day_ms=base, restore=sp["savepoint_path"],
                 name="savepoint-twice C (resume again, same savepoint)")
    K.wait_job(c, ("FINISHED",), timeout=900)
    s.job(c, restored_from=sp["savepoint_path"], vertices=vertices(c))
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["after_second_resume"] = {"rows": r["n"], "distinct_ids": r["k"], "duplicates": r["n"] - r["k"],
                                      "snapshot_id": K.current_snapshot(s.t)}
    s.mark("second-resume-finished", job_id=c, **s.facts["after_second_resume"])
    s.facts["savepoints"] = [spa]
    s.facts["job_labels"] = {"A": a, "B": b, "C": c}
    s.facts["resumes"] = [{"job_id": b, "from": "A", "table_before": before_b},
                          {"job_id": c, "from": "A", "table_before": before_c}]
    s.facts["commits"] = flink_commits(s.t)
    keeper.write()
    s.finish(CAPTIONS["savepoint-twice"])


def late_data():
    s = Scenario("late-data")
    base = today_ms()
    job = s.submit(rows=6, rate=1, checkpoint_ms=2000, base_day_ms=base, kind="late")
    K.wait_job(job, ("FINISHED",), timeout=300)
    s.job(job)
    before = K.sql(f"SELECT partition, count(*) AS files, sum(record_count) AS records FROM {s.t}.files "
                   f"GROUP BY partition ORDER BY 1")
    month_start = datetime.fromtimestamp(base / 1000, timezone.utc).replace(day=1).strftime("%Y-%m-%d")
    snap0 = K.current_snapshot(s.t)
    res = K.call("rewrite_data_files", f"table => '{s.ident}', where => 'ts >= TIMESTAMP \"{month_start} 00:00:00\"'")
    s.facts["compaction_scoped_to_month"] = {
        "call": f"CALL lab.system.rewrite_data_files(table => '{s.ident}', where => 'ts >= TIMESTAMP \"{month_start} 00:00:00\"')",
        "result": res, "snapshot_before": snap0, "snapshot_after": K.current_snapshot(s.t),
        "files_by_partition_before": K._j(before),
    }
    s.finish(CAPTIONS["late-data"])


def upsert_stream():
    s = Scenario("upsert-stream", kind="upsert", props={"write.upsert.enabled": "true"})
    dur = int(os.environ.get("LAB_UPSERT_SECONDS", "60"))
    job = s.submit(rate=500, checkpoint_ms=5000, keys=1000, base_day_ms=today_ms())
    K.wait_running(job)
    t_run = time.time()
    for t in range(30, dur + 1, 30):
        time.sleep(max(0.0, t_run + t - time.time()))
        by = K.sql(f"SELECT content, count(*) AS files, sum(record_count) AS records FROM {s.t}.files GROUP BY content")
        s.sample(job, at_s=t, files_by_content=K._j(by))
    K.cancel_job(job)
    s.job(job, stopped_by="cancel")
    t0 = time.time()
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["before_maintenance"] = {"rows": r["n"], "distinct_ids": r["k"], "query_ms": int((time.time() - t0) * 1000),
                                     "files_by_content": K._j(K.sql(f"SELECT content, count(*) AS files, sum(record_count) AS records FROM {s.t}.files GROUP BY content ORDER BY 1"))}
    m = []
    for proc, args in (("rewrite_position_delete_files", f"table => '{s.ident}'"),
                       ("rewrite_data_files", f"table => '{s.ident}', options => map('delete-file-threshold', '1')")):
        b = K.current_snapshot(s.t)
        res = K.call(proc, args)
        a = K.current_snapshot(s.t)
        t0 = time.time()
        r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
        m.append({"call": f"CALL lab.system.{proc}({args})", "result": res, "snapshot_before": b, "snapshot_after": a,
                  "rows_after": r["n"], "distinct_ids_after": r["k"], "count_query_ms": int((time.time() - t0) * 1000),
                  "files_by_content_after": K._j(K.sql(f"SELECT content, count(*) AS files, sum(record_count) AS records FROM {s.t}.files GROUP BY content ORDER BY 1"))})
        s.mark(proc, snapshot_before=b, snapshot_after=a)
    s.facts["maintenance"] = m
    s.finish(CAPTIONS["upsert-stream"])


def schema_on_the_wire():
    s = Scenario("schema-on-the-wire")
    job = s.submit(rate=200, checkpoint_ms=5000, base_day_ms=today_ms())
    K.wait_running(job)
    wait_checkpoints(job, 3)
    changes = []

    def change(what: str, stmts: list[str], settle_s: int):
        sid0, snaps0 = K.current_schema_id(s.ident), K.sql(f"SELECT count(*) AS n FROM {s.t}.snapshots")[0]["n"]
        cp0 = K.checkpoint_counts(job)
        at = K.now_ms()
        for q in stmts:
            K.sql(q)
        sid1 = K.current_schema_id(s.ident)
        s.mark(what, schema_id_before=sid0, schema_id_after=sid1)
        time.sleep(settle_s)
        snaps1 = K.sql(f"SELECT count(*) AS n FROM {s.t}.snapshots")[0]["n"]
        jf = K.rest("GET", f"/jobs/{job}")
        exc = K.rest("GET", f"/jobs/{job}/exceptions")
        desc = []
        for c in K.sql(f"DESCRIBE TABLE {s.t}"):
            if not c["col_name"] or c["col_name"].startswith("#"):
                break
            desc.append(c["col_name"])
        changes.append({"change": what, "statements": stmts, "at_ms": at,
                        "schema_id_before": sid0, "schema_id_after": sid1,
                        "schema_id_source": "REST catalog loadTable metadata current-schema-id",
                        "snapshots_before": snaps0, "snapshots_after_settle": snaps1, "settle_s": settle_s,
                        "checkpoints_before": cp0, "checkpoints_after_settle": K.checkpoint_counts(job),
                        "job_state_after_settle": jf["state"],
                        "job_exceptions_after_settle": len(exc.get("exceptionHistory", {}).get("entries", [])),
                        "columns_after": desc})

    change("add-column", [f"ALTER TABLE {s.t} ADD COLUMN extra INT",
                          f"INSERT INTO {s.t} (id, ts, kind, amount, note, extra) VALUES "
                          f"(-1, current_timestamp(), 'spark', 0.0, 'spark insert', 1)"], 20)
    change("drop-column", [f"ALTER TABLE {s.t} DROP COLUMN note"], 20)
    s.facts["schema_changes"] = changes
    K.cancel_job(job)
    s.job(job, stopped_by="cancel")
    s.facts["extra_column"] = K.sql(f"SELECT count_if(extra IS NULL) AS null_extra, count_if(extra IS NOT NULL) AS "
                                    f"not_null_extra FROM {s.t}")[0]
    added = K.sql(f"SELECT e.snapshot_id, e.data_file.file_path AS path, s.committed_at, s.summary['engine-name'] AS engine "
                  f"FROM {s.t}.entries e JOIN {s.t}.snapshots s ON e.snapshot_id = s.snapshot_id "
                  f"WHERE e.status = 1 AND e.data_file.content = 0")
    def columns_in_files(dest: Path):
        # which columns the files themselves carry: DuckDB reads each exported Parquet footer
        import duckdb
        drop_at = changes[1]["at_ms"]
        prefix = s.location.rstrip("/") + "/"
        files = []
        for r in added:
            local = dest / r["path"][len(prefix):]
            cols = [c[0] for c in duckdb.sql(f"SELECT name FROM parquet_schema('{local}') "
                                                 f"WHERE coalesce(num_children, 0) = 0").fetchall()]
            files.append({"path": r["path"][len(prefix):], "snapshot_id": r["snapshot_id"], "engine": r["engine"],
                          "committed_after_drop": r["committed_at"].replace(tzinfo=timezone.utc).timestamp() * 1000 > drop_at,
                          "parquet_columns": cols})
        s.facts["data_file_columns"] = {
            "read_with": f"DuckDB {duckdb.__version__} parquet_schema() on the exported files",
            "files_committed_after_drop": sum(f["committed_after_drop"] for f in files),
            "of_which_still_carry_note": sum(f["committed_after_drop"] and "note" in f["parquet_columns"] for f in files),
            "files": sorted(files, key=lambda f: f["path"]),
        }
    s.finish(CAPTIONS["schema-on-the-wire"], after_export=columns_in_files)


def maintenance_live():
    # hot-class retention: expire_snapshots with no arguments keeps 5 snapshots younger than 20 s
    s = Scenario("maintenance-live", props={"history.expire.max-snapshot-age-ms": "20000",
                                            "history.expire.min-snapshots-to-keep": "5"})
    job = s.submit(rate=200, checkpoint_ms=5000, base_day_ms=today_ms())
    K.wait_running(job)
    wait_checkpoints(job, int(os.environ.get("LAB_MAINT_CHECKPOINTS", "9")))
    s.sample(job, note="before maintenance")
    m = []
    for proc, args in (("rewrite_data_files", f"table => '{s.ident}', options => map('partial-progress.enabled', 'true')"),
                       ("expire_snapshots", f"table => '{s.ident}'"),
                       ("rewrite_manifests", f"table => '{s.ident}'")):
        b = K.current_snapshot(s.t)
        census_b = K.store_census(s.location)
        prefix = s.location.split(f"s3://{K.BUCKET}/", 1)[1].rstrip("/") + "/"
        keys_b = {o["key"] for o in K.list_objects(prefix)}
        res, attempts = call_recorded(proc, args)
        a = K.current_snapshot(s.t)
        keys_a = {o["key"] for o in K.list_objects(prefix)}
        m.append({"call": f"CALL lab.system.{proc}({args})", "result": res, "attempts": attempts,
                  "snapshot_before": b, "snapshot_after": a,
                  "deleted_objects": sorted(k[len(prefix):] for k in keys_b - keys_a),
                  "store_before": census_b, "store_after": K.store_census(s.location),
                  "job_state": K.job_state(job), "checkpoints": K.checkpoint_counts(job)})
        s.mark(proc, snapshot_before=b, snapshot_after=a)
    s.facts["maintenance"] = m
    time.sleep(12)
    s.facts["after_maintenance_plus_12s"] = s.sample(job, with_rows=True, note="maintenance + 12 s")
    K.cancel_job(job)
    s.job(job, stopped_by="cancel")
    s.finish(CAPTIONS["maintenance-live"])


def taskmanager_kill():
    s = Scenario("taskmanager-kill")
    rows = int(os.environ.get("LAB_TMKILL_ROWS", "200000"))
    rate = int(os.environ.get("LAB_TMKILL_RATE", "2000"))
    s.facts["bounded_rows"], s.facts["rows_per_second"] = rows, rate
    job = s.submit(rows=rows, rate=rate, checkpoint_ms=5000, base_day_ms=today_ms())
    K.wait_running(job)
    t_run = time.time()
    time.sleep(max(0.0, t_run + 28 - time.time()))
    s.facts["at_kill"] = s.sample(job, with_rows=True, note="about to kill the only TaskManager")
    # S3FileIO stages a data file locally and uploads it when the writer closes it at a checkpoint
    # barrier, so a kill between checkpoints leaves nothing on the store. The kill therefore waits
    # for a checkpoint to be in flight (files flushed, not yet committed) and lands inside it.
    # Signal: new data files appear under data/ (the writer flushed them for checkpoint N+1),
    # watched by listing the store every few ms; the kill follows at once.
    data_prefix = s.location.split(f"s3://{K.BUCKET}/", 1)[1].rstrip("/") + "/data/"
    done = K.checkpoint_counts(job)["completed"]
    K.wait_for("the next completed checkpoint", lambda: K.checkpoint_counts(job)["completed"] > done, timeout=30, every=0.2)
    time.sleep(0.5)
    n0 = len(K.list_objects(data_prefix))
    K.wait_for("data files of the next checkpoint on the store", lambda: len(K.list_objects(data_prefix)) > n0,
               timeout=30, every=0.005)
    tm = TM["name"]
    pid = K._procs[tm].pid
    K.kill(tm, signal.SIGKILL)
    s.mark("taskmanager-killed", process=tm, pid=pid, signal="SIGKILL", data_files_on_store_before_flush=n0,
           data_files_on_store_at_kill=len(K.list_objects(data_prefix)))
    time.sleep(8)
    s.sample(job, note="8 s after the kill")
    TM["name"] = K.start_taskmanager()
    s.mark("taskmanager-started", process=TM["name"], pid=K._procs[TM["name"]].pid)
    K.wait_job(job, ("FINISHED",), timeout=900)
    s.job(job, killed_taskmanager_pid=pid)
    s.finish(CAPTIONS["taskmanager-kill"])


def concurrent_writers():
    # Two deployments of the same job, each submitted on its own: neither is restored from a savepoint
    # or checkpoint and they share no state. Both read the same bounded id range and write it into the
    # same day-partitioned table at the same time, so their commits interleave.
    from concurrent.futures import ThreadPoolExecutor
    s = Scenario("concurrent-writers")
    rows = int(os.environ.get("LAB_CONCURRENT_ROWS", "15000"))
    rate = int(os.environ.get("LAB_CONCURRENT_RATE", "500"))
    base = today_ms()
    s.facts["bounded_rows"], s.facts["rows_per_second"] = rows, rate
    kw = dict(rows=rows, rate=rate, checkpoint_ms=5000, base_day_ms=base)
    with ThreadPoolExecutor(2) as ex:  # submitted at the same moment, two client processes
        fa = ex.submit(s.submit, name="concurrent-writers A", **kw)
        fb = ex.submit(s.submit, name="concurrent-writers B", **kw)
        a, b = fa.result(), fb.result()
    K.wait_running(a)
    K.wait_running(b)
    t_run = time.time()

    def sample(**extra):
        jobs = {j: {"job_state": K.job_state(j), "checkpoints": K.checkpoint_counts(j),
                    "source_records_emitted": K.source_records(j)} for j in (a, b)}
        snaps = K.sql(f"SELECT summary['flink.job-id'] AS job, count(*) AS n FROM {s.t}.snapshots GROUP BY 1")
        return s.mark("sample", store=K.store_census(s.location), jobs=jobs,
                      table_rows=K.sql(f"SELECT count(*) AS n FROM {s.t}")[0]["n"],
                      snapshots_by_job={r["job"]: r["n"] for r in snaps}, **extra)

    at = 15
    while not all(K.job_state(j) in ("FINISHED", "FAILED", "CANCELED") for j in (a, b)):
        if time.time() >= t_run + at:
            sample(at_s=at)
            at += 15
        time.sleep(1.0)
    for j in (a, b):
        K.wait_job(j, ("FINISHED",), timeout=60)
        s.mark("finished", job_id=j)
        s.job(j, started_from="nothing (a fresh submission: no savepoint, no checkpoint, no shared state)")
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["after_both_finished"] = {"rows": r["n"], "distinct_ids": r["k"], "duplicates": r["n"] - r["k"],
                                      "snapshot_id": K.current_snapshot(s.t)}
    # the order in which the two job ids committed, as the snapshots table lists them
    seq = K.sql(f"SELECT committed_at, summary['flink.job-id'] AS job FROM {s.t}.snapshots ORDER BY committed_at")
    label = {a: "A", b: "B"}
    order = "".join(label.get(x["job"], "?") for x in seq)
    span = {j: (min(x["committed_at"] for x in seq if x["job"] == j), max(x["committed_at"] for x in seq if x["job"] == j))
            for j in (a, b) if any(x["job"] == j for x in seq)}
    overlap_ms = None
    if len(span) == 2:
        lo, hi = max(v[0] for v in span.values()), min(v[1] for v in span.values())
        overlap_ms = int((hi - lo).total_seconds() * 1000)
    s.facts["interleaving"] = {
        "labels": {"A": a, "B": b},
        "commit_order": order,
        "switches": sum(1 for x, y in zip(order, order[1:]) if x != y),
        "commit_ranges_overlap_ms": overlap_ms,
        "source": "Spark: SELECT committed_at, summary['flink.job-id'] FROM <table>.snapshots ORDER BY committed_at",
    }
    s.mark("interleaving", commit_order=order)
    s.finish(CAPTIONS["concurrent-writers"])


def v3_deletion_vectors():
    """Format v3, merge-on-read: Spark's DELETE, UPDATE and MERGE write deletion vectors (position
    deletes as Roaring bitmaps, blobs in Puffin files). Spark only, in a local Hadoop catalog (a
    warehouse folder under work/): SeaweedFS refuses the Puffin writer's existence check."""
    import shutil
    name = "v3-deletion-vectors"
    t0 = K.now_ms()
    ns, table = K.NAMESPACE, name.replace("-", "_")
    t = f"{K.HADOOP_CATALOG}.{ns}.{table}"
    shutil.rmtree(K.HADOOP_WAREHOUSE, ignore_errors=True)  # a run starts from an empty warehouse
    K.HADOOP_WAREHOUSE.mkdir(parents=True)
    props = {"format-version": "3", "write.delete.mode": "merge-on-read", "write.update.mode": "merge-on-read",
             "write.merge.mode": "merge-on-read"}
    facts: dict = {
        "scenario": name,
        "generated_by": "tests/lab/run_lab.sh",
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "catalog": {"kind": "hadoop", "name": K.HADOOP_CATALOG, "warehouse": K.HADOOP_WAREHOUSE.as_uri(),
                    "why": "SeaweedFS refuses the Puffin writer's existence check, so this table lives in a "
                           "local Hadoop catalog (no server)"},
        "table": f"{ns}.{table}",
        "jobs": [],
        "timeline": [],
    }

    def mark(event: str, **kw):
        facts["timeline"].append({"t_ms": K.now_ms() - t0, "event": event, **kw})

    # fixed dates, so every run writes the same rows: 2026-11-01 .. 2026-11-03 (UTC)
    base = int(datetime(2026, 11, 1, tzinfo=timezone.utc).timestamp())
    create = (f"CREATE TABLE {t} (id BIGINT, ts TIMESTAMP, kind STRING, amount DOUBLE) USING iceberg "
              f"PARTITIONED BY (days(ts)) TBLPROPERTIES ("
              + ", ".join(f"'{k}'='{v}'" for k, v in props.items()) + ")")
    K.sql(f"CREATE NAMESPACE IF NOT EXISTS {K.HADOOP_CATALOG}.{ns}")
    K.sql(create)
    loc = next(r["data_type"] for r in K.sql(f"DESCRIBE TABLE EXTENDED {t}") if r["col_name"] == "Location")
    facts["location"] = loc
    facts["path_spelling"] = ("the metadata's location is file:///… as configured; manifest lists, manifests, data "
                              "and Puffin paths are written file:/… (Hadoop Path), the same folder")
    facts["created"] = {"statement": create, "at_ms": K.now_ms(), "properties": props}
    log(f"[{name}] table {t} at {loc}")

    def rows_of(lo: int, hi: int) -> str:
        # id, a timestamp on one of three days (id % 3), a kind, an amount: all from the id
        return (f"SELECT id, timestamp_seconds({base} + (id % 3) * 86400 + id) AS ts, "
                f"element_at(array('click', 'view', 'buy', 'refund'), CAST(id % 4 AS INT) + 1) AS kind, "
                f"CAST(id * 37 % 10000 AS DOUBLE) / 100 AS amount FROM range({lo}, {hi})")

    steps = [
        ("insert batch 1", f"INSERT INTO {t} {rows_of(0, 10000)}"),
        ("insert batch 2", f"INSERT INTO {t} {rows_of(10000, 20000)}"),
        ("insert batch 3", f"INSERT INTO {t} {rows_of(20000, 30000)}"),
        ("delete", f"DELETE FROM {t} WHERE id % 7 = 0 AND id < 20000"),
        ("update", f"UPDATE {t} SET amount = amount * 2, kind = 'updated' WHERE id BETWEEN 20000 AND 20999"),
        ("merge", f"MERGE INTO {t} AS x USING ({rows_of(29500, 30500)}) AS s ON x.id = s.id "
                  f"WHEN MATCHED AND s.id % 2 = 0 THEN UPDATE SET x.amount = -s.amount, x.kind = 'merged' "
                  f"WHEN MATCHED THEN DELETE "
                  f"WHEN NOT MATCHED THEN INSERT *"),
        ("delete again (files that already have a vector)", f"DELETE FROM {t} WHERE id % 7 = 3 AND id < 10000"),
    ]
    done = []
    for what, q in steps:
        b = K.sql(f"SELECT snapshot_id FROM {t}.snapshots ORDER BY committed_at DESC LIMIT 1")
        ts0 = K.now_ms()
        K.sql(q)
        ms = K.now_ms() - ts0
        after = K.sql(f"SELECT snapshot_id, operation, summary FROM {t}.snapshots ORDER BY committed_at DESC LIMIT 1")[0]
        n = K.sql(f"SELECT count(*) AS n FROM {t}")[0]["n"]
        dv = K.sql(f"SELECT count(*) AS n, count(DISTINCT file_path) AS puffins, coalesce(sum(record_count), 0) AS card "
                   f"FROM {t}.delete_files")[0]
        done.append({"step": what, "statement": q, "ms": ms, "snapshot_before": b[0]["snapshot_id"] if b else None,
                     "snapshot_after": after["snapshot_id"], "operation": after["operation"],
                     "rows_after": n, "live_delete_files_after": dv["n"], "puffin_files_after": dv["puffins"],
                     "delete_cardinality_after": dv["card"]})
        mark(what, snapshot_id=after["snapshot_id"], operation=after["operation"], rows=n)
        log(f"[{name}] {what}: snapshot {after['snapshot_id']} {after['operation']}, {n} rows, "
            f"{dv['n']} delete files in {dv['puffins']} files")
    facts["steps"] = done

    # what Spark reports about the finished table
    tf = K.table_facts(t)
    for sn in tf["snapshots"]:
        sn["rows_at_snapshot"] = K.sql(f"SELECT count(*) AS n FROM {t} VERSION AS OF {sn['snapshot_id']}")[0]["n"]
    facts["final_table"] = tf
    cnt = tf["rows"]
    by = K.sql(f"SELECT content, file_format, count(*) AS files, count(DISTINCT file_path) AS distinct_paths, "
               f"sum(record_count) AS records, sum(file_size_in_bytes) AS bytes FROM {t}.files GROUP BY 1, 2 ORDER BY 1, 2")
    data = K.sql(f"SELECT file_path, partition, record_count, file_size_in_bytes FROM {t}.data_files ORDER BY file_path")
    dvs = K.sql(f"SELECT file_path, file_format, referenced_data_file, content_offset, content_size_in_bytes, "
                f"record_count, file_size_in_bytes FROM {t}.delete_files ORDER BY file_path, content_offset")
    pos_deletes = K.sql(f"SELECT count(*) AS n FROM {t}.position_deletes")[0]["n"]
    entries = K.sql(f"SELECT status, data_file.content AS content, data_file.file_format AS format, count(*) AS n "
                    f"FROM {t}.entries GROUP BY 1, 2, 3 ORDER BY 1, 2, 3")
    all_entries = K.sql(f"SELECT status, data_file.content AS content, data_file.file_format AS format, count(*) AS n "
                        f"FROM {t}.all_entries GROUP BY 1, 2, 3 ORDER BY 1, 2, 3")
    all_del = K.sql(f"SELECT count(*) AS entries, count(DISTINCT file_path, content_offset) AS vectors, "
                    f"count(DISTINCT file_path) AS puffin_files, sum(record_count) AS records "
                    f"FROM {t}.all_delete_files")[0]
    # The Hadoop catalog keeps the location as configured (file:///…) but writes every path inside the
    # metadata through Hadoop's Path, which spells it file:/… ; both name the same folder.
    def same(p: str) -> str:
        return "file:/" + p[len("file:///"):] if p.startswith("file:///") else p
    pfx = same(loc).rstrip("/") + "/"

    def rel(p):
        return same(p)[len(pfx):] if p and same(p).startswith(pfx) else p
    live_data_files = sum(r["files"] for r in by if r["content"] == 0)
    data_records = sum(r["records"] for r in by if r["content"] == 0)
    live_dvs = [r for r in dvs if r["file_format"] == "PUFFIN"]
    other_deletes = [r for r in dvs if r["file_format"] != "PUFFIN"]
    dv_card = sum(r["record_count"] for r in live_dvs)
    per_puffin: dict[str, int] = {}
    for r in live_dvs:
        per_puffin[rel(r["file_path"])] = per_puffin.get(rel(r["file_path"]), 0) + 1
    facts["deletion_vectors"] = {
        "queried_with": tf["queried_with"],
        "count_star": cnt,
        "live_data_files": live_data_files,
        "data_records": data_records,
        "live_deletion_vectors": len(live_dvs),
        "puffin_files": len(per_puffin),
        "vectors_per_puffin_file": dict(sorted(per_puffin.items())),
        "dv_cardinality_sum": dv_card,
        "other_live_delete_files": len(other_deletes),
        "data_records_minus_dv_cardinality": data_records - dv_card,
        "equals_count_star": data_records - dv_card == cnt,
        "position_deletes_table_rows": pos_deletes,
        "files_by_content_and_format": K._j(by),
        "entries_current_snapshot": K._j(entries),
        "all_entries": K._j(all_entries),
        "all_delete_files": K._j(all_del),
        "data_files": [{"path": rel(r["file_path"]), "partition": K._j(r["partition"]), "record_count": r["record_count"],
                        "file_size_in_bytes": r["file_size_in_bytes"]} for r in data],
        "vectors": [{"puffin": rel(r["file_path"]), "referenced_data_file": rel(r["referenced_data_file"]),
                     "content_offset": r["content_offset"], "content_size_in_bytes": r["content_size_in_bytes"],
                     "record_count": r["record_count"], "puffin_file_size_in_bytes": r["file_size_in_bytes"]}
                    for r in live_dvs],
        "sources": {
            "count_star": f"SELECT count(*) FROM {t}",
            "live_data_files, data_records": f"{t}.files, content 0",
            "vectors": f"{t}.delete_files (file_format PUFFIN)",
            "position_deletes_table_rows": f"SELECT count(*) FROM {t}.position_deletes",
            "all_delete_files": f"{t}.all_delete_files (every snapshot still in the metadata)",
        },
    }

    # the warehouse folder: files on disk below data/ and which of them a snapshot still references
    from urllib.parse import urlparse
    table_dir = Path(urlparse(loc).path)
    refs = {r["file_path"] for r in K.sql(f"SELECT DISTINCT file_path FROM {t}.all_files")}
    refs |= {r["file_path"] for r in K.sql(f"SELECT DISTINCT file_path FROM {t}.all_delete_files")}
    refs_rel = {rel(r) for r in refs}
    on_disk = sorted(str(f.relative_to(table_dir)) for f in (table_dir / "data").rglob("*")
                     if f.is_file() and not f.name.endswith(".crc"))
    facts["store"] = {"data_and_delete_files_on_store": len(on_disk), "referenced_by_any_snapshot": len(refs),
                      "orphans": [f for f in on_disk if f not in refs_rel]}
    facts["versions"] = {k: v for k, v in K.VERSIONS.items() if k in ("iceberg", "spark", "iceberg_spark_runtime", "java")}

    # export: the table folder as the catalog wrote it, without Hadoop's local .crc side files
    dest = K.FIXTURES / name
    shutil.rmtree(dest, ignore_errors=True)
    n_obj = n_bytes = crc = 0
    for f in sorted(table_dir.rglob("*")):
        if not f.is_file():
            continue
        if f.name.startswith(".") and f.name.endswith(".crc"):
            crc += 1
            continue
        target = dest / f.relative_to(table_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
        n_obj += 1
        n_bytes += f.stat().st_size
    facts["export"] = {"objects": n_obj, "bytes": n_bytes, "prefix": loc,
                       "skipped": f"{crc} Hadoop checksum side files (.*.crc) written by the local file system"}
    facts["elapsed_ms"] = K.now_ms() - t0
    (dest / "facts.json").write_text(json.dumps(facts, indent=1, sort_keys=False, default=str) + "\n")
    (dest / "caption.md").write_text(CAPTIONS[name](facts).strip() + "\n")
    log(f"[{name}] exported {n_obj} files, {n_bytes} bytes")


# ---------------------------------------------------------------- savepoints, sinks, in-job maintenance

def flink_commits(t: str) -> list[dict]:
    """Every snapshot in commit order with the keys a Flink committer writes (None where absent)."""
    rows = K.sql(f"SELECT committed_at, snapshot_id, operation, summary FROM {t}.snapshots ORDER BY committed_at")
    out = []
    for r in rows:
        sm = r["summary"] or {}
        cp = sm.get("flink.max-committed-checkpoint-id")
        out.append({"snapshot_id": r["snapshot_id"], "operation": r["operation"], "committed_at": K._j(r["committed_at"]),
                    "engine_name": sm.get("engine-name"), "flink_job_id": sm.get("flink.job-id"),
                    "flink_operator_id": sm.get("flink.operator-id"),
                    "max_committed_checkpoint_id": int(cp) if cp is not None else None,
                    "added_records": int(sm.get("added-records", 0)), "total_records": int(sm.get("total-records", 0)),
                    "flink_keys": {k: v for k, v in sm.items() if k.startswith("flink.")}})
    return out


def rows_by_writer(t: str) -> dict:
    """Which Flink job wrote each row: a row's data file (_file) joined with the snapshot that added it
    (the entries table keeps the adding snapshot id on EXISTING entries too)."""
    K.sql(f"""CREATE OR REPLACE TEMPORARY VIEW lab_rows_by_job AS
        SELECT r.id, s.summary['flink.job-id'] AS job
        FROM (SELECT id, _file FROM {t}) r
        JOIN (SELECT DISTINCT data_file.file_path AS path, snapshot_id FROM {t}.entries WHERE status <> 2) e ON r._file = e.path
        JOIN {t}.snapshots s ON e.snapshot_id = s.snapshot_id""")
    per_job = K.sql("SELECT job, count(*) AS rows, count(DISTINCT id) AS ids, min(id) AS min_id, max(id) AS max_id "
                    "FROM lab_rows_by_job GROUP BY job ORDER BY min(id), job")
    dup = K.sql("""SELECT jobs, count(*) AS ids, sum(copies) AS rows, min(id) AS min_id, max(id) AS max_id FROM (
                     SELECT id, count(*) AS copies, concat_ws('+', sort_array(collect_list(job))) AS jobs
                     FROM lab_rows_by_job GROUP BY id HAVING count(*) > 1) GROUP BY jobs ORDER BY min(id)""")
    dup_rows_per_job = K.sql("""SELECT d.job, count(*) AS rows, min(d.id) AS min_id, max(d.id) AS max_id FROM lab_rows_by_job d
                     JOIN (SELECT id FROM lab_rows_by_job GROUP BY id HAVING count(*) > 1) x ON d.id = x.id
                     GROUP BY d.job ORDER BY min(d.id), d.job""")
    return {"method": "Spark: data rows' _file joined with <table>.entries (status <> 2) and <table>.snapshots summary['flink.job-id']",
            "per_job": per_job, "duplicated_ids_by_job_set": dup, "rows_of_duplicated_ids_per_job": dup_rows_per_job}


def savepoint_no_stop():
    s = Scenario("savepoint-no-stop")
    rows = int(os.environ.get("LAB_SPNS_ROWS", "12000"))
    rate = int(os.environ.get("LAB_SPNS_RATE", "200"))
    kw = dict(rows=rows, rate=rate, checkpoint_ms=5000, base_day_ms=today_ms())
    s.facts["bounded_rows"], s.facts["rows_per_second"], s.facts["checkpoint_ms"] = rows, rate, 5000
    a = s.submit(name="savepoint-no-stop A", **kw)
    K.wait_running(a)
    wait_checkpoints(a, 3)
    sp1 = {"job_id": a, **K.trigger_savepoint(a)}
    s.mark("savepoint (no stop)", **sp1)
    n = K.checkpoint_counts(a)["completed"]
    wait_checkpoints(a, n + 3)
    sp2 = {"job_id": a, **K.stop_with_savepoint(a)}
    s.mark("stop-with-savepoint", **sp2)
    s.job(a, stopped_by="stop-with-savepoint (REST POST /jobs/:id/stop, drain false)", restored_from=None)
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["after_stop"] = {"rows": r["n"], "distinct_ids": r["k"], "snapshot_id": K.current_snapshot(s.t)}
    b = s.submit(name="savepoint-no-stop B (resume from the stop-with-savepoint)", restore=sp2["savepoint_path"], **kw)
    K.wait_job(b, ("FINISHED",), timeout=600)
    s.job(b, restored_from=sp2["savepoint_path"])
    s.facts["savepoints"] = [sp1, sp2]
    s.facts["restores"] = [{"job_id": a, "restored_from": None}, {"job_id": b, "restored_from": sp2["savepoint_path"]}]
    s.facts["commits"] = flink_commits(s.t)
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["at_end"] = {"rows": r["n"], "distinct_ids": r["k"], "duplicates": r["n"] - r["k"]}
    s.finish(CAPTIONS["savepoint-no-stop"])


def older_savepoint(name: str = "older-savepoint", sink: str = "flinksink", parallelism: int = 1):
    """Job 1 takes savepoint A and runs on, is stopped with B; job 2 resumes from B, is stopped with C;
    job 3 resumes from the OLDER A after B's checkpoints were committed. `sink`: which Iceberg sink
    writes (FlinkSink skips every checkpoint up to the restored job's last commit; IcebergSink and the
    dynamic sink commit from the restored counter on), `parallelism`: the writers' subtasks."""
    s = Scenario(name)
    keeper = SavepointKeeper(s)  # A, B and C kept as Flink wrote them, with the table just before each resume
    rows = int(os.environ.get("LAB_OLDSP_ROWS", "12000"))
    rate = int(os.environ.get("LAB_OLDSP_RATE", "200"))
    cp_ms = 3000
    kw = dict(rows=rows, rate=rate, checkpoint_ms=cp_ms, base_day_ms=today_ms(), sink=sink, parallelism=parallelism)
    s.facts["bounded_rows"], s.facts["rows_per_second"], s.facts["checkpoint_ms"] = rows, rate, cp_ms
    s.facts["sink"], s.facts["parallelism"] = sink, parallelism
    j1 = s.submit(name="older-savepoint 1", **kw)
    K.wait_running(j1)
    wait_checkpoints(j1, 7)
    spa = {"label": "A", "job_id": j1, **K.trigger_savepoint(j1)}
    s.mark("savepoint A (no stop)", **spa)
    keeper.keep(spa)
    wait_checkpoints(j1, 12)
    spb = {"label": "B", "job_id": j1, **K.stop_with_savepoint(j1)}
    s.mark("stop-with-savepoint B", **spb)
    s.job(j1, stopped_by="stop-with-savepoint B", restored_from=None, vertices=vertices(j1))
    keeper.keep(spb)
    before_2 = keeper.table_now()
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["after_job_1"] = {"rows": r["n"], "distinct_ids": r["k"], "snapshot_id": K.current_snapshot(s.t)}

    j2 = s.submit(name="older-savepoint 2 (resume from B)", restore=spb["savepoint_path"], **kw)
    K.wait_running(j2)
    wait_checkpoints(j2, 3)
    spc = {"label": "C", "job_id": j2, **K.stop_with_savepoint(j2)}
    s.mark("stop-with-savepoint C", **spc)
    s.job(j2, stopped_by="stop-with-savepoint C", restored_from=spb["savepoint_path"], vertices=vertices(j2))
    keeper.keep(spc)
    before_3 = keeper.table_now()
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["after_job_2"] = {"rows": r["n"], "distinct_ids": r["k"], "snapshot_id": K.current_snapshot(s.t)}

    j3 = s.submit(name="older-savepoint 3 (resume from the OLDER savepoint A)", restore=spa["savepoint_path"], **kw)
    K.wait_job(j3, ("FINISHED",), timeout=600)
    s.job(j3, restored_from=spa["savepoint_path"], vertices=vertices(j3))
    s.facts["savepoints"] = [spa, spb, spc]
    s.facts["restores"] = [{"job_id": j1, "restored_from": None}, {"job_id": j2, "restored_from": "B"},
                           {"job_id": j3, "restored_from": "A"}]
    s.facts["job_labels"] = {"1": j1, "2": j2, "3": j3}
    s.facts["commits"] = flink_commits(s.t)
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["at_end"] = {"rows": r["n"], "distinct_ids": r["k"], "duplicates": r["n"] - r["k"]}
    s.facts["rows_by_writer"] = rows_by_writer(s.t)
    s.facts["resumes"] = [{"job_id": j2, "from": "B", "table_before": before_2},
                          {"job_id": j3, "from": "A", "table_before": before_3}]
    keeper.write(sink=sink, parallelism=parallelism)
    s.finish(CAPTIONS["older-savepoint"])




def start_watch(s: "Scenario", every_ms: int = 1000, stall_after: int = 4) -> dict:
    """`icescope watch` on the scenario's table through the REST catalog, its JSON lines collected."""
    watch = start_watch(s, every_ms, stall_after)
    wait_checkpoints(j1, 6)
    spa = {"label": "A", "job_id": j1, **K.trigger_savepoint(j1)}
    s.mark("savepoint A (no stop)", **spa)
    keep(spa)
    wait_checkpoints(j1, 10)
    pid = kill_taskmanager(s, j1, down_s=20)
    spb = {"label": "B", "job_id": j1, **K.stop_with_savepoint(j1)}
    s.mark("stop-with-savepoint B", **spb)
    s.job(j1, stopped_by="stop-with-savepoint B", killed_taskmanager_pid=pid, vertices=vertices(j1))
    keep(spb)
    # Job 2 resumes from B, as it should, and commits; stopped with savepoint C.
    before_2 = table_now()
    j2 = s.submit(name=f"{name} 2 (resume from B)", restore=spb["savepoint_path"], **kw)
    K.wait_running(j2)
    wait_checkpoints(j2, 4)
    spc = {"label": "C", "job_id": j2, **K.stop_with_savepoint(j2)}
    s.mark("stop-with-savepoint C", **spc)
    s.job(j2, stopped_by="stop-with-savepoint C", restored_from=spb["savepoint_path"], vertices=vertices(j2))
    keep(spc)
    # Job 3 resumes from the OLDER savepoint A: its committer skips what job 1 committed after A,
    # then commits checkpoint ids job 2 already committed: the replay.
    before_3 = table_now()
    j3 = s.submit(name=f"{name} 3 (resume from the OLDER savepoint A)", restore=spa["savepoint_path"], **kw)
    K.wait_running(j3)
    last_b = spb["checkpoint_id"] or 0
    K.wait_for("job 3 past job 1's last checkpoint", lambda: K.checkpoint_counts(j3)["completed"] >= last_b - spa["checkpoint_id"] + 3, timeout=300)
    b = K.current_snapshot(s.t)
    res, attempts = call_recorded("rewrite_data_files", f"table => '{s.ident}', options => map('partial-progress.enabled', 'true', 'min-input-files', '2')")
    s.facts["maintenance"] = [{"call": "rewrite_data_files", "result": res, "attempts": attempts, "snapshot_before": b,
                               "snapshot_after": K.current_snapshot(s.t)}]
    s.mark("rewrite_data_files", snapshot_before=b, snapshot_after=s.facts["maintenance"][0]["snapshot_after"])
    done = K.checkpoint_counts(j3)["completed"]
    K.wait_for("2 more checkpoints of job 3", lambda: K.checkpoint_counts(j3)["completed"] >= done + 2, timeout=300)
    K.cancel_job(j3)
    s.mark("canceled", job_id=j3)
    s.job(j3, stopped_by="cancel", restored_from=spa["savepoint_path"], vertices=vertices(j3))
    # Long enough for the watch to call job 3 stalled: stall_after times its interval, and a look.
    time.sleep(stall_after * cp_ms / 1000 + 8)
    stop_watch(s, watch)
    s.facts["savepoints"] = [spa, spb, spc]
    s.facts["job_labels"] = {"1": j1, "2": j2, "3": j3}
    s.facts["resumes"] = [{"job_id": j2, "from": "B", "table_before": before_2},
                          {"job_id": j3, "from": "A", "table_before": before_3}]
    s.facts["commits"] = flink_commits(s.t)
    # The ids each snapshot added (the `id` column's bounds over the data files it added, every snapshot's
    # manifests): the generator's ids are its source positions, so a resumed job's first id is where its
    # savepoint left the source.
    try:
        added = {r["snapshot_id"]: r for r in K.sql(
            f"SELECT snapshot_id, count(*) AS files, sum(data_file.record_count) AS records, "
            f"min(readable_metrics.id.lower_bound) AS min_id, max(readable_metrics.id.upper_bound) AS max_id "
            f"FROM {s.t}.all_entries WHERE status = 1 AND data_file.content = 0 GROUP BY snapshot_id")}
        for c in s.facts["commits"]:
            a = added.get(c["snapshot_id"])
            c["added_ids"] = {k: a[k] for k in ("files", "records", "min_id", "max_id")} if a else None
    except Exception as e:  # noqa: BLE001 (a fact that could not be read is recorded, not fatal)
        s.facts["added_ids_error"] = str(e)[:500]
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["at_end"] = {"rows": r["n"], "distinct_ids": r["k"], "duplicates": r["n"] - r["k"]}
    keeper.write(sink=sink)

    def keep_events(dest: Path):
        shutil.copyfile(K.WORK / f"{name}.jsonl", dest / "watch-events.jsonl")
    s.finish(CAPTIONS[name], after_export=keep_events)


def live_browser():
    """Chromium follows a real Flink run: a FlinkSink job writes to the REST catalog + SeaweedFS (3 s
    checkpoints) while headless Chromium has the app open on the table through `icescope serve`, the
    Live switch on (tests/lab/live_browser.mjs). The lab kills the only TaskManager (a new one 8 s
    later), stops the job with savepoint A, resumes a second job from A and cancels it. Every look the
    app took is one line of browser-looks.jsonl in the fixture, with a few screenshots in shots/."""
    import subprocess
    name = "live-browser"
    s = Scenario(name)
    cp_ms, every_s = 3000, 2
    kw = dict(rate=200, checkpoint_ms=cp_ms, base_day_ms=today_ms())
    s.facts["checkpoint_ms"], s.facts["rows_per_second"] = cp_ms, 200
    j1 = s.submit(name=f"{name} 1", **kw)
    K.wait_running(j1)
    wait_checkpoints(j1, 2)
    out = K.WORK / f"{name}.jsonl"
    shots = K.WORK / f"{name}-shots"
    summary = K.WORK / f"{name}-summary.json"
    stop = K.WORK / f"{name}.stop"
    shutil.rmtree(shots, ignore_errors=True)
    for f in (out, summary, stop):
        f.unlink(missing_ok=True)
    binary = icescope_bin()
    env = {"LB_TABLE": s.ident, "LB_CATALOG": K.CATALOG["uri"], "LB_WAREHOUSE": K.BUCKET, "LB_SCOPE": "catalog",
           "LB_S3_ENDPOINT": K.CATALOG["s3_endpoint"], "LB_S3_REGION": "us-east-1", "LB_EVERY": str(every_s),
           "LB_OUT": str(out), "LB_SHOTS": str(shots), "LB_SUMMARY": str(summary), "LB_STOP": str(stop),
           "ICESCOPE_BIN": str(binary),
           # the secrets only in the environment icescope serve inherits
           "ICESCOPE_CREDENTIAL": f"{K.S3_KEY}:{K.S3_SECRET}", "AWS_ACCESS_KEY_ID": K.S3_KEY,
           "AWS_SECRET_ACCESS_KEY": K.S3_SECRET}
    node = shutil.which("node") or "node"
    K.start("live-browser", [node, str(K.LAB / "live_browser.mjs")], K.WORK / "logs" / f"{name}.log", env=env, cwd=K.REPO)

    def looks() -> list[dict]:
        return [json.loads(ln) for ln in out.read_text().splitlines() if ln.strip()] if out.exists() else []

    def browser_alive():
        p = K._procs.get("live-browser")
        if p is None or p.poll() is not None:
            raise RuntimeError(f"live_browser.mjs ended: see {K.WORK / 'logs' / (name + '.log')}")
        return True
    K.wait_for("the browser's first look", lambda: browser_alive() and len(looks()) > 0, timeout=180)
    s.mark("browser-first-look", looks=len(looks()))
    s.facts["browser"] = {"every_s": every_s, "driver": "tests/lab/live_browser.mjs",
                          "icescope_version": subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout.strip()}
    wait_checkpoints(j1, K.checkpoint_counts(j1)["completed"] + 3)
    pid = kill_taskmanager(s, j1, down_s=8)
    spa = {"label": "A", "job_id": j1, **K.stop_with_savepoint(j1)}
    s.mark("stop-with-savepoint A", **spa)
    s.job(j1, stopped_by="stop-with-savepoint A", killed_taskmanager_pid=pid)
    before_2 = {"metadata_file": metadata_now(s.t), "snapshot_id": K.current_snapshot(s.t)}
    j2 = s.submit(name=f"{name} 2 (resume from A)", restore=spa["savepoint_path"], **kw)
    K.wait_running(j2)
    wait_checkpoints(j2, 4)
    K.cancel_job(j2)
    s.mark("canceled", job_id=j2)
    s.job(j2, stopped_by="cancel", restored_from=spa["savepoint_path"])
    # The table does not change any more: wait until the browser has looked at its last snapshot.
    final_snaps = K.sql(f"SELECT count(*) AS n FROM {s.t}.snapshots")[0]["n"]
    K.wait_for("the browser's look at the last snapshot",
               lambda: browser_alive() and any(x["snapshot_count"] == final_snaps for x in looks()), timeout=120)
    time.sleep(2 * every_s + 1)  # a look or two more at the table as it ends
    # The driver stops on its stop file (Playwright would close the browser itself on SIGTERM).
    stop.touch()
    try:
        K._procs["live-browser"].wait(60)
    except K.subprocess.TimeoutExpired:
        log("live_browser.mjs did not stop on its stop file")
    K.kill("live-browser")
    s.mark("browser-stopped", looks=len(looks()))
    s.facts["savepoints"] = [spa]
    s.facts["job_labels"] = {"1": j1, "2": j2}
    s.facts["resumes"] = [{"job_id": j2, "from": "A", "table_before": before_2}]
    s.facts["commits"] = flink_commits(s.t)
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["at_end"] = {"rows": r["n"], "distinct_ids": r["k"], "duplicates": r["n"] - r["k"]}
    summ = json.loads(summary.read_text()) if summary.exists() else {}
    recorded = looks()
    s.facts["browser"].update({"looks": len(recorded), "chromium": summ.get("chromium"), "serve_command": (summ.get("serve") or {}).get("command"),
                               "opened_wall_ms": summ.get("opened_wall_ms"), "live_on_wall_ms": summ.get("live_on_wall_ms"),
                               "page_errors": summ.get("errors"), "failure": summ.get("failure"),
                               "final_snapshots": final_snaps,
                               "last_look": recorded[-1] if recorded else None})
    if summ.get("failure"):
        raise RuntimeError(f"live_browser.mjs: {summ['failure'][:500]}")

    def keep_looks(dest: Path):
        shutil.copyfile(out, dest / "browser-looks.jsonl")
        kept = []
        for shot in sorted(shots.glob("*.png")):
            if shot.stat().st_size < 200_000:
                (dest / "shots").mkdir(exist_ok=True)
                shutil.copyfile(shot, dest / "shots" / shot.name)
                kept.append({"file": f"shots/{shot.name}", "bytes": shot.stat().st_size})
        s.facts["browser"]["shots"] = kept
    s.finish(CAPTIONS[name], after_export=keep_looks)


def metadata_now(t: str) -> str:
    """The table's current metadata file (its basename): what a reader opened the table from at this moment."""
    rows = K.sql(f"SELECT file FROM {t}.metadata_log_entries ORDER BY timestamp DESC LIMIT 1")
    return rows[0]["file"].rsplit("/", 1)[-1]


def checkpoint_record(job: str, cid: int) -> dict:
    """Flink's REST record of one checkpoint (id, trigger time, path, savepoint or not)."""
    for h in K.rest("GET", f"/jobs/{job}/checkpoints").get("history", []):
        if h["id"] == cid:
            return {"job_id": job, "checkpoint_id": h["id"], "trigger_timestamp_ms": h.get("trigger_timestamp"),
                    "latest_ack_timestamp_ms": h.get("latest_ack_timestamp"),
                    "external_path": h.get("external_path"), "is_savepoint": h.get("is_savepoint"),
                    "status": h.get("status")}
    return {"job_id": job, "checkpoint_id": cid}


def vertices(job: str) -> list[dict]:
    """The job's vertices from REST (operator chaining is off, so each vertex id is its one operator's id)."""
    return [{"id": v["id"], "name": v["name"], "parallelism": v["parallelism"]}
            for v in K.rest("GET", f"/jobs/{job}")["vertices"]]


def savepoint_resume():
    """Keeps what Flink wrote: job A stopped with savepoint S1; B resumed from S1 and stopped with S2 (its
    last retained checkpoint copied just before); C resumed from S1 AGAIN (the replay) and finished; then the
    snapshots are expired down to the newest, so S2's restore point is gone from the table. The savepoint
    folders and the copied checkpoint go to tests/savepoints/savepoint-resume/, beside the table's fixture."""
    s = Scenario("savepoint-resume")
    rows = int(os.environ.get("LAB_SPR_ROWS", "12000"))
    rate = int(os.environ.get("LAB_SPR_RATE", "200"))
    cp_ms = 3000
    kw = dict(rows=rows, rate=rate, checkpoint_ms=cp_ms, base_day_ms=today_ms())
    s.facts["bounded_rows"], s.facts["rows_per_second"], s.facts["checkpoint_ms"] = rows, rate, cp_ms
    flink_out = K.REPO / "tests" / "savepoints" / "savepoint-resume"
    if flink_out.exists():
        shutil.rmtree(flink_out)
    flink_out.mkdir(parents=True)
    kept = []

    def keep(label: str, path: str, record: dict):
        src = Path(path.split("file:", 1)[-1])
        shutil.copytree(src, flink_out / label)
        kept.append({"label": label, "folder": label, "flink_path": path, **record})

    a = s.submit(name="savepoint-resume A", **kw)
    K.wait_running(a)
    wait_checkpoints(a, 5)
    s1 = {"label": "S1", "job_id": a, **K.stop_with_savepoint(a)}
    s.mark("stop-with-savepoint S1", **s1)
    s.job(a, stopped_by="stop-with-savepoint S1", restored_from=None, vertices=vertices(a))
    keep("S1", s1["savepoint_path"], checkpoint_record(a, s1["checkpoint_id"]))
    before_b = {"metadata_file": metadata_now(s.t), "snapshot_id": K.current_snapshot(s.t)}

    b = s.submit(name="savepoint-resume B (resume from S1)", restore=s1["savepoint_path"], **kw)
    K.wait_running(b)
    wait_checkpoints(b, 4)
    latest = K.rest("GET", f"/jobs/{b}/checkpoints")["latest"]["completed"]
    keep(f"chk-{latest['id']}", latest["external_path"], checkpoint_record(b, latest["id"]))
    s2 = {"label": "S2", "job_id": b, **K.stop_with_savepoint(b)}
    s.mark("stop-with-savepoint S2", **s2)
    s.job(b, stopped_by="stop-with-savepoint S2", restored_from="S1", vertices=vertices(b))
    keep("S2", s2["savepoint_path"], checkpoint_record(b, s2["checkpoint_id"]))
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    before_c = {"metadata_file": metadata_now(s.t), "snapshot_id": K.current_snapshot(s.t),
                "rows": r["n"], "distinct_ids": r["k"]}

    c = s.submit(name="savepoint-resume C (resume from S1 AGAIN)", restore=s1["savepoint_path"], **kw)
    K.wait_job(c, ("FINISHED",), timeout=600)
    s.job(c, restored_from="S1", vertices=vertices(c))
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["after_c"] = {"metadata_file": metadata_now(s.t), "snapshot_id": K.current_snapshot(s.t),
                          "rows": r["n"], "distinct_ids": r["k"], "duplicates": r["n"] - r["k"]}
    s.facts["rows_by_writer"] = rows_by_writer(s.t)
    s.facts["commits_before_expire"] = flink_commits(s.t)
    s.facts["resumes"] = [{"job_id": b, "from": "S1", "table_before": before_b},
                          {"job_id": c, "from": "S1", "table_before": before_c}]
    s.facts["job_labels"] = {"A": a, "B": b, "C": c}
    # S2's restore point expires: every snapshot but the newest goes
    prefix = s.location.split(f"s3://{K.BUCKET}/", 1)[1].rstrip("/") + "/"
    keys_b = {o["key"] for o in K.list_objects(prefix)}
    args = f"table => '{s.ident}', older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1"
    res, attempts = call_recorded("expire_snapshots", args)
    keys_a = {o["key"] for o in K.list_objects(prefix)}
    s.facts["maintenance"] = [{"call": f"CALL lab.system.expire_snapshots({args})", "result": res, "attempts": attempts,
                               "deleted_objects": sorted(k[len(prefix):] for k in keys_b - keys_a)}]
    s.facts["commits"] = flink_commits(s.t)
    s.facts["after_expire"] = {"metadata_file": metadata_now(s.t), "snapshot_id": K.current_snapshot(s.t)}
    s.facts["kept"] = kept
    (flink_out / "flink.json").write_text(json.dumps({"scenario": s.name, "kept": kept,
                                                       "job_labels": s.facts["job_labels"],
                                                       "vertices": {j["job_id"]: j.get("vertices") for j in s.facts["jobs"]}},
                                                      indent=1, default=str) + "\n")
    flink_reader(flink_out)
    s.finish(CAPTIONS["savepoint-resume"])


def savepoint_sinks():
    """The sink-v2 committers' state as Flink writes it: an IcebergSink job and a DynamicIcebergSink
    job, each savepointed WITHOUT stopping (its committables still pending in the committer's state)
    and then stopped with a savepoint. Only the savepoint folders and Flink's and the table's records
    are kept (tests/savepoints/savepoint-sinks/), no table fixture."""
    out = K.REPO / "tests" / "savepoints" / "savepoint-sinks"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    record: dict = {"scenario": "savepoint-sinks", "generated_by": "tests/lab/run_lab.sh", "sinks": []}
    for sink in ("icebergsink", "dynamic"):
        s = Scenario(f"savepoint-sinks-{sink}")
        kw = dict(rows=6000, rate=200, checkpoint_ms=2000, base_day_ms=today_ms(), sink=sink)
        job = s.submit(**kw)
        K.wait_running(job)
        wait_checkpoints(job, 3)
        kept = []
        for label, take in ((f"{sink}-no-stop", K.trigger_savepoint), (f"{sink}-stop", K.stop_with_savepoint)):
            if take is K.stop_with_savepoint:
                wait_checkpoints(job, K.checkpoint_counts(job)["completed"] + 2)
            sp = take(job)
            shutil.copytree(Path(sp["savepoint_path"].split("file:", 1)[-1]), out / label)
            kept.append({"label": label, "folder": label, **sp, **checkpoint_record(job, sp["checkpoint_id"])})
        record["sinks"].append({"sink": sink, "table": s.ident, "job_id": job, "kept": kept, "vertices": vertices(job),
                                "commits": flink_commits(s.t)})
    (out / "flink.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    flink_reader(out)


def savepoint_uids():
    """The second seed's upgrade: a job written without uids is stopped with a savepoint S; the same
    job with uids is refused S (its operator ids are now the uids' hashes), through the lab's remote
    environment (B) and again with execution.state-recovery.ignore-unclaimed-state set in that
    environment's configuration (B_remote_key: RemoteStreamEnvironment writes
    SavepointRestoreSettings.none() over it, so Flink is still asked without allowNonRestoredState).
    B_forced is the real forced start: `flink run -s S --allowNonRestoredState` (Flink's CliFrontend),
    restored from S with every operator's state skipped; it writes every row again. (Job C, a start
    without state that stood in for the forced start, is no longer run: B_forced is that start.)
    Kept in tests/savepoints/savepoint-uids/ with the table's commits; no table fixture."""
    out = K.REPO / "tests" / "savepoints" / "savepoint-uids"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    s = Scenario("savepoint-uids")
    kw = dict(rows=4000, rate=200, checkpoint_ms=2000, base_day_ms=today_ms())
    a = s.submit(name="savepoint-uids A (no uids)", uids="false", **kw)
    K.wait_running(a)
    wait_checkpoints(a, 3)
    sp = K.stop_with_savepoint(a)
    shutil.copytree(Path(sp["savepoint_path"].split("file:", 1)[-1]), out / "S")
    kept = [{"label": "S", "folder": "S", **sp, **checkpoint_record(a, sp["checkpoint_id"])}]

    def refusal(text: str) -> str:
        return next((ln.strip() for ln in text.splitlines() if "Failed to rollback" in ln or "Cannot map" in ln or "allowNonRestoredState" in ln), text[:400])

    def configured(text: str):  # the LabJob "configured" line: what the environment hands the executor
        return next((json.loads(ln.split("LAB ", 1)[1]) for ln in text.splitlines() if ln.startswith("LAB ") and '"configured"' in ln), None)

    b_conf = None
    try:
        b = s.submit(name="savepoint-uids B (uids added, restore refused)", restore=sp["savepoint_path"], **kw)
        b_state = K.wait_job(b, ("FAILED", "FINISHED", "CANCELED"), timeout=120)
        exc = K.rest("GET", f"/jobs/{b}/exceptions?maxExceptions=5")
        root = (exc.get("rootException") or "")
    except RuntimeError as e:  # refused at submission: the client's error is the record
        b, b_state, root, b_conf = None, "SUBMISSION_FAILED", str(e), configured(str(e))
    b_error = refusal(root)
    # B_remote_key: the option in the remote environment's configuration, as the earlier attempt set it
    key = "execution.state-recovery.ignore-unclaimed-state"
    try:
        rk = s.submit_full(name="savepoint-uids B_remote_key (uids, remote environment, ignore-unclaimed-state true)",
                           restore=sp["savepoint_path"], raw=[f"conf.{key}=true"], **kw)
        rk_state, rk_err, rk_conf = K.wait_job(rk["job_id"], ("FAILED", "FINISHED", "CANCELED"), timeout=120), None, rk
    except RuntimeError as e:
        rk_state, rk_err, rk_conf = "SUBMISSION_FAILED", refusal(str(e)), configured(str(e))
    remote_key = {"client": "remote environment (StreamExecutionEnvironment.createRemoteEnvironment(host, port, conf))",
                  "set_in_configuration": {key: "true", "execution.state-recovery.path": sp["savepoint_path"]},
                  "environment_configuration": rk_conf, "state": rk_state, "error": rk_err}
    # B_forced: the real forced start, through Flink's CLI
    bf_sub = s.submit_full(name="savepoint-uids B_forced (uids, flink run -s S --allowNonRestoredState)",
                           cli=["-s", sp["savepoint_path"], "--allowNonRestoredState"], **kw)
    bf = bf_sub["job_id"]
    K.wait_job(bf, ("FINISHED",), timeout=300)
    cps = K.rest("GET", f"/jobs/{bf}/checkpoints")
    hist = sorted(cps.get("history", []), key=lambda h: h["id"])
    b_forced = {
        "job_id": bf, "state": K.job_state(bf), "flink_run": bf_sub["flink_run"],
        "environment_configuration": {k: bf_sub.get(k) for k in ("client", "restore", "ignore_unclaimed_state")},
        "latest_restored": (cps.get("latest") or {}).get("restored"),
        "checkpoint_counts": cps.get("counts"),
        "completed_checkpoint_ids": [h["id"] for h in hist if h["status"] == "COMPLETED"],
        "failed_checkpoints": [{"id": h["id"], "failure_message": (h.get("failure_message") or "")[:300]}
                               for h in hist if h["status"] == "FAILED"],
    }
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    record = {"scenario": "savepoint-uids", "generated_by": "tests/lab/run_lab.sh", "table": s.ident, "kept": kept,
              "job_labels": {"A": a, "B": b, "B_forced": bf}, "b_state": b_state, "b_error": b_error,
              "b_environment_configuration": b_conf, "b_remote_key": remote_key, "b_forced": b_forced,
              "vertices": {a: vertices(a), bf: vertices(bf)},
              "commits": flink_commits(s.t), "rows_by_writer": rows_by_writer(s.t),
              "at_end": {"rows": r["n"], "distinct_ids": r["k"], "duplicates": r["n"] - r["k"]}}
    (out / "flink.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    flink_reader(out)


def flink_reader(folder: Path):
    """Flink's own reading of every kept `_metadata` below `folder` (lab.SavepointFacts: Flink's
    metadata loader and the State Processor API), written to folder/flink-reader.json: the
    independent reader tests/savepoint.rs checks icescope's decoder against."""
    paths = sorted(str(p.parent) for p in folder.glob("*/_metadata"))
    r = K.subprocess.run(["java", *K.JAVA_OPENS, "-Dlog4j.configurationFile=file:" + str(K.JAVA / "src" / "main" / "resources" / "log4j2-lab.properties"),
                          "-cp", K.CLASSPATH, "lab.SavepointFacts", *paths], capture_output=True, text=True)
    lines = [json.loads(ln[4:]) for ln in r.stdout.splitlines() if ln.startswith("LAB ")]
    if r.returncode != 0 or len(lines) != len(paths):
        raise RuntimeError(f"SavepointFacts failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-5000:]}")
    for ln in lines:
        ln["path"] = str(Path(ln["path"]).relative_to(folder))
    (folder / "flink-reader.json").write_text(json.dumps({"reader": "lab.SavepointFacts (Flink SavepointLoader, State Processor API)",
                                                          "savepoints": lines}, indent=1) + "\n")
    log(f"Flink's reader read {len(lines)} savepoints in {folder}")


def merge_append_long():
    # metadata.json grows by a snapshot per commit: old versions are deleted after commit (10 kept)
    # so that the fixture stays small; unpartitioned, so each commit adds one data file.
    props = {"write.metadata.delete-after-commit.enabled": "true", "write.metadata.previous-versions-max": "10"}
    s = Scenario("merge-append-long", props=props, partition="none")
    target = int(os.environ.get("LAB_MERGE_CHECKPOINTS", "135"))
    s.facts["checkpoint_ms"], s.facts["rows_per_second"] = 1000, 10
    job = s.submit(rate=10, checkpoint_ms=1000, base_day_ms=today_ms())
    K.wait_running(job)
    wait_checkpoints(job, target, timeout=600)
    K.cancel_job(job)
    s.mark("canceled", job_id=job)
    s.job(job, stopped_by="cancel")
    s.facts["table_properties"] = K.sql(f"SHOW TBLPROPERTIES {s.t}")
    counts = {r["reference_snapshot_id"]: r for r in K.sql(
        f"SELECT reference_snapshot_id, count(*) AS manifests, sum(added_data_files_count) AS added_files, "
        f"sum(existing_data_files_count) AS existing_files FROM {s.t}.all_manifests GROUP BY 1")}
    commits = flink_commits(s.t)
    snaps = {r["snapshot_id"]: r["summary"] or {} for r in K.sql(f"SELECT snapshot_id, summary FROM {s.t}.snapshots")}
    for c in commits:
        m = counts.get(c["snapshot_id"]) or {}
        sm = snaps[c["snapshot_id"]]
        c["manifests_in_list"] = m.get("manifests")
        c["manifest_entries_added_files"] = m.get("added_files")
        c["manifest_entries_existing_files"] = m.get("existing_files")
        for k in ("manifests-created", "manifests-kept", "manifests-replaced", "entries-processed", "total-data-files"):
            c[k.replace("-", "_")] = int(sm[k]) if k in sm else None
    s.facts["commits"] = commits
    s.facts["merges"] = [{"snapshot_id": c["snapshot_id"], "max_committed_checkpoint_id": c["max_committed_checkpoint_id"],
                          "manifests_before": p["manifests_in_list"], "manifests_after": c["manifests_in_list"],
                          "manifests_replaced": c["manifests_replaced"]}
                         for p, c in zip(commits, commits[1:])
                         if (c["manifests_in_list"] or 0) < (p["manifests_in_list"] or 0)]
    s.facts["manifest_counts_source"] = "Spark: count(*) FROM <table>.all_manifests GROUP BY reference_snapshot_id; summary manifests-*"

    def drop_unlogged_metadata(dest: Path):
        # SeaweedFS's REST catalog commits on the server: it trims the metadata-log to
        # write.metadata.previous-versions-max but never deletes the old metadata.json files
        # (write.metadata.delete-after-commit.enabled is a client-side action). Every version is one
        # snapshot longer (~1 KB), so 135 versions add up to ~9 MB. The export keeps the current
        # metadata.json and those its metadata-log names, i.e. what delete-after-commit would leave,
        # and lists what it left out.
        metas = sorted((dest / "metadata").glob("*.metadata.json"), key=lambda p: int(p.name.split(".")[0].lstrip("v")))
        cur = json.loads(metas[-1].read_text())
        keep = {metas[-1].name} | {e["metadata-file"].rsplit("/", 1)[1] for e in cur.get("metadata-log", [])}
        left = [p for p in metas if p.name not in keep]
        s.facts["export"]["left_out"] = {
            "why": "old metadata.json versions no longer in the current metadata-log: SeaweedFS's REST catalog "
                   "trims the log to write.metadata.previous-versions-max (10) but does not delete the files "
                   "(write.metadata.delete-after-commit.enabled is not applied by the server); left out of the "
                   "fixture to keep it small",
            "files": [f"metadata/{p.name}" for p in left],
            "bytes": sum(p.stat().st_size for p in left),
            "on_store_at_end": len(metas),
        }
        for p in left:
            p.unlink()
    s.finish(CAPTIONS["merge-append-long"], after_export=drop_unlogged_metadata)


def sink_bounded(name: str, sink: str):
    s = Scenario(name)
    rows = int(os.environ.get("LAB_SINK_ROWS", "6000"))
    rate = int(os.environ.get("LAB_SINK_RATE", "200"))
    s.facts["bounded_rows"], s.facts["rows_per_second"], s.facts["checkpoint_ms"], s.facts["sink"] = rows, rate, 5000, sink
    job = s.submit(rows=rows, rate=rate, checkpoint_ms=5000, base_day_ms=today_ms(), sink=sink)
    K.wait_job(job, ("FINISHED",), timeout=600)
    s.job(job, sink=sink)
    s.facts["commits"] = flink_commits(s.t)
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["at_end"] = {"rows": r["n"], "distinct_ids": r["k"], "duplicates": r["n"] - r["k"]}
    s.finish(CAPTIONS[name])


def icebergsink_v2():
    sink_bounded("icebergsink-v2", "icebergsink")


def dynamic_sink():
    sink_bounded("dynamic-sink", "dynamic")


def flink_maintenance():
    s = Scenario("flink-maintenance")
    dur = int(os.environ.get("LAB_FLINK_MAINT_SECONDS", "80"))
    wopts = {
        "flink-maintenance.rate-limit-seconds": "5",
        "flink-maintenance.lock-check-delay-seconds": "5",
        "flink-maintenance.rewrite.schedule.commit-count": "5",
        "flink-maintenance.rewrite.min-input-files": "2",
        "flink-maintenance.expire-snapshots.schedule.commit-count": "10",
        "flink-maintenance.expire-snapshots.retain-last": "5",
        "flink-maintenance.expire-snapshots.max-snapshot-age-seconds": "20",
    }
    s.facts["sink"], s.facts["maintenance_tasks"], s.facts["write_options"] = "icebergsink", ["rewrite", "expire"], wopts
    s.facts["checkpoint_ms"], s.facts["rows_per_second"] = 2000, 100
    job = s.submit(rate=100, checkpoint_ms=2000, base_day_ms=today_ms(), sink="icebergsink",
                   maintenance="rewrite,expire", raw=[f"wopt.{k}={v}" for k, v in wopts.items()])
    K.wait_running(job)
    prefix = s.location.split(f"s3://{K.BUCKET}/", 1)[1].rstrip("/") + "/"
    seen: dict[str, int] = {}
    t_run = time.time()
    next_sample = 20
    while time.time() < t_run + dur:
        now = K.now_ms() - s.t0
        for o in K.list_objects(prefix):
            seen.setdefault(o["key"], now)
        if time.time() >= t_run + next_sample:
            s.sample(job, at_s=next_sample)
            next_sample += 20
        time.sleep(0.5)
    K.cancel_job(job)
    s.mark("canceled", job_id=job)
    s.job(job, stopped_by="cancel", sink="icebergsink", maintenance="rewrite,expire")
    final = {o["key"] for o in K.list_objects(prefix)}
    for k in final:
        seen.setdefault(k, K.now_ms() - s.t0)
    gone = sorted(k[len(prefix):] for k in seen if k not in final)
    commits = flink_commits(s.t)
    snaps = {r["snapshot_id"]: r["summary"] or {} for r in K.sql(f"SELECT snapshot_id, summary FROM {s.t}.snapshots")}
    maint = []
    for c in commits:
        if c["flink_job_id"] is None:
            sm = snaps[c["snapshot_id"]]
            maint.append({"snapshot_id": c["snapshot_id"], "operation": c["operation"], "committed_at": c["committed_at"],
                          "summary": sm})
    # every snapshot ever committed, from the metadata log (expired ones are gone from <table>.snapshots)
    hist = K.sql(f"SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor FROM {s.t}.history ORDER BY made_current_at")
    s.facts["commits"] = commits
    s.facts["maintenance_commits"] = maint
    s.facts["history"] = K._j(hist)
    # check_fixtures accepts files missing from the store only if a maintenance entry lists them as deleted
    s.facts["maintenance"] = [{"call": "Flink in-job TableMaintenance (IcebergSink post-commit: RewriteDataFiles, ExpireSnapshots)",
                               "deleted_objects": gone,
                               "deleted_by_kind": {k: sum(1 for g in gone if g.startswith(k + "/")) for k in ("data", "metadata")},
                               "source": "objects listed under the table every 0.5 s during the run and absent at the end"}]
    r = K.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS k FROM {s.t}")[0]
    s.facts["at_end"] = {"rows": r["n"], "distinct_ids": r["k"], "duplicates": r["n"] - r["k"]}

    def snapshots_ever(dest: Path):
        # every snapshot any metadata.json version listed (expired ones included), with the version
        # that first listed it and the first version without it (expire_snapshots)
        metas = sorted((dest / "metadata").glob("*.metadata.json"), key=lambda p: int(p.name.split(".")[0].lstrip("v")))
        ever: dict[int, dict] = {}
        prev: set[int] = set()
        for p in metas:
            m = json.loads(p.read_text())
            ids = set()
            for sn in m.get("snapshots", []):
                ids.add(sn["snapshot-id"])
                if sn["snapshot-id"] not in ever:
                    sm = sn.get("summary", {})
                    ever[sn["snapshot-id"]] = {
                        "snapshot_id": sn["snapshot-id"], "sequence_number": sn.get("sequence-number"),
                        "timestamp_ms": sn["timestamp-ms"], "operation": sm.get("operation"),
                        "flink_job_id": sm.get("flink.job-id"),
                        "max_committed_checkpoint_id": int(sm["flink.max-committed-checkpoint-id"])
                        if "flink.max-committed-checkpoint-id" in sm else None,
                        "maintenance": "flink.job-id" not in sm,
                        "summary": {k: v for k, v in sm.items() if k != "iceberg-version"},
                        "first_in": p.name, "expired_in": None}
            for gone in prev - ids:
                ever[gone]["expired_in"] = p.name
            prev = ids
        out = sorted(ever.values(), key=lambda x: (x["sequence_number"] or 0, x["timestamp_ms"]))
        s.facts["snapshots_ever"] = out
        s.facts["expirations"] = [{"metadata": p.name, "expired": [x["snapshot_id"] for x in out if x["expired_in"] == p.name]}
                                  for p in metas if any(x["expired_in"] == p.name for x in out)]
    s.finish(CAPTIONS["flink-maintenance"], after_export=snapshots_ever)


CAPTIONS: dict = {}  # scenario -> function(facts) -> paragraph; see captions.py

SCENARIOS = {
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
    "older-savepoint-icebergsink": lambda: older_savepoint("older-savepoint-icebergsink", "icebergsink", 2),
    "older-savepoint-dynamic": lambda: older_savepoint("older-savepoint-dynamic", "dynamic"),
    "two-deployments": two_deployments,
    "merge-append-long": merge_append_long,
    "icebergsink-v2": icebergsink_v2,
    "dynamic-sink": dynamic_sink,
    "flink-maintenance": flink_maintenance,
    "savepoint-resume": savepoint_resume,
    "savepoint-sinks": savepoint_sinks,
    "savepoint-uids": savepoint_uids,
    "live-watch": live_watch,
    "live-watch-icebergsink": lambda: live_watch("live-watch-icebergsink", "icebergsink"),
    "live-watch-dynamic": lambda: live_watch("live-watch-dynamic", "dynamic"),
    "live-browser": live_browser,
}
# scenarios that need only Spark (a local Hadoop catalog): no SeaweedFS, no Flink
SPARK_ONLY = {"v3-deletion-vectors"}

TM: dict = {}


def main(argv: list[str]) -> int:
    import captions
    CAPTIONS.update(captions.CAPTIONS)
    if argv[:1] == ["--read-savepoints"]:  # Flink's own reader over the kept savepoints; no servers
        for d in sorted((K.REPO / "tests" / "savepoints").iterdir()):
            if d.is_dir():
                flink_reader(d)
        return 0
    if argv[:1] == ["--captions"]:  # rewrite caption.md from the facts.json already there; no engines
        for n in argv[1:] or list(SCENARIOS):
            d = K.FIXTURES / n
            if (d / "facts.json").exists():
                (d / "caption.md").write_text(CAPTIONS[n](json.loads((d / "facts.json").read_text())).strip() + "\n")
                print(f"caption.md rewritten for {n}")
        return 0
    names = argv or list(SCENARIOS)
    bad = [n for n in names if n not in SCENARIOS]
    if bad:
        print(f"unknown scenario(s): {bad}; known: {list(SCENARIOS)}", file=sys.stderr)
        return 2
    t0 = time.time()
    K.WORK.mkdir(parents=True, exist_ok=True)
    servers = any(n not in SPARK_ONLY for n in names)
    K.SPARK_CATALOGS.clear()
    K.SPARK_CATALOGS.update(({"rest"} if servers else set()) | ({"hadoop"} if SPARK_ONLY & set(names) else set()))
    if servers:
        K.start_seaweedfs()
        K.start_jobmanager()
        TM["name"] = K.start_taskmanager()
    else:
        log("only Spark-only scenarios: no SeaweedFS, no Flink")
    K.VERSIONS["java"] = os.popen("java -version 2>&1 | head -1").read().strip()
    K.spark()
    results = {}
    for n in names:
        log(f"=== {n}")
        t = time.time()
        try:
            SCENARIOS[n]()
            results[n] = f"ok in {time.time() - t:.0f} s"
        except Exception as e:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            results[n] = f"FAILED after {time.time() - t:.0f} s: {e}"
        log(f"=== {n}: {results[n]}")
    log(f"lab done in {time.time() - t0:.0f} s")
    for n, r in results.items():
        log(f"  {n}: {r}")
    K.stop_all()
    return 0 if all(r.startswith("ok") for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

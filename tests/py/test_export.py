"""`icescope export` read back by pyarrow and DuckDB: the CSV and Parquet files of several lab
fixtures hold the same rows and values as the CLI's own JSON report, and the snapshot ids,
parents, operations and commit times the engines recorded (facts.json, queried with Spark).
Nothing expected is typed here. Hostile strings (quotes, line breaks, `=cmd`) round-trip through
the CSV with OWASP's leading `'` before a would-be formula and nothing else changed."""

import datetime as dt
import json
import shutil
import subprocess
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

import cli
from tables import REPO

FIXTURES = ["taskmanager-kill", "upsert-stream", "v3-deletion-vectors", "concurrent-writers", "savepoint-twice"]
TABLES = ["snapshots", "growth", "deletes", "jobs", "partitions", "findings"]
SNAPSHOT_INTS = [
    "snapshot_id", "parent_id", "sequence_number", "flink_checkpoint_id", "manifests", "manifest_bytes", "data_files",
    "delete_files", "position_delete_files", "equality_delete_files", "deletion_vectors", "records",
    "position_deletes", "equality_deletes", "live_rows", "files_size",
]
SNAPSHOT_TEXT = ["operation", "writer", "writer_evidence", "flink_job_id", "flink_operator_id", "live_rows_are", "counts_from", "read"]


def run(*args: str) -> str:
    r = subprocess.run([str(cli.binary()), *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"icescope {' '.join(args)} exited {r.returncode}:\n{r.stderr}"
    return r.stdout


def exported(folder: Path, out: Path, fmt: str, *extra: str) -> dict[str, Path]:
    run("export", str(folder), "--what", "all", "--format", fmt, "--out", str(out), *extra)
    return {t: out / f"{t}.{fmt}" for t in TABLES}


def report(folder: Path) -> dict:
    return json.loads(run("inspect", str(folder), "--format", "json"))


def ms(t: dt.datetime) -> int:
    return int(t.timestamp() * 1000) if t.microsecond % 1000 == 0 else round(t.timestamp() * 1000)


def csv_rows(path: Path) -> list[dict]:
    """Every cell as text (NULL where the cell was empty and unquoted), read by DuckDB."""
    rel = duckdb.sql(f"SELECT * FROM read_csv('{path}', header=true, all_varchar=true, quote='\"', escape='\"', new_line='\\n')")
    cols = rel.columns
    return [dict(zip(cols, r)) for r in rel.fetchall()]


@pytest.fixture(scope="module", params=FIXTURES)
def fixture(request, icescope, tmp_path_factory):
    folder = REPO / "tests" / "fixtures" / request.param
    out = tmp_path_factory.mktemp(request.param)
    return {
        "name": request.param,
        "facts": json.loads((folder / "facts.json").read_text()),
        "report": report(folder),
        "parquet": exported(folder, out / "pq", "parquet"),
        "csv": exported(folder, out / "csv", "csv"),
    }


def test_parquet_snapshots_are_the_reports_rows_with_real_types(fixture):
    t = pq.read_table(fixture["parquet"]["snapshots"])
    for name in SNAPSHOT_INTS:
        assert str(t.schema.field(name).type) == "int64", name
    assert str(t.schema.field("committed_at").type) == "timestamp[ms, tz=UTC]"
    rows = t.to_pylist()
    want = fixture["report"]["snapshots"]
    assert len(rows) == len(want)
    for got, w in zip(rows, want):
        for name in SNAPSHOT_INTS + SNAPSHOT_TEXT:
            assert got[name] == w[name], (fixture["name"], w["snapshot_id"], name)
        assert ms(got["committed_at"]) == w["timestamp_ms"]


def test_duckdb_reads_the_same_snapshots_from_parquet_and_csv(fixture):
    want = fixture["report"]["snapshots"]
    # (A TIMESTAMPTZ handed to Python needs pytz, which the test environment does not pin: DuckDB
    # gives the instant as epoch milliseconds instead.)
    rel = duckdb.sql(f"SELECT * EXCLUDE (committed_at), epoch_ms(committed_at) AS committed_ms, typeof(committed_at) AS committed_type FROM read_parquet('{fixture['parquet']['snapshots']}')")
    pq_rows = [dict(zip(rel.columns, r)) for r in rel.fetchall()]
    csv = csv_rows(fixture["csv"]["snapshots"])
    assert len(pq_rows) == len(csv) == len(want)
    for p, c, w in zip(pq_rows, csv, want):
        for name in SNAPSHOT_INTS:
            assert p[name] == w[name], name
            assert c[name] == (None if w[name] is None else str(w[name])), name
        for name in SNAPSHOT_TEXT:
            assert p[name] == w[name], name
            assert c[name] == w[name], name
        assert c["committed_at"] == w["committed_at"]
        assert p["committed_ms"] == w["timestamp_ms"] and p["committed_type"] == "TIMESTAMP WITH TIME ZONE"


def test_snapshots_match_what_the_engine_recorded(fixture):
    """Ids, parents, operations and commit times as Spark's `snapshots` table gave them."""
    engine = {s["snapshot_id"]: s for s in fixture["facts"]["final_table"]["snapshots"]}
    rows = {r["snapshot_id"]: r for r in pq.read_table(fixture["parquet"]["snapshots"]).to_pylist()}
    assert set(rows) == set(engine)
    for sid, e in engine.items():
        r = rows[sid]
        assert r["parent_id"] == e["parent_id"]
        assert r["operation"] == e["operation"]
        committed = dt.datetime.fromisoformat(e["committed_at"]).replace(tzinfo=dt.timezone.utc)
        assert r["committed_at"] == committed
        if "total-records" in e["summary"] and r["counts_from"] == "manifests":
            assert r["records"] == int(e["summary"]["total-records"])


def test_series_are_the_reports_numbers(fixture):
    rep = fixture["report"]
    growth = pq.read_table(fixture["parquet"]["growth"]).to_pylist()
    assert [g["snapshot_id"] for g in growth] == [s["snapshot_id"] for s in rep["snapshots"]]
    for g, s in zip(growth, rep["snapshots"]):
        for name in ["data_files", "delete_files", "records", "files_size", "manifests", "position_delete_files", "equality_delete_files", "deletion_vectors", "counts_from"]:
            assert g[name] == s[name], name
        assert g["checkpoint_id"] == s["flink_checkpoint_id"]
    deletes = pq.read_table(fixture["parquet"]["deletes"]).to_pylist()
    for d, s in zip(deletes, rep["snapshots"]):
        # A scan opens each Puffin file once however many vectors it holds; where the Puffin files
        # were not counted, each vector stands for one and the count is marked as not exact.
        kinds = [s["data_files"], s["position_delete_files"], s["equality_delete_files"], s["deletion_vector_files"]]
        if None not in kinds:
            assert (d["files_a_scan_opens"], d["files_a_scan_opens_exact"]) == (sum(kinds), True)
        elif s["data_files"] is not None and s["delete_files"] is not None:
            exact = s["delete_files"] == 0 or s["deletion_vectors"] == 0
            assert (d["files_a_scan_opens"], d["files_a_scan_opens_exact"]) == (s["data_files"] + s["delete_files"], exact)
        assert d["deletion_vector_files"] == s["deletion_vector_files"]
    dv = fixture["facts"].get("deletion_vectors")
    if dv:
        # Spark's own census of the current snapshot: data files, Puffin files, other deletes.
        current = [d for d, s in zip(deletes, rep["snapshots"]) if s["snapshot_id"] == rep["table"]["current_snapshot_id"]][0]
        assert current["files_a_scan_opens"] == dv["live_data_files"] + dv["puffin_files"] + dv["other_live_delete_files"]
    jobs = pq.read_table(fixture["parquet"]["jobs"]).to_pylist()
    assert [j["job_id"] for j in jobs] == [j["job_id"] for j in rep["jobs"]]
    # The job ids Flink's REST API gave the lab.
    assert {j["job_id"] for j in jobs} == {j["job_id"] for j in fixture["facts"]["jobs"]}
    for j, w in zip(jobs, rep["jobs"]):
        for name in ["first_checkpoint_id", "last_checkpoint_id", "end_of_input", "snapshots", "rows_added", "sink"]:
            assert j[name] == w[name], name
        assert j["first_commit"].isoformat(timespec="milliseconds").replace("+00:00", "Z") == w["first_commit"]
    current = next(s for s in rep["snapshots"] if s["snapshot_id"] == rep["table"]["current_snapshot_id"])
    parts = pq.read_table(fixture["parquet"]["partitions"]).to_pylist()
    assert sum(p["data_files"] for p in parts) == current["data_files"]
    assert sum(p["rows"] for p in parts) == current["records"]
    csv_parts = csv_rows(fixture["csv"]["partitions"])
    assert [(c["partition"], int(c["data_files"]), int(c["rows"])) for c in csv_parts] == [(p["partition"], p["data_files"], p["rows"]) for p in parts]


def test_findings_are_the_reports_findings(fixture):
    want = fixture["report"]["findings"]
    got = pq.read_table(fixture["parquet"]["findings"]).to_pylist()
    csv = csv_rows(fixture["csv"]["findings"])
    assert len(got) == len(csv) == len(want)
    for g, c, w in zip(got, csv, want):
        for name in ["severity", "kind", "title", "evidence", "action", "statement", "snapshot_ids", "job_ids"]:
            assert g[name] == w[name], name
        assert json.loads(c["snapshot_ids"]) == w["snapshot_ids"]
        for name in ["severity", "kind", "title", "evidence", "action", "statement"]:
            guarded = w[name] if w[name] is None or w[name][:1] not in "=+-@\t\r" else "'" + w[name]
            assert c[name] == guarded, name


def test_orphan_finding_is_exported_after_a_full_read(icescope, tmp_path):
    folder = REPO / "tests" / "fixtures" / "taskmanager-kill"
    facts = json.loads((folder / "facts.json").read_text())
    files = exported(folder, tmp_path, "parquet", "--all-snapshots")
    rows = [r for r in pq.read_table(files["findings"]).to_pylist() if r["kind"] == "orphan_files"]
    assert len(rows) == 1
    for path in facts["store"]["orphans"]:
        assert path in rows[0]["evidence"]
    assert rows[0]["statement"].startswith("CALL <catalog>.system.remove_orphan_files(table => ")


HOSTILE = ['=cmd|\' /C calc\'!A0', '+SUM(1,2)', '-2+3', '@IMPORT("x")', 'a "quoted", job\nsecond line', "\ttab", "plain"]


def test_hostile_strings_round_trip_through_csv_and_parquet(icescope, tmp_path):
    """A real table's metadata.json with its job ids replaced by strings a spreadsheet would run."""
    table = tmp_path / "t"
    shutil.copytree(REPO / "tests" / "fixtures" / "taskmanager-kill", table, ignore=shutil.ignore_patterns("facts.json", "caption.md"))
    meta = sorted((table / "metadata").glob("*.metadata.json"), key=lambda p: p.stat().st_size)[-1]
    doc = json.loads(meta.read_text())
    for i, s in enumerate(doc["snapshots"]):
        s["summary"]["flink.job-id"] = HOSTILE[i % len(HOSTILE)]
    for other in (table / "metadata").glob("*.metadata.json"):
        if other != meta:
            other.unlink()
    meta.write_text(json.dumps(doc))
    want = [s["flink_job_id"] for s in report(table)["snapshots"]]
    assert set(want) == set(HOSTILE)
    csv = csv_rows(exported(table, tmp_path / "csv", "csv")["snapshots"])
    for c, w in zip(csv, want):
        assert c["flink_job_id"] == ("'" + w if w[0] in "=+-@\t" else w)
    # pyarrow's own CSV reader agrees with DuckDB's.
    import pyarrow.csv as pacsv

    t = pacsv.read_csv(
        tmp_path / "csv" / "snapshots.csv",
        parse_options=pacsv.ParseOptions(newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(column_types={"flink_job_id": "string"}),
    )
    assert t.column("flink_job_id").to_pylist() == [c["flink_job_id"] for c in csv]
    # Parquet keeps the values exactly: a file of typed columns runs nothing.
    got = pq.read_table(exported(table, tmp_path / "pq", "parquet")["snapshots"]).column("flink_job_id").to_pylist()
    assert got == want

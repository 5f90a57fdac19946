"""The CLI's `footers` and `duplicates` against independent readers over the same fixture files:
pyarrow reads each Parquet footer, fastavro the manifests (which files are live, which snapshot
added each), DuckDB's read_parquet the `id` column. Numbers come from those readers, never typed."""

import json
import subprocess
from collections import Counter
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from avro_counts import ADDED, EXISTING, read_avro
from tables import REPO, resolve

FIXTURES = REPO / "tests" / "fixtures"


def run(icescope, *args) -> dict:
    r = subprocess.run([str(icescope), *map(str, args), "--format", "json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def metadata(folder: Path) -> dict:
    files = sorted((folder / "metadata").glob("*.metadata.json"), key=lambda p: json.loads(p.read_text()).get("last-sequence-number", 0))
    return json.loads(files[-1].read_text())


def live_entries(folder: Path, snapshot: dict) -> list[tuple[dict, int]]:
    """(data_file, adding snapshot id) of every live entry, ids inherited from the list."""
    out = []
    for m in read_avro(resolve(folder, snapshot["manifest-list"])):
        for e in read_avro(resolve(folder, m["manifest_path"])):
            if e["status"] in (EXISTING, ADDED):
                out.append((e["data_file"], e["snapshot_id"] if e["snapshot_id"] is not None else m["added_snapshot_id"]))
    return out


@pytest.mark.parametrize("name", ["savepoint-twice", "concurrent-writers", "upsert-stream", "v3-deletion-vectors"])
def test_footers_agree_with_pyarrow_and_the_manifests(icescope, name):
    folder = FIXTURES / name
    report = run(icescope, "footers", folder)
    meta = metadata(folder)
    current = next(s for s in meta["snapshots"] if s["snapshot-id"] == meta["current-snapshot-id"])
    manifest = {f["file_path"]: f for f, _ in live_entries(folder, current) if f["file_format"].upper() == "PARQUET"}
    assert sorted(r["file_path"] for r in report["files_checked"]) == sorted(manifest)
    for r in report["files_checked"]:
        local = resolve(folder, r["file_path"])
        md = pq.ParquetFile(local).metadata
        assert r["footer_rows"] == md.num_rows == manifest[r["file_path"]]["record_count"], r["file_path"]
        assert r["row_groups"] == md.num_row_groups
        assert r["object_size"] == local.stat().st_size == manifest[r["file_path"]]["file_size_in_bytes"]
        ids = {int(f.metadata[b"PARQUET:field_id"]) for f in pq.ParquetFile(local).schema_arrow if f.metadata and b"PARQUET:field_id" in f.metadata}
        assert {c["field_id"] for c in r["columns"] if "." not in c["path"]} == ids, r["file_path"]
    assert report["record_count_mismatches"] == 0 and report["size_mismatches"] == 0
    assert report["bytes_fetched"] < report["bytes_in_files"]


@pytest.mark.parametrize("name,facts_key", [("savepoint-twice", "after_second_resume"), ("concurrent-writers", "after_both_finished")])
def test_duplicates_by_job_agree_with_duckdb(icescope, name, facts_key):
    folder = FIXTURES / name
    facts = json.loads((folder / "facts.json").read_text())
    snapshot_id = facts[facts_key]["snapshot_id"]
    report = run(icescope, "duplicates", folder, "--key", "id", "--snapshot", snapshot_id)
    meta = metadata(folder)
    job_of = {s["snapshot-id"]: s.get("summary", {}).get("flink.job-id", "(no flink.job-id)") for s in meta["snapshots"]}
    snapshot = next(s for s in meta["snapshots"] if s["snapshot-id"] == snapshot_id)
    entries = live_entries(folder, snapshot)
    assert all(f.get("content", 0) == 0 for f, _ in entries), "append-only tables: no deletes to apply"
    con = duckdb.connect()
    con.execute("CREATE TABLE files(path VARCHAR, job VARCHAR)")
    con.executemany("INSERT INTO files VALUES (?, ?)", [(str(resolve(folder, f["file_path"])), job_of[sid]) for f, sid in entries])
    paths = [p for (p,) in con.execute("SELECT path FROM files").fetchall()]
    con.execute("CREATE TABLE rows AS SELECT r.id, f.job FROM read_parquet(?, filename = true) r JOIN files f ON r.filename = f.path", [paths])
    rows, distinct = con.execute("SELECT count(*), count(DISTINCT id) FROM rows").fetchone()
    assert (report["rows"], report["distinct_keys"]) == (rows, distinct)
    assert (rows, distinct) == (facts[facts_key]["rows"], facts[facts_key]["distinct_ids"]), "DuckDB agrees with Spark"
    # Per key: the jobs of its copies; per multiset of jobs: how many keys.
    per_key = con.execute("SELECT id, list(job ORDER BY job) FROM rows GROUP BY id HAVING count(*) > 1").fetchall()
    duck = Counter(tuple(sorted(Counter(jobs).items())) for _, jobs in per_key)
    ours = Counter({tuple(sorted((j, n) for j, n in s["copies_by_job"])): s["keys"] for s in report["by_jobs"]})
    assert ours == duck
    assert report["duplicated_keys"] == len(per_key)


def test_what_position_deletes_hit_agrees_with_duckdb(icescope):
    """Per position delete file: the data files it names and how many rows, as DuckDB reads it."""
    folder = FIXTURES / "upsert-stream"
    facts = json.loads((folder / "facts.json").read_text())
    before = facts["maintenance"][0]["snapshot_before"]
    report = run(icescope, "duplicates", folder, "--key", "id", "--snapshot", before)
    ours = Counter({(h["delete_file"], h["data_file"]): h["rows"] for h in report["delete_hits"] if h["kind"] == "position_deletes"})
    assert ours, "the snapshot before the rewrite has position deletes"
    con = duckdb.connect()
    duck = Counter()
    for delete_file in {d for d, _ in ours}:
        for data_file, n in con.execute("SELECT file_path, count(*) FROM read_parquet(?) GROUP BY file_path", [str(resolve(folder, delete_file))]).fetchall():
            duck[(delete_file, data_file)] = n
    assert ours == duck
    assert report["rows"] == facts["before_maintenance"]["rows"]

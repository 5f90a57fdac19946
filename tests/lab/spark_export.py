#!/usr/bin/env python3
"""Real Spark computes Iceberg's metadata tables of the lab's fixture tables and writes them as Parquet
into tests/spark-exports/<scenario>/<name>/ (with the metadata.json Spark read copied in), for icescope's tests of its Spark-export reader.

    bash tests/lab/run_spark_export.sh [scenario ...]     # the entry point (venv, jars), default: all

The SQL is icescope's own: `cargo run -q --bin icescope -- spark-export --table T --to D` prints it, and
every statement it prints is run here (`--builtin-script`: the script the command was specified with).

Each fixture is staged, never modified: its metadata/ and data/ files are uploaded to a SeaweedFS
`weed mini` on free loopback ports (S3 fixtures, under the key their facts.json export.prefix gives), or
copied to a temporary folder that a private mount namespace shows at the fixture's file:// path
(v3-deletion-vectors, written by a local Hadoop catalog). Spark registers the newest metadata.json in
an Iceberg JdbcCatalog on in-memory Derby (`mem`: S3FileIO on the SeaweedFS endpoint; `memfs`: HadoopFileIO) and runs
the script; Spark's _SUCCESS and .crc side files are removed; export.json records the versions, the
registered metadata file, the rows per folder (counted by Spark) and the last SELECT's answer.

Then diffs.json: for the snapshot pairs first → current, current's parent → current and (several Flink
jobs) the first job's last snapshot → the last job's, the files live in one and not the other, from
`<table>.entries VERSION AS OF <id>` (status < 2), cross-checked with the reader's snapshot-id option.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

LAB = Path(__file__).resolve().parent
REPO = LAB.parents[1]
FIXTURES = REPO / "tests" / "fixtures"
# Beside the fixtures, not inside them: a table folder holds only the table's own objects (its
# orphan census would count an export inside it).
EXPORTS = REPO / "tests" / "spark-exports"
NS_FLAG = "--in-mount-namespace"

sys.path.insert(0, str(LAB))
sys.path.insert(0, str(REPO / "tests" / "py" / "catalog"))

# The script icescope's `spark-export` was specified with (T = table, D = output folder); used only with
# --builtin-script, e.g. while the command does not build.
BUILTIN_SCRIPT = """\
SET spark.sql.parquet.outputTimestampType=TIMESTAMP_MICROS;
INSERT OVERWRITE DIRECTORY 'D/snapshots' USING parquet SELECT /*+ COALESCE(1) */ committed_at, snapshot_id, parent_id, operation, manifest_list, summary FROM T.snapshots;
INSERT OVERWRITE DIRECTORY 'D/history' USING parquet SELECT /*+ COALESCE(1) */ * FROM T.history;
INSERT OVERWRITE DIRECTORY 'D/refs' USING parquet SELECT /*+ COALESCE(1) */ * FROM T.refs;
INSERT OVERWRITE DIRECTORY 'D/metadata_log_entries' USING parquet SELECT /*+ COALESCE(1) */ * FROM T.metadata_log_entries;
INSERT OVERWRITE DIRECTORY 'D/manifests' USING parquet SELECT /*+ COALESCE(1) */ * FROM T.manifests;
INSERT OVERWRITE DIRECTORY 'D/all_manifests_by_snapshot' USING parquet SELECT /*+ COALESCE(1) */ reference_snapshot_id, content, count(*) AS manifests, sum(length) AS manifest_bytes, sum(added_data_files_count) AS added_data_files, sum(existing_data_files_count) AS existing_data_files, sum(deleted_data_files_count) AS deleted_data_files, sum(added_delete_files_count) AS added_delete_files, sum(existing_delete_files_count) AS existing_delete_files, sum(deleted_delete_files_count) AS deleted_delete_files FROM T.all_manifests GROUP BY reference_snapshot_id, content;
INSERT OVERWRITE DIRECTORY 'D/entries' USING parquet SELECT /*+ COALESCE(1) */ status, snapshot_id, sequence_number, file_sequence_number, data_file FROM T.entries;
INSERT OVERWRITE DIRECTORY 'D/partitions' USING parquet SELECT /*+ COALESCE(1) */ * FROM T.partitions;
SELECT file FROM T.metadata_log_entries ORDER BY timestamp DESC LIMIT 1;
"""

# The metadata tables a folder can be counted against directly (SELECT count(*) FROM T.<name>).
METADATA_TABLES = {"snapshots", "history", "refs", "metadata_log_entries", "manifests", "entries", "partitions",
                   "files", "data_files", "delete_files", "all_manifests", "all_entries", "all_files"}


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


# ---------------------------------------------------------------- fixtures


class Fixture:
    def __init__(self, d: Path, facts: dict, prefix: str):
        self.name, self.dir, self.facts, self.prefix = d.name, d, facts, prefix.rstrip("/") + "/"
        self.kind = "s3" if prefix.startswith("s3://") else "file"
        table = facts.get("table") or "/".join(self.prefix.rstrip("/").split("/")[-2:]).replace("/", ".")
        self.ns, self.table = table.split(".", 1)
        self.catalog = "mem" if self.kind == "s3" else "memfs"
        self.ident = f"{self.catalog}.{self.ns}.{self.table}"
        self.metadata_rel = newest_metadata(d)
        self.metadata_file = self.prefix + self.metadata_rel

    def local_prefix(self) -> Path:
        """file:///a/b and file:/a/b: /a/b."""
        return Path("/" + re.sub(r"^file:/+", "", self.prefix).rstrip("/"))

    def table_files(self):
        """(relative path, local file) of every object of the table: the fixture's metadata/ and data/."""
        for sub in ("metadata", "data"):
            for p in sorted((self.dir / sub).rglob("*")):
                if p.is_file():
                    yield p.relative_to(self.dir).as_posix(), p


def newest_metadata(d: Path) -> str:
    """The fixture's current metadata.json: highest last-updated-ms, then last-sequence-number, then version."""
    best = None
    for p in (d / "metadata").glob("*.metadata.json"):
        m = json.loads(p.read_text())
        v = re.match(r"v?(\d+)", p.name)
        key = (m.get("last-updated-ms", 0), m.get("last-sequence-number", 0), int(v.group(1)) if v else -1)
        if best is None or key > best[0]:
            best = (key, p)
    if best is None:
        raise SystemExit(f"{d}: no metadata.json")
    return best[1].relative_to(d).as_posix()


def select_fixtures(names: list[str]) -> tuple[list[Fixture], list[tuple[str, str]]]:
    chosen, skipped = [], []
    dirs = [FIXTURES / n for n in names] if names else sorted(p for p in FIXTURES.iterdir() if p.is_dir())
    for d in dirs:
        if not d.is_dir():
            raise SystemExit(f"no fixture {d}")
        f = d / "facts.json"
        if not f.is_file():
            skipped.append((d.name, "no facts.json"))
            continue
        facts = json.loads(f.read_text())
        prefix = (facts.get("export") or {}).get("prefix")
        if not prefix:
            skipped.append((d.name, "facts.json has no export.prefix"))
        elif prefix.startswith("s3://") or prefix.startswith("file:/"):
            chosen.append(Fixture(d, facts, prefix))
        else:
            skipped.append((d.name, f"export.prefix {prefix} is neither s3:// nor file:/"))
    return chosen, skipped


# ---------------------------------------------------------------- staging


def stage_s3(sw, fx: Fixture) -> dict:
    bucket, _, key_prefix = fx.prefix[len("s3://"):].partition("/")
    c = sw.s3()
    if bucket not in {b["Name"] for b in c.list_buckets().get("Buckets", [])}:
        c.create_bucket(Bucket=bucket)
    n = size = 0
    for rel, p in fx.table_files():
        c.upload_file(str(p), bucket, key_prefix + rel)
        n, size = n + 1, size + p.stat().st_size
    return {"objects": n, "bytes": size, "to": f"s3://{bucket}/{key_prefix}"}


def run(cmd: list[str]):
    subprocess.run(cmd, check=True)


def mount_local(fixtures: list[Fixture], tmp: Path) -> dict:
    """In this process's private mount namespace: each file:// fixture's files, copied to `tmp`, appear at
    the path its metadata names. Where that path's parent folders do not exist (/work/h10b/…), the
    deepest existing one gets a tmpfs on which its entries are bound back, plus the missing folders.
    Nothing outside the namespace sees any of it; the real file system only gets the copy in `tmp`."""
    staged = {}
    for fx in fixtures:
        target = fx.local_prefix()
        copy = tmp / "local" / fx.name
        n = size = 0
        for rel, p in fx.table_files():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, copy / rel)
            n, size = n + 1, size + p.stat().st_size
        if not target.exists():
            base = target
            while not base.exists():
                base = base.parent
            if base == Path("/"):
                raise SystemExit(f"{fx.name}: will not cover / to make {target}")
            orig = tmp / "orig"
            orig.mkdir()
            run(["mount", "--rbind", str(base), str(orig)])
            run(["mount", "-t", "tmpfs", "-o", "mode=755", "icescope-stage", str(base)])
            for e in sorted(os.listdir(orig)):
                src, dst = orig / e, base / e
                if src.is_symlink():
                    os.symlink(os.readlink(src), dst)
                    continue
                if src.is_dir():
                    dst.mkdir()
                else:
                    dst.touch()
                run(["mount", "--rbind", str(src), str(dst)])
            # the binds above are mounts of their own: the helper view of `base` goes before anything
            # could delete through it
            run(["umount", "--lazy", "--recursive", str(orig)])
            orig.rmdir()
            target.mkdir(parents=True)
        run(["mount", "--bind", str(copy), str(target)])
        staged[fx.name] = {"objects": n, "bytes": size, "to": fx.prefix, "how": "copied to a temporary folder "
                           "bound at this path in a private mount namespace (unshare --mount)"}
    return staged


# ---------------------------------------------------------------- the script


def script_text(fx: Fixture, out_uri: str, builtin: bool) -> tuple[dict, str]:
    if builtin:
        return {"source": "builtin (the spec of icescope spark-export)"}, \
            BUILTIN_SCRIPT.replace("'D/", f"'{out_uri}/").replace(" T.", f" {fx.ident}.")
    cmd = ["cargo", "run", "-q", "--bin", "icescope", "--", "spark-export", "--table", fx.ident, "--to", out_uri]
    for attempt in range(4):
        # the sources may be mid-edit (a build error): wait for them a little
        p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
        if p.returncode == 0 or "error[" not in p.stderr:
            break
        log(f"[{fx.name}] icescope does not build right now, attempt {attempt + 1} of 4; retrying in 30 s")
        time.sleep(30)
    if p.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` failed ({p.returncode}):\n{p.stderr.strip()}\n"
                           "(run with --builtin-script to use the script the command was specified with)")
    shown = " ".join(cmd[6:]).replace(out_uri, f"file://<repo>/tests/spark-exports/{fx.name}")
    return {"source": "icescope spark-export", "command": f"icescope {shown}"}, p.stdout


def statements(text: str) -> list[str]:
    """Statements end with `;` at a line end; `--` comment lines and blank lines are skipped."""
    out, buf = [], []
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("--"):
            continue
        buf.append(line.rstrip())
        if s.endswith(";"):
            out.append("\n".join(buf)[:-1].strip())
            buf = []
    if buf:
        out.append("\n".join(buf).strip())
    return out


DIRECTORY = re.compile(r"^\s*INSERT\s+OVERWRITE\s+(?:LOCAL\s+)?DIRECTORY\s+'((?:[^'\\]|\\.)*)'", re.I)


def target_dir(stmt: str) -> str | None:
    m = DIRECTORY.match(stmt)
    return re.sub(r"\\(.)", r"\1", m.group(1)) if m else None


def local(uri: str) -> Path:
    return Path("/" + re.sub(r"^file:/+", "", uri)) if uri.startswith("file:") else Path(uri)


# ---------------------------------------------------------------- Spark


def configure_catalogs(spark, sw, tmp: Path):
    """Two Iceberg JdbcCatalogs on in-memory Derby databases (Derby ships with pyspark): `mem` reads with
    S3FileIO from the SeaweedFS endpoint, `memfs` with HadoopFileIO from local paths. Iceberg's own
    InMemoryCatalog would do, but it always uses InMemoryFileIO: register_table finds no file there."""
    spark._jvm.java.lang.System.setProperty("derby.stream.error.file", str(tmp / "derby.log"))
    c = spark.conf
    for name, io, wh in (("mem", "org.apache.iceberg.aws.s3.S3FileIO", "s3://warehouse/spark-export"),
                         ("memfs", "org.apache.iceberg.hadoop.HadoopFileIO", (tmp / "warehouse").as_uri())):
        p = f"spark.sql.catalog.{name}"
        c.set(p, "org.apache.iceberg.spark.SparkCatalog")
        c.set(f"{p}.catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")
        c.set(f"{p}.uri", f"jdbc:derby:memory:icescope_{name};create=true")
        c.set(f"{p}.jdbc.schema-version", "V1")
        c.set(f"{p}.warehouse", wh)
        c.set(f"{p}.io-impl", io)
        c.set(f"{p}.cache-enabled", "false")
        if name == "mem" and sw is not None:
            c.set(f"{p}.s3.endpoint", sw.s3_endpoint)
            c.set(f"{p}.s3.path-style-access", "true")
            c.set(f"{p}.client.region", sw.region)
            c.set(f"{p}.s3.access-key-id", sw.key)
            c.set(f"{p}.s3.secret-access-key", sw.secret)


def spark_error(e: Exception) -> str:
    """Spark's own message (the first lines of the Java exception), not the Py4J wrapping."""
    desc = getattr(e, "desc", None) or str(e)
    return "\n".join(desc.strip().splitlines()[:12])


def export(spark, fx: Fixture) -> dict:
    t0 = time.time()
    out = EXPORTS / fx.name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    out_uri = out.as_uri()
    src, text = fx.script
    stmts = statements(text)
    log(f"[{fx.name}] {len(stmts)} statements from {src['source']}; registering {fx.metadata_file} as {fx.ident}")
    # no CREATE NAMESPACE: its existence check ends in LIMIT 1, which Derby does not know; the JDBC
    # catalog registers a table in a namespace nobody created (jdbc.strict-mode is off)
    spark.sql(f"CALL {fx.catalog}.system.register_table(table => '{fx.ns}.{fx.table}', metadata_file => '{fx.metadata_file}')")
    result = {
        "generated_by": "tests/lab/run_spark_export.sh",
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": None,
        "identifier": fx.ident,
        "catalog": {"impl": "org.apache.iceberg.jdbc.JdbcCatalog on an in-memory Derby database",
                    "io": "S3FileIO on SeaweedFS" if fx.kind == "s3" else "HadoopFileIO"},
        "table_prefix": fx.prefix,
        "metadata_file_registered": fx.metadata_file,
        "script": {**src,
                   "statements": [s.replace(out_uri, f"file://<repo>/tests/spark-exports/{fx.name}") for s in stmts]},
        "folders": {},
        "errors": [],
    }
    last_select = None
    for i, s in enumerate(stmts):
        log(f"[{fx.name}] {i + 1}/{len(stmts)} {s[:110]}{'…' if len(s) > 110 else ''}")
        try:
            df = spark.sql(s)
            if re.match(r"^\s*(SELECT|WITH)\b", s, re.I):
                last_select = {"statement": s, "rows": [[_j(v) for v in r] for r in df.collect()]}
        except Exception as e:  # noqa: BLE001 - Spark's error goes into the report verbatim
            msg = spark_error(e)
            log(f"[{fx.name}] Spark error:\n{msg}")
            result["errors"].append({"statement": s, "error": msg})
            continue
        d = target_dir(s)
        if d:
            name = d.rstrip("/").rsplit("/", 1)[-1]
            result["folders"][name] = {"rows": spark.read.parquet(d).count()}
            if name in METADATA_TABLES:
                result["folders"][name]["table_rows"] = spark.sql(f"SELECT count(*) FROM {fx.ident}.{name}").first()[0]
            elif name == "all_manifests_by_snapshot":
                result["folders"][name]["all_manifests_rows"] = spark.sql(f"SELECT count(*) FROM {fx.ident}.all_manifests").first()[0]
    # Spark's side files: the _SUCCESS markers and the Hadoop checksums (.*.crc)
    for p in sorted(out.rglob("*")):
        if p.is_file() and (p.name == "_SUCCESS" or (p.name.startswith(".") and p.name.endswith(".crc"))):
            p.unlink()
    for name, f in result["folders"].items():
        parts = sorted(x for x in (out / name).glob("*") if x.is_file())
        f["files"] = [x.name for x in parts]
        f["bytes"] = sum(x.stat().st_size for x in parts)
    result["last_select"] = last_select
    if last_select and last_select["rows"] and last_select["rows"][0]:
        result["current_metadata_file"] = last_select["rows"][0][0]
    result["elapsed_ms"] = int((time.time() - t0) * 1000)
    return result


def _j(v):
    if hasattr(v, "isoformat"):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    return v


# ---------------------------------------------------------------- checks against the raw metadata


def checks(fx: Fixture, r: dict) -> list[str]:
    """What the folders' row counts must be, from the fixture's own files (no Spark)."""
    from fastavro import reader
    m = json.loads((fx.dir / fx.metadata_rel).read_text())
    snaps = m.get("snapshots", [])
    cur = m.get("current-snapshot-id")
    cur = None if cur in (None, -1) else cur

    def norm(uri: str) -> str:  # file:///x and file:/x are the same file
        return re.sub(r"^file:/+", "file:/", uri)

    def avro(path: str) -> list[dict]:
        assert norm(path).startswith(norm(fx.prefix)), path
        with open(fx.dir / norm(path)[len(norm(fx.prefix)):], "rb") as fh:
            return list(reader(fh))

    want = {"snapshots": len(snaps), "history": len(m.get("snapshot-log", [])),
            "metadata_log_entries": len(m.get("metadata-log", [])) + 1,
            "refs": len(m.get("refs") or ({"main": 1} if cur else {}))}
    if cur:
        snap = next(s for s in snaps if s["snapshot-id"] == cur)
        mans = avro(snap["manifest-list"])
        want["manifests"] = len(mans)
        want["entries"] = sum(len(avro(x["manifest_path"])) for x in mans)
    all_mans = sum(len(avro(s["manifest-list"])) for s in snaps)
    final = (fx.facts.get("final_table") or {}).get("snapshots")
    problems = []
    for name, n in want.items():
        got = r["folders"].get(name, {}).get("rows")
        if got != n:
            problems.append(f"{name}: {got} rows, the metadata says {n}")
    if final is not None and r["folders"].get("snapshots", {}).get("rows") != len(final):
        problems.append(f"snapshots: {r['folders']['snapshots']['rows']} rows, facts.json final_table has {len(final)}")
    ams = r["folders"].get("all_manifests_by_snapshot")
    if ams is not None and ams.get("all_manifests_rows") != all_mans:
        problems.append(f"all_manifests: {ams.get('all_manifests_rows')} rows, the manifest lists have {all_mans}")
    for name, f in r["folders"].items():
        if "table_rows" in f and f["table_rows"] != f["rows"]:
            problems.append(f"{name}: wrote {f['rows']} rows, Spark counts {f['table_rows']} in the table")
        if len(f.get("files", [])) != 1:
            problems.append(f"{name}: {len(f.get('files', []))} files, not one")
    if r.get("current_metadata_file", "").split("/")[-1] != fx.metadata_rel.split("/")[-1]:
        problems.append(f"the last SELECT says {r.get('current_metadata_file')}, registered {fx.metadata_file}")
    r["checked_against_metadata"] = {"expected_rows": want, "all_manifests_rows": all_mans, "problems": problems}
    return problems


# ---------------------------------------------------------------- snapshot diffs (diffs.json)

# The live files of one snapshot: its `entries` as of that snapshot, status EXISTING (0) or ADDED (1).
# Spark 3.5 time-travels a metadata table with `VERSION AS OF <snapshot id>` (Iceberg's SparkCatalog
# resolves `<table>.entries` at that snapshot); the DataFrame reader's `snapshot-id` option reads the
# same thing and is run beside it as a cross-check (and is what is used if the SQL form fails).
LIVE_COLUMNS = ["snapshot_id", "data_file.file_path AS path", "data_file.content AS content",
                "data_file.file_format AS file_format", "data_file.record_count AS records",
                "data_file.file_size_in_bytes AS bytes", "data_file.content_offset AS content_offset",
                "data_file.content_size_in_bytes AS content_size_in_bytes",
                "data_file.referenced_data_file AS referenced_data_file"]
LIVE_SQL = "SELECT {cols} FROM {ident}.entries VERSION AS OF {sid} WHERE status < 2"
LIVE_DF = 'spark.read.format("iceberg").option("snapshot-id", "{sid}").load("{ident}.entries").where("status < 2")'


def _partition(p) -> dict:
    """data_file.partition as {field: string}; a day is its date (2026-11-28); null stays null."""
    if p is None:
        return {}
    return {k: (None if v is None else str(v)) for k, v in p.asDict().items()}


def _file(row) -> dict:
    f = {"path": row["path"], "content": row["content"], "records": row["records"], "bytes": row["bytes"],
         "partition": _partition(row["partition"]), "file_format": row["file_format"],
         "added_snapshot_id": str(row["snapshot_id"])}
    # a deletion vector (v3): one blob of a Puffin file that holds several
    for k in ("content_offset", "content_size_in_bytes", "referenced_data_file"):
        if row[k] is not None:
            f[k] = row[k]
    return f


def _key(f: dict) -> tuple:
    """A file by path and content; a deletion vector by its Puffin file and the blob's offset."""
    return (f["path"], f["content"], f.get("content_offset"))


def _skey(k: tuple) -> tuple:
    return (k[0], k[1], -1 if k[2] is None else k[2])


def live_files(spark, fx: Fixture, sid: int, has_partition: bool, how: dict) -> list[dict]:
    cols = LIVE_COLUMNS + ["data_file.partition AS partition" if has_partition else "NULL AS partition"]
    rows = None
    if how.get("sql", True):
        try:
            rows = spark.sql(LIVE_SQL.format(cols=", ".join(cols), ident=fx.ident, sid=sid)).collect()
        except Exception as e:  # noqa: BLE001 - fall back to the reader option, and say so
            how["sql"] = False
            how["sql_error"] = spark_error(e)
            log(f"[{fx.name}] VERSION AS OF on entries failed, using the snapshot-id option:\n{how['sql_error']}")
    df_rows = (spark.read.format("iceberg").option("snapshot-id", str(sid)).load(f"{fx.ident}.entries")
               .where("status < 2").selectExpr(*cols).collect())
    files = sorted((_file(r) for r in (rows if rows is not None else df_rows)), key=lambda f: _skey(_key(f)))
    if rows is not None:
        other = sorted((_file(r) for r in df_rows), key=lambda f: _skey(_key(f)))
        how["cross_checked"] = how.get("cross_checked", True) and other == files
        if other != files:
            how.setdefault("cross_check_mismatches", []).append(str(sid))
    return files


def snapshot_pairs(spark, fx: Fixture) -> tuple[list[tuple[str, int, int]], list[str], dict]:
    """(name, A, B): first in commit order → current, current's parent → current, and with several
    flink.job-id values the first job's last snapshot → the last job's last snapshot (jobs ordered by
    their first commit). Commit order: the snapshots table by committed_at."""
    snaps = spark.sql(f"SELECT snapshot_id, parent_id, committed_at, summary FROM {fx.ident}.snapshots "
                      "ORDER BY committed_at, snapshot_id").collect()
    notes = []
    if not snaps:
        return [], ["no snapshots"], {}
    times = [s["committed_at"] for s in snaps]
    if len(set(times)) != len(times):
        notes.append("two snapshots share a committed_at: commit order among them is by snapshot id")
    refs = spark.sql(f"SELECT snapshot_id FROM {fx.ident}.refs WHERE name = 'main' AND type = 'BRANCH'").collect()
    if not refs:
        return [], notes + ["no main branch"], {}
    cur = refs[0]["snapshot_id"]
    by_id = {s["snapshot_id"]: s for s in snaps}
    pairs = [("first→current", snaps[0]["snapshot_id"], cur)]
    parent = by_id[cur]["parent_id"] if cur in by_id else None
    if parent is None:
        notes.append("the current snapshot has no parent: no parent→current pair")
    elif parent not in by_id:
        notes.append(f"the current snapshot's parent {parent} is expired: no parent→current pair")
    else:
        pairs.append(("parent→current", parent, cur))
    jobs: dict[str, list[int]] = {}
    for s in snaps:
        j = (s["summary"] or {}).get("flink.job-id")
        if j:
            jobs.setdefault(j, []).append(s["snapshot_id"])
    order = list(jobs)
    if len(order) > 1:
        pairs.append(("jobs", jobs[order[0]][-1], jobs[order[-1]][-1]))
    summaries = {s["snapshot_id"]: dict(s["summary"] or {}) for s in snaps}
    return pairs, notes, {"jobs": order, "summaries": summaries}


def diffs(spark, fx: Fixture) -> tuple[dict, list[str]]:
    t0 = time.time()
    problems = []
    pairs, notes, info = snapshot_pairs(spark, fx)
    has_partition = "partition" in spark.table(f"{fx.ident}.entries").schema["data_file"].dataType.fieldNames()
    how: dict = {}
    live: dict[int, list[dict]] = {}
    for _, a, b in pairs:
        for sid in (a, b):
            if sid not in live:
                live[sid] = live_files(spark, fx, sid, has_partition, how)
                seen = {}
                for f in live[sid]:
                    if _key(f) in seen:
                        problems.append(f"snapshot {sid}: {_key(f)} is live twice")
                    seen[_key(f)] = f
                # the snapshot's own totals say the same (where its summary has them)
                summ = info["summaries"].get(sid, {})
                got = {"total-data-files": sum(f["content"] == 0 for f in live[sid]),
                       "total-delete-files": sum(f["content"] != 0 for f in live[sid]),
                       "total-records": sum(f["records"] for f in live[sid] if f["content"] == 0)}
                for k, v in got.items():
                    if k in summ and int(summ[k]) != v:
                        problems.append(f"snapshot {sid}: {v} live per entries, its summary's {k} is {summ[k]}")
    out_pairs = []
    for name, a, b in pairs:
        before = {_key(f): f for f in live[a]}
        after = {_key(f): f for f in live[b]}
        out_pairs.append({
            "name": name, "from": str(a), "to": str(b),
            "added": [f for k, f in sorted(after.items(), key=lambda x: _skey(x[0])) if k not in before],
            "removed": [f for k, f in sorted(before.items(), key=lambda x: _skey(x[0])) if k not in after],
            "live": {"from": len(live[a]), "to": len(live[b])},
        })
        log(f"[{fx.name}] diff {name} {a} → {b}: +{len(out_pairs[-1]['added'])} −{len(out_pairs[-1]['removed'])} files")
    if how.get("sql", True) and how.get("cross_checked") is False:
        problems.append(f"VERSION AS OF and the snapshot-id option disagree at {how['cross_check_mismatches']}")
    queried = (LIVE_SQL.format(cols="<columns>", ident=fx.ident, sid="<snapshot id>") if how.get("sql", True)
               else LIVE_DF.format(sid="<snapshot id>", ident=fx.ident))
    result = {
        "generated_by": "tests/lab/run_spark_export.sh",
        "queried_with": queried,
        "columns": LIVE_COLUMNS + ["data_file.partition AS partition" if has_partition else "(no data_file.partition: unpartitioned)"],
        "cross_checked_with": (LIVE_DF.format(sid="<snapshot id>", ident=fx.ident) + ": the same rows"
                               if how.get("sql", True) and how.get("cross_checked") else None),
        "sql_error": how.get("sql_error"),
        "key": "(path, content, content_offset): a deletion vector is one blob of its Puffin file",
        "commit_order": "the snapshots table by committed_at; jobs ordered by their first commit",
        "flink_jobs": info.get("jobs", []),
        "notes": notes,
        "pairs": out_pairs,
        "problems": problems,
        "elapsed_ms": int((time.time() - t0) * 1000),
    }
    return result, problems


# ---------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="*", help="fixture folder names (default: every fixture that can be staged)")
    ap.add_argument("--builtin-script", action="store_true",
                    help="run the script icescope spark-export was specified with instead of calling the command")
    ap.add_argument(NS_FLAG, action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    t_start = time.time()

    fixtures, skipped = select_fixtures(args.scenarios)
    locals_ = [f for f in fixtures if f.kind == "file"]
    if locals_ and not args.in_mount_namespace:
        # A private mount namespace for the whole run (the JVM and SeaweedFS inherit it).
        if os.geteuid() != 0 or not shutil.which("unshare"):
            for f in locals_:
                log(f"skip {f.name}: its paths are {f.prefix} and staging them needs root and unshare(1)")
            fixtures = [f for f in fixtures if f.kind != "file"]
        else:
            os.execv(shutil.which("unshare"), ["unshare", "--mount", "--propagation", "private",
                                               sys.executable, __file__, NS_FLAG, *sys.argv[1:]])
    for name, why in skipped:
        log(f"skip {name}: {why}")
    if not fixtures:
        log("nothing to export")
        return 1
    # every script first (icescope's sources may be changing under us; Spark waits for nothing)
    failed = []
    for fx in list(fixtures):
        try:
            fx.script = script_text(fx, (EXPORTS / fx.name).as_uri(), args.builtin_script)
        except RuntimeError as e:
            log(f"[{fx.name}] FAILED: {e}")
            failed.append(fx.name)
            fixtures.remove(fx)
    if not fixtures:
        return 1

    import catalogkit as ck
    import labkit

    tmp = Path(tempfile.mkdtemp(prefix="icescope-lab-spark-export-"))
    sw = root = None
    try:
        staged = mount_local([f for f in fixtures if f.kind == "file"], tmp)
        if any(f.kind == "s3" for f in fixtures):
            root = ck.new_root()
            for attempt in range(3):
                try:
                    sw = ck.start_seaweed(ck.weed_binary(), root, attempt)
                    break
                except (RuntimeError, TimeoutError) as e:
                    log(f"SeaweedFS attempt {attempt}: {e}")
            if sw is None:
                raise SystemExit("SeaweedFS did not start")
            ck.RUNNING.append(sw)
            log(f"SeaweedFS {sw.version} S3 on {sw.s3_endpoint}")
            for fx in fixtures:
                if fx.kind == "s3":
                    staged[fx.name] = stage_s3(sw, fx)
                    log(f"[{fx.name}] staged {staged[fx.name]['objects']} objects at {staged[fx.name]['to']}")
        labkit.SPARK_CATALOGS = set()  # neither the lab's REST catalog nor its Hadoop one: only ours
        spark = labkit.spark()
        configure_catalogs(spark, sw, tmp)
        jvm = spark._jvm
        versions = {
            "spark": spark.version,
            "iceberg": jvm.org.apache.iceberg.IcebergBuild.version(),
            "iceberg_spark_runtime": "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.11.0",
            "iceberg_aws_bundle": "org.apache.iceberg:iceberg-aws-bundle:1.11.0",
            "java": jvm.java.lang.System.getProperty("java.version"),
            "seaweedfs": sw.version if sw else None,
        }
        log(f"Spark {versions['spark']}, Iceberg {versions['iceberg']}")
        for fx in fixtures:
            try:
                r = export(spark, fx)
            except Exception as e:  # noqa: BLE001
                log(f"[{fx.name}] FAILED: {spark_error(e)}")
                failed.append(fx.name)
                continue
            r["versions"] = versions
            r["staged"] = staged[fx.name]
            problems = checks(fx, r) + [f"Spark error in: {e['statement'][:80]}" for e in r["errors"]]
            try:
                d, dp = diffs(spark, fx)
                (EXPORTS / fx.name / "diffs.json").write_text(json.dumps(d, indent=1) + "\n")
                problems += [f"diffs: {p}" for p in dp]
            except Exception as e:  # noqa: BLE001
                problems.append(f"diffs: {spark_error(e)}")
            (EXPORTS / fx.name / "export.json").write_text(json.dumps(r, indent=2) + "\n")
            # The user's step the script's comment asks for: the metadata.json Spark read, beside
            # its tables (schemas, specs, properties are not in Spark's metadata tables).
            registered = fx.metadata_file.rsplit("/", 1)[1]
            shutil.copyfile(fx.dir / "metadata" / registered, EXPORTS / fx.name / registered)
            total = sum(p.stat().st_size for p in (EXPORTS / fx.name).rglob("*") if p.is_file())
            rows = ", ".join(f"{k} {v['rows']}" for k, v in r["folders"].items())
            log(f"=== {fx.name}: {'ok' if not problems else 'PROBLEMS'} in {r['elapsed_ms'] / 1000:.0f} s, "
                f"{total} bytes; {rows}")
            for p in problems:
                log(f"    {fx.name}: {p}")
            if problems:
                failed.append(fx.name)
    finally:
        labkit.stop_all()
        if sw is not None:
            sw.stop()
            ck.RUNNING.remove(sw)
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)
        # the copies (bound at the table paths, which die with the namespace); never through a mount
        mounts = [ln.split()[1] for ln in Path("/proc/self/mounts").read_text().splitlines()]
        if any(m == str(tmp) or m.startswith(f"{tmp}/") for m in mounts):
            log(f"left {tmp} in place: something is mounted below it")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    log(f"spark export done in {time.time() - t_start:.0f} s: {sum(f.name not in failed for f in fixtures)} ok"
        + (f", failed: {' '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

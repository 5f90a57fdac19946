"""Regenerate the app's bundled example tables under public/examples/.

    tests/.venv/bin/python tests/lab/make_examples.py

Every byte of every example is written by a real Iceberg writer (PyIceberg here); this script
only decides what to write and copies the finished table folder. Row values are seeded, so the
structure (snapshots, files, rows per commit) is the same on every run; snapshot ids, uuids and
commit times come from the writer and change.

Paths inside the metadata stay as the writer wrote them (file:///tmp/…): the app resolves
files by path suffix, exactly as it must for tables copied off S3.

Each example gets a facts.json: what the writer and this script saw at commit time, which
tests/py/test_examples_facts.py holds the app's reading against.

Why no DuckDB-written example: see tests/lab/BLOCKED-position-deletes.md.
"""

import json
import random
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pyarrow as pa
import pyiceberg
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import EqualTo, LessThan
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform
from pyiceberg.types import DoubleType, LongType, NestedField, StringType, TimestamptzType

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "public" / "examples"
EPOCH = datetime(2024, 3, 1, tzinfo=timezone.utc)
KINDS = ("view", "click", "purchase", "refund")
CHANNELS = ("web", "ios", "android")

EVENTS_SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "ts", TimestamptzType(), required=True),
    NestedField(3, "kind", StringType(), required=False),
    NestedField(4, "amount", DoubleType(), required=False),
)
# Named ts_day as Spark and Flink name a day partition of ts, so the paths look familiar.
BY_DAY = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=DayTransform(), name="ts_day"))


@dataclass
class Recorder:
    """Collects facts.json: one entry per writer call, with the snapshots that call created."""

    table: object
    commits: list = field(default_factory=list)
    expected_rows: int = 0  # this script's own running count, independent of any reader

    def commit(self, action: str, run, rows_added: int = 0, rows_removed: int = 0, **extra):
        before = {s.snapshot_id for s in self.table.metadata.snapshots}
        run()
        created = [s for s in self.table.metadata.snapshots if s.snapshot_id not in before]
        self.expected_rows += rows_added - rows_removed
        self.commits.append(
            {
                "action": action,
                "snapshot_ids": [s.snapshot_id for s in created],
                "operations": [s.summary.operation.value for s in created],
                "rows_added": rows_added,
                "rows_removed": rows_removed,
                "schema_id": self.table.metadata.current_schema_id,
                # What PyIceberg itself wrote into each snapshot summary, for comparison.
                "writer_summaries": [dict(s.summary.additional_properties) for s in created],
                **extra,
            }
        )

    def facts(self, **extra) -> dict:
        scanned = self.table.scan().to_arrow().num_rows
        if scanned != self.expected_rows:
            sys.exit(f"writer disagrees with script: scan has {scanned} rows, script wrote {self.expected_rows}")
        return {
            "writer": f"pyiceberg {pyiceberg.__version__} (pyarrow {pa.__version__})",
            "format_version": self.table.metadata.format_version,
            "current_snapshot_id": self.table.metadata.current_snapshot_id,
            "total_rows_scanned": scanned,
            "total_rows_expected": self.expected_rows,
            "commits": self.commits,
            **extra,
        }


def event_rows(rng: random.Random, first_id: int, days: list[int], per_day: int, channel: bool) -> list[dict]:
    """A batch of events spread over the given day offsets from EPOCH."""
    rows = []
    for day in days:
        for _ in range(rng.randint(per_day // 2, per_day)):
            row = {
                "id": first_id + len(rows),
                "ts": EPOCH + timedelta(days=day, seconds=rng.randrange(86_400)),
                "kind": rng.choice(KINDS),
                "amount": round(rng.uniform(1, 200), 2),
            }
            if channel:
                row["channel"] = rng.choice(CHANNELS)
            rows.append(row)
    return rows


def batch_days(rng: random.Random, commit: int) -> list[int]:
    """Days one micro-batch touches: mostly today, sometimes late data for the previous 1-2 days
    (so most snapshots add 1-3 files, one per day partition)."""
    today = commit // 3
    late = rng.choice((0, 1, 1, 2))
    return sorted({max(0, today - back) for back in range(late + 1)})


def append(rec: Recorder, rows: list[dict]):
    arrow = pa.Table.from_pylist(rows, schema=rec.table.schema().as_arrow())
    days = {r["ts"].date().isoformat() for r in rows}
    rec.commit(
        "append",
        lambda: rec.table.append(arrow),
        rows_added=len(rows),
        data_files_expected=len(days),
        days=sorted(days),
    )


def new_catalog(workdir: Path) -> SqlCatalog:
    catalog = SqlCatalog(
        "lab",
        uri=f"sqlite:///{workdir / 'catalog.db'}",
        warehouse=(workdir / "warehouse").as_uri(),
    )
    catalog.create_namespace("lab")
    return catalog


def daily_appends(catalog: SqlCatalog) -> tuple[Path, dict]:
    """~24 small appends into a day-partitioned table, a column added, 6 more appends."""
    table = catalog.create_table(
        "lab.events", schema=EVENTS_SCHEMA, partition_spec=BY_DAY, properties={"format-version": "2"}
    )
    rec, rng, next_id = Recorder(table), random.Random(20240301), 1
    for commit in range(24):
        rows = event_rows(rng, next_id, batch_days(rng, commit), per_day=12, channel=False)
        append(rec, rows)
        next_id += len(rows)

    schema_before = table.metadata.current_schema_id
    with table.update_schema() as update:
        update.add_column("channel", StringType(), doc="where the event came from; added on day 8")
    schema_after = table.metadata.current_schema_id

    for commit in range(24, 30):
        rows = event_rows(rng, next_id, batch_days(rng, commit), per_day=12, channel=True)
        append(rec, rows)
        next_id += len(rows)
    facts = rec.facts(
        schema_change={"added_column": "channel", "schema_id_before": schema_before, "schema_id_after": schema_after},
    )
    return table_folder(table), facts


def delete_overwrite(catalog: SqlCatalog) -> tuple[Path, dict]:
    """Appends, then two copy-on-write deletes: one that drops whole files (a day partition),
    one that rewrites files to drop some of their rows, then more appends."""
    table = catalog.create_table(
        "lab.orders", schema=EVENTS_SCHEMA, partition_spec=BY_DAY, properties={"format-version": "2"}
    )
    rec, rng, next_id, written = Recorder(table), random.Random(20240401), 1, []
    for commit in range(8):
        rows = event_rows(rng, next_id, batch_days(rng, commit), per_day=10, channel=False)
        append(rec, rows)
        written += rows
        next_id += len(rows)

    first_day = EPOCH + timedelta(days=1)
    dropped = [r for r in written if r["ts"] < first_day]
    written = [r for r in written if r["ts"] >= first_day]
    delete(rec, LessThan("ts", first_day.isoformat()), len(dropped), "drop day 0 (whole files)")

    refunds = [r for r in written if r["kind"] == "refund"]
    written = [r for r in written if r["kind"] != "refund"]
    delete(rec, EqualTo("kind", "refund"), len(refunds), "remove refunds (rewrites files)")

    for commit in range(8, 11):
        rows = event_rows(rng, next_id, batch_days(rng, commit), per_day=10, channel=False)
        append(rec, rows)
        next_id += len(rows)
    return table_folder(table), rec.facts()


def delete(rec: Recorder, predicate, rows_removed: int, why: str):
    with warnings.catch_warnings():
        # PyIceberg only warns when a delete matches nothing; here that would be a broken example.
        warnings.filterwarnings("error", message="Delete operation did not match any records")
        rec.commit("delete", lambda: rec.table.delete(predicate), rows_removed=rows_removed,
                   predicate=str(predicate), why=why)


def table_folder(table) -> Path:
    return Path(table.location().removeprefix("file://"))


def copy_table(src: Path, dest: Path) -> list[str]:
    """metadata/ and data/ only, as written; no catalog db, no Hadoop .crc side files."""
    if dest.exists():
        shutil.rmtree(dest)
    for sub in ("metadata", "data"):
        shutil.copytree(src / sub, dest / sub, ignore=shutil.ignore_patterns("*.crc", ".*"))
    return sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())


def newest_metadata(files: list[str]) -> str:
    """PyIceberg names metadata files `<5-digit version>-<uuid>.metadata.json`."""
    return max(f for f in files if f.startswith("metadata/") and f.endswith(".metadata.json"))


@dataclass
class Example:
    name: str
    title: str
    caption: str
    build: Callable[[SqlCatalog], tuple[Path, dict]]  # returns the table folder and its facts


EXAMPLES = [
    Example(
        "pyiceberg-daily-appends",
        "Daily appends with a schema change",
        "PyIceberg (SqlCatalog on SQLite, local warehouse) appended 24 small micro-batches to a "
        "format v2 events table partitioned by day(ts); each batch writes today's events and "
        "sometimes late events for the previous one or two days, so most snapshots add one to "
        "three Parquet files and fast-append one manifest. Then a `channel` column was added "
        "(schema 0 to 1) and six more batches wrote it.",
        daily_appends,
    ),
    Example(
        "pyiceberg-delete-overwrite",
        "Copy-on-write deletes",
        "PyIceberg (SqlCatalog on SQLite, local warehouse) appended 8 batches to a format v2 "
        "table partitioned by day(ts), then ran two copy-on-write deletes: `ts < day 1` dropped "
        "whole files (a delete snapshot), and `kind = 'refund'` rewrote the files that held "
        "refunds (an overwrite snapshot that removes and re-adds data files). Three more appends "
        "followed. PyIceberg writes no delete files: every delete is a rewrite.",
        delete_overwrite,
    ),
]


def clear_generated():
    """Remove earlier output of this script (folders with a facts.json), nothing else."""
    for facts in OUT.glob("*/facts.json"):
        shutil.rmtree(facts.parent)


def main():
    started = time.monotonic()
    OUT.mkdir(parents=True, exist_ok=True)
    clear_generated()
    index = []
    for example in EXAMPLES:
        with tempfile.TemporaryDirectory(prefix=f"icescope-{example.name}-") as tmp:
            folder, facts = example.build(new_catalog(Path(tmp)))
            files = copy_table(folder, OUT / example.name)
        (OUT / example.name / "facts.json").write_text(json.dumps(facts, indent=2) + "\n")
        index.append(
            {
                "name": example.name,
                "title": example.title,
                "caption": example.caption,
                "writer": facts["writer"],
                "metadata": newest_metadata(files),
                "files": files,
            }
        )
        size = sum((OUT / example.name / f).stat().st_size for f in files)
        print(f"{example.name}: {len(facts['commits'])} commits, {len(files)} files, {size / 1024:.0f} KiB")
    (OUT / "index.json").write_text(json.dumps({"examples": index}, indent=2) + "\n")
    print(f"wrote {OUT.relative_to(REPO)}/index.json in {time.monotonic() - started:.1f}s")


if __name__ == "__main__":
    main()

"""What the CLI should print, computed here by readers that share no code with it.

Per snapshot: file counts and records from DuckDB where DuckDB opens the table, else from
fastavro; manifest count and bytes always from fastavro (DuckDB does not report them);
ids, parents, sequence numbers and operations from the metadata JSON parsed by Python.
"""

from dataclasses import dataclass

import duckdb

import avro_counts
import duck_counts
from tables import Table, current_snapshot_id, snapshots


@dataclass
class Expected:
    counts: dict | None  # None: the manifest list (or a manifest) is not in the folder
    reader: str  # which reader produced the file counts, for failure messages


def snapshot_counts(table: Table, snapshot: dict) -> Expected:
    avro = avro_counts.snapshot_counts(table.folder, snapshot)
    if avro is None:
        return Expected(None, "fastavro: manifest list or manifest missing from the folder")
    expected = dict(avro)
    if avro["manifest_bytes"] is None:
        # v1 bare `manifests` array: no length was ever written, so there is nothing to hold
        # the CLI to.
        del expected["manifest_bytes"]
    try:
        expected.update(duck_counts.snapshot_counts(table, snapshot["snapshot-id"]))
        return Expected(expected, "duckdb iceberg_metadata")
    except (duckdb.Error, ValueError) as e:
        first_line = str(e).splitlines()[0]
        return Expected(expected, f"fastavro (DuckDB rejected it: {first_line})")


def table_fields(table: Table) -> dict:
    metadata = table.metadata()
    return {
        "location": metadata.get("location"),
        "format_version": metadata["format-version"],
        "current_snapshot_id": current_snapshot_id(metadata),
    }


def snapshot_fields(metadata: dict) -> dict[int, dict]:
    """Per snapshot id, the fields the metadata JSON states outright."""
    return {s["snapshot-id"]: _snapshot_fields(s) for s in snapshots(metadata)}


def _snapshot_fields(snapshot: dict) -> dict:
    summary = snapshot.get("summary") or {}
    return {
        "parent_id": snapshot.get("parent-snapshot-id"),
        # None for v1 snapshots, which carry none (the spec reads that as 0).
        "sequence_number": snapshot.get("sequence-number"),
        "committed_at_ms": snapshot["timestamp-ms"],
        "operation": summary.get("operation"),
        "flink_job_id": summary.get("flink.job-id"),
        "flink_operator_id": summary.get("flink.operator-id"),
        "flink_checkpoint_id": summary.get("flink.max-committed-checkpoint-id"),
    }

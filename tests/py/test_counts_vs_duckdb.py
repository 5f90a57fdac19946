"""The CLI's per-snapshot reading of every corpus table and bundled example, held against
readers that share no code with it (see expected.py). No number here is typed by hand."""

from datetime import datetime, timezone

import pytest

import cli
import expected
from params import corpus_params, example_params

TABLES = corpus_params() + example_params()


@pytest.mark.parametrize("table", TABLES)
def test_table_header(icescope, table):
    report = cli.inspect(table.metadata_file)
    want = expected.table_fields(table)
    got = report["table"]
    problems = [f"{k}: cli {got.get(k)!r} != metadata {v!r}" for k, v in want.items() if got.get(k) != v]
    if not str(got.get("metadata_file", "")).endswith(table.metadata_file.name):
        problems.append(f"metadata_file: cli {got.get('metadata_file')!r} is not {table.metadata_file.name}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("table", TABLES)
def test_folder_opens_newest_metadata(icescope, table):
    """Given the folder, the CLI picks the same newest metadata.json as tables.py does."""
    got = cli.inspect(table.folder)["table"]["metadata_file"]
    assert str(got).endswith(table.metadata_file.name), f"cli opened {got}, newest is {table.metadata_file.name}"


@pytest.mark.parametrize("table", TABLES)
def test_snapshot_fields_match_metadata_json(icescope, table):
    report = cli.by_snapshot_id(cli.inspect(table.metadata_file))
    want = expected.snapshot_fields(table.metadata())
    assert sorted(report) == sorted(want), "snapshot ids differ from the metadata JSON"
    problems = []
    for sid, fields in want.items():
        problems += [f"snapshot {sid} {p}" for p in field_problems(report[sid], fields)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("table", TABLES)
def test_snapshot_counts_match_independent_reader(icescope, table):
    report = cli.by_snapshot_id(cli.inspect(table.metadata_file))
    problems = []
    for snapshot in table.metadata().get("snapshots") or []:
        sid = snapshot["snapshot-id"]
        if sid not in report:
            problems.append(f"snapshot {sid} missing from the cli output")
            continue
        want = expected.snapshot_counts(table, snapshot)
        problems += [f"snapshot {sid} [{want.reader}] {p}" for p in count_problems(report[sid], want.counts, snapshot)]
    assert not problems, "\n".join(problems)


def count_problems(got: dict, want: dict | None, snapshot: dict) -> list[str]:
    if want is None:
        # The manifest list is not in the folder: the CLI must not pass a number off as counted.
        # It may show what the writer stated in the summary, marked as such, or nothing.
        if got.get("counts_from") is None:
            return [f"{k}: cli {got.get(k)!r}, expected null (unreadable)" for k in cli.COUNT_FIELDS_CLI
                    if got.get(k) is not None]
        if got["counts_from"] != "summary":
            return [f"counts_from: cli {got['counts_from']!r} for an unreadable snapshot, expected 'summary' or null"]
        summary = snapshot.get("summary") or {}
        stated = {"data_files": "total-data-files", "records": "total-records", "delete_files": "total-delete-files"}
        return [f"{k}: cli {got.get(k)!r} != summary {key} {summary.get(key)!r}" for k, key in stated.items()
                if got.get(k) != (int(summary[key]) if key in summary else None)] + (
                    [f"manifest_bytes: cli {got['manifest_bytes']!r} from a summary, which states none"]
                    if got.get("manifest_bytes") is not None else [])
    problems = [f"{k}: cli {got.get(k)!r} != {v!r}" for k, v in want.items() if got.get(k) != v]
    if got.get("counts_from") != "manifests":
        problems.append(f"counts_from: cli {got.get('counts_from')!r}, expected 'manifests' (all of its files are readable)")
    return problems


def field_problems(got: dict, want: dict) -> list[str]:
    problems = []
    for key in ("parent_id", "operation", "flink_job_id", "flink_operator_id"):
        if got.get(key) != want[key]:
            problems.append(f"{key}: cli {got.get(key)!r} != metadata {want[key]!r}")
    if not sequence_number_matches(got.get("sequence_number"), want["sequence_number"]):
        problems.append(f"sequence_number: cli {got.get('sequence_number')!r} != metadata {want['sequence_number']!r}")
    if as_str(got.get("flink_checkpoint_id")) != want["flink_checkpoint_id"]:
        problems.append(f"flink_checkpoint_id: cli {got.get('flink_checkpoint_id')!r} != summary {want['flink_checkpoint_id']!r}")
    if epoch_ms(got.get("committed_at")) != want["committed_at_ms"]:
        problems.append(f"committed_at: cli {got.get('committed_at')!r} != timestamp-ms {want['committed_at_ms']}")
    return problems


def sequence_number_matches(got, want) -> bool:
    # A v1 snapshot states none; the spec reads it as 0, so either 0 or null is honest.
    return got in (None, 0) if want is None else got == want


def as_str(value):
    """Summaries hold every value as a string; the CLI may print the checkpoint as a number."""
    return None if value is None else str(value)


def epoch_ms(value):
    """The CLI may print committed_at as epoch milliseconds or as an ISO-8601 string."""
    if value is None or isinstance(value, int):
        return value
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    if parsed.tzinfo is None:  # Iceberg times are UTC; never let the machine's zone leak in
        parsed = parsed.replace(tzinfo=timezone.utc)
    return round(parsed.timestamp() * 1000)

"""The bundled examples against what their writer reported when it wrote them (facts.json,
from tests/lab/make_examples.py), and index.json against the files on disk."""

import json

import pytest

import avro_counts
import cli
from tables import EXAMPLES, Table, newest_metadata_file, snapshots

INDEX = EXAMPLES / "index.json"


def index_entries() -> list:
    if not INDEX.is_file():
        return [pytest.param(None, id="index-missing", marks=pytest.mark.skip(
            reason=f"{INDEX} missing: run tests/lab/make_examples.py"))]
    return [pytest.param(e, id=e["name"]) for e in json.loads(INDEX.read_text())["examples"]]


def example_table(entry: dict) -> Table:
    folder = EXAMPLES / entry["name"]
    return Table(entry["name"], folder, folder / entry["metadata"])


def facts(entry: dict) -> dict:
    return json.loads((EXAMPLES / entry["name"] / "facts.json").read_text())


@pytest.mark.parametrize("entry", index_entries())
def test_index_lists_exactly_the_table_files(entry):
    folder = EXAMPLES / entry["name"]
    on_disk = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    # facts.json is the generator's record, not part of the table the app loads.
    assert sorted(entry["files"]) == [f for f in on_disk if f != "facts.json"]
    assert not [f for f in entry["files"] if f.endswith((".crc", ".db"))]
    newest = newest_metadata_file([p for p in (folder / "metadata").glob("*.metadata.json")])
    assert entry["metadata"] == newest.relative_to(folder).as_posix()


@pytest.mark.parametrize("entry", index_entries())
def test_facts_match_metadata_and_manifests(entry):
    """Without the CLI: every commit the writer reported is in the metadata, and the live
    records that fastavro counts move by exactly the rows the script added or removed."""
    table, fact = example_table(entry), facts(entry)
    metadata = table.metadata()
    assert metadata["current-snapshot-id"] == fact["current_snapshot_id"]
    counts = {s["snapshot-id"]: avro_counts.snapshot_counts(table.folder, s) for s in snapshots(metadata)}
    assert_commits_add_up(fact, counts, parents(metadata))
    assert counts[fact["current_snapshot_id"]]["records"] == fact["total_rows_scanned"]
    if "schema_change" in fact:
        assert_schema_change(metadata, fact)


@pytest.mark.parametrize("entry", index_entries())
def test_cli_agrees_with_facts(icescope, entry):
    table, fact = example_table(entry), facts(entry)
    report = cli.inspect(table.folder)
    assert report["table"]["current_snapshot_id"] == fact["current_snapshot_id"]
    shown = cli.by_snapshot_id(report)
    parent_of = {sid: s["parent_id"] for sid, s in shown.items()}
    assert_commits_add_up(fact, shown, parent_of)
    assert shown[fact["current_snapshot_id"]]["records"] == fact["total_rows_scanned"]


def parents(metadata: dict) -> dict:
    return {s["snapshot-id"]: s.get("parent-snapshot-id") for s in snapshots(metadata)}


def assert_commits_add_up(fact: dict, counts: dict, parent_of: dict):
    """Each writer call's snapshots together change the live counts by what the script
    counted: records by rows added minus removed, and for appends data files by the number
    of day partitions written. One delete() may commit a delete and an overwrite snapshot,
    so the check spans the call, from the parent of its first snapshot to its last.
    `counts` maps snapshot id to a dict with `records` and `data_files`."""
    problems = []
    for n, commit in enumerate(fact["commits"]):
        ids = commit["snapshot_ids"]
        missing = [sid for sid in ids if sid not in counts]
        if missing or not ids:
            problems.append(f"commit {n} ({commit['action']}): snapshots {missing or 'none'} not found")
            continue
        change = delta(counts, parent_of[ids[0]], ids[-1])
        label = f"commit {n} ({commit['action']}, snapshot {ids[-1]})"
        if change["records"] != commit["rows_added"] - commit["rows_removed"]:
            problems.append(f"{label}: records moved by {change['records']}, "
                            f"script added {commit['rows_added']} and removed {commit['rows_removed']}")
        if "data_files_expected" in commit and change["data_files"] != commit["data_files_expected"]:
            problems.append(f"{label}: {change['data_files']} data files added, "
                            f"script wrote {commit['data_files_expected']} day partitions")
    assert not problems, "\n".join(problems)


def delta(counts: dict, parent, child) -> dict:
    before = counts[parent] if parent is not None else {"records": 0, "data_files": 0}
    return {k: counts[child][k] - before[k] for k in ("records", "data_files")}


def assert_schema_change(metadata: dict, fact: dict):
    change = fact["schema_change"]
    schemas = {s["schema-id"]: s for s in metadata["schemas"]}
    before, after = schemas[change["schema_id_before"]], schemas[change["schema_id_after"]]
    names = lambda schema: {f["name"] for f in schema["fields"]}  # noqa: E731
    assert names(after) - names(before) == {change["added_column"]}
    assert metadata["current-schema-id"] == change["schema_id_after"]

"""The two independent readers agree with each other, so a CLI mismatch points at the CLI.

Needs no CLI: DuckDB's iceberg_metadata and a plain fastavro walk must give the same live
file counts and records for every snapshot both can read.
"""

import duckdb
import pytest

import avro_counts
import duck_counts
from params import corpus_params, example_params
from tables import snapshots


# Tables DuckDB's iceberg extension does not read, and the words of its refusal: held both ways
# (it refuses these with those words, and reads every other table), so an upgrade that changes
# either shows here instead of turning into a silent skip.
DUCKDB_REFUSES = {
    # a v1 table whose snapshot lists its manifests inline (`manifests`), the spec's deprecated form
    "duckdb-iceberg/iceberg_v1_deprecated/default/legacy_v1": "Snapshot required property 'manifest-list' is missing",
}


@pytest.mark.parametrize("table", corpus_params() + example_params())
def test_duckdb_and_fastavro_agree(table):
    compared, problems, rejected = 0, [], None
    for snapshot in snapshots(table.metadata()):
        avro = avro_counts.snapshot_counts(table.folder, snapshot)
        if avro is None:
            continue  # manifest list not in the folder: neither reader can say anything
        try:
            duck = duck_counts.snapshot_counts(table, snapshot["snapshot-id"])
        except (duckdb.Error, ValueError) as e:
            rejected = str(e).splitlines()[0]
            continue
        compared += 1
        problems += [
            f"snapshot {snapshot['snapshot-id']} {k}: duckdb {duck[k]} != fastavro {avro[k]}"
            for k in avro_counts.COUNT_FIELDS
            if duck[k] != avro[k]
        ]
    assert not problems, "\n".join(problems)
    refusal = DUCKDB_REFUSES.get(table.name)
    if refusal is not None:
        assert compared == 0 and rejected is not None and refusal in rejected, f"DuckDB was expected to refuse with {refusal!r}: read {compared} snapshots, said {rejected!r}"
    else:
        assert compared > 0, f"DuckDB read no snapshot of this table: {rejected or 'it has no readable snapshot'}"


def test_duckdb_extensions_come_from_the_wheels():
    """Extensions are loaded by path from the wheels, never installed or autoloaded at run time."""
    con = duck_counts.connect()
    version = con.execute("SELECT extension_version FROM duckdb_extensions() WHERE extension_name = 'iceberg' AND loaded").fetchone()
    assert version is not None, "iceberg extension not loaded"
    settings = dict(con.execute(
        "SELECT name, value FROM duckdb_settings() WHERE name IN ('autoinstall_known_extensions', 'autoload_known_extensions')"
    ).fetchall())
    assert settings == {"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"}

"""Independent reader #1: DuckDB 1.5.5's iceberg extension.

The extensions come from the pinned `duckdb-extension-*` wheels (each ships the signed
`.duckdb_extension` binary inside the package) and are LOADed by path, with autoinstall and
autoload off, so a run never reaches the network and never picks up a different build.
"""

import functools
from pathlib import Path

import duckdb

from avro_counts import COUNT_FIELDS
from tables import Table, metadata_version


def extension_file(module_name: str, extension: str) -> Path:
    """`<site-packages>/duckdb_extension_<x>/extensions/v<version>/<x>.duckdb_extension`."""
    module = __import__(module_name)
    found = sorted(Path(module.__path__[0]).glob(f"extensions/*/{extension}.duckdb_extension"))
    if not found:
        raise FileNotFoundError(f"{module_name} ships no {extension}.duckdb_extension")
    return found[-1]


@functools.cache
def connect() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    )
    # iceberg reads manifests through avro, so avro goes first.
    for module, ext in (("duckdb_extension_avro", "avro"), ("duckdb_extension_iceberg", "iceberg")):
        con.execute(f"LOAD '{extension_file(module, ext)}'")
    return con


def _table_args(table: Table) -> str:
    version, codec = metadata_version(table.metadata_file)
    args = f"'{table.folder}', allow_moved_paths := true, version := '{version}'"
    return args + (f", metadata_compression_codec := '{codec}'" if codec else "")


# DuckDB 1.5.5 labels a DATA entry's `content` with the status enum's name for 0 ("EXISTING"),
# so the kind of file is read from the delete names and manifest_content, never from 'DATA'.
_COUNTS_SQL = """
SELECT
  count(*) FILTER (WHERE manifest_content = 'DATA'
                     AND content NOT IN ('POSITION_DELETES', 'EQUALITY_DELETES')),
  count(*) FILTER (WHERE content = 'POSITION_DELETES' AND upper(file_format) <> 'PUFFIN'),
  count(*) FILTER (WHERE content = 'EQUALITY_DELETES'),
  count(*) FILTER (WHERE content = 'POSITION_DELETES' AND upper(file_format) = 'PUFFIN'),
  coalesce(sum(record_count) FILTER (WHERE manifest_content = 'DATA'
                     AND content NOT IN ('POSITION_DELETES', 'EQUALITY_DELETES')), 0)
FROM iceberg_metadata({args}, snapshot_from_id := {snapshot_id})
WHERE status IN ('ADDED', 'EXISTING')
"""


def snapshot_counts(table: Table, snapshot_id: int) -> dict:
    """Live file counts and data records of one snapshot. Raises duckdb.Error when DuckDB
    rejects the table or cannot open a file it needs; callers decide what that means."""
    if snapshot_id < 0:
        # snapshot_from_id is UBIGINT; Iceberg ids are signed longs.
        raise ValueError(f"DuckDB cannot address negative snapshot id {snapshot_id}")
    sql = _COUNTS_SQL.format(args=_table_args(table), snapshot_id=snapshot_id)
    row = connect().execute(sql).fetchone()
    return dict(zip(COUNT_FIELDS, (int(v) for v in row)))


def snapshot_ids(table: Table) -> list[int]:
    version, codec = metadata_version(table.metadata_file)
    args = f"'{table.folder}', version := '{version}'"
    args += f", metadata_compression_codec := '{codec}'" if codec else ""
    return [r[0] for r in connect().execute(f"SELECT snapshot_id FROM iceberg_snapshots({args})").fetchall()]

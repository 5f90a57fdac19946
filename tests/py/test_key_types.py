"""`icescope duplicates` on key columns whose files store them in different ways, and on a data file
that inflates far past the rows its manifest states. PyIceberg (SqlCatalog on SQLite, a local
warehouse) writes every table; pyarrow writes the files PyIceberg adds or that stand in for a data
file. The right answers come from DuckDB's read_parquet over the same files, never typed here.

- int → long: a key column promoted by PyIceberg's `update_column` between two appends (Iceberg
  spec, "Schema Evolution"): the older file holds INT32, the newer INT64.
- INT96: a Spark (Hive-style) file with INT96 timestamps and no arrow schema, added by
  `add_files`, as migrating a Spark table does, beside PyIceberg's INT64 microseconds.
- A dictionary-typed key column: pyarrow stores its arrow schema (the hint) saying dictionary.
- Strings where the schema says long: a data file swapped under its manifest entry.
- A decompression bomb: a data file swapped under an entry of 333 rows by one of 503 million
  zeros that zstd packs into a few hundred KB (the issue's 123 KB file: 15 pages of 256 MiB).
"""

import json
import os
import resource
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlparse

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, IntegerType, NestedField, StringType, TimestampType


def catalog(tmp: Path) -> SqlCatalog:
    c = SqlCatalog("scan", uri=f"sqlite:///{tmp / 'catalog.db'}", warehouse=(tmp / "warehouse").as_uri())
    c.create_namespace("db")
    return c


def folder(table) -> Path:
    return Path(urlparse(table.location()).path)


def data_files(table) -> list[Path]:
    return [Path(urlparse(t.file.file_path).path) for t in table.scan().plan_files()]


def duplicates(icescope, table, memory_mib: int | None = None) -> subprocess.CompletedProcess:
    limit = None
    if memory_mib:
        # Address space, as tests/hostile.rs limits a bomb: past it an allocation fails (an abort).
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (memory_mib << 20, memory_mib << 20))

    return subprocess.run(
        [str(icescope), "duplicates", str(folder(table)), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limit,
    )


def report(icescope, table) -> dict:
    r = duplicates(icescope, table)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def duck_counts(paths: list[Path], key: str) -> tuple[int, int, int]:
    """(rows, distinct keys, keys present more than once) as DuckDB reads the files."""
    con = duckdb.connect()
    files = [str(p) for p in paths]
    rows, distinct = con.execute(f"SELECT count(*), count(DISTINCT {key}) FROM read_parquet(?, union_by_name = true)", [files]).fetchone()
    (twice,) = con.execute(
        f"SELECT count(*) FROM (SELECT {key} FROM read_parquet(?, union_by_name = true) GROUP BY {key} HAVING count(*) > 1)", [files]
    ).fetchone()
    return rows, distinct, twice


def test_duplicates_across_an_int_to_long_promotion_are_duckdbs(icescope, tmp_path):
    c = catalog(tmp_path)
    schema = Schema(NestedField(1, "id", IntegerType(), required=True), NestedField(2, "v", StringType(), required=False), identifier_field_ids=[1])
    t = c.create_table("db.promoted", schema=schema, properties={"format-version": "2"})
    ids = pa.schema([pa.field("id", pa.int32(), nullable=False), pa.field("v", pa.string())])
    t.append(pa.table({"id": pa.array(range(0, 1000), pa.int32()), "v": ["before"] * 1000}, schema=ids))
    with t.update_schema() as u:
        u.update_column("id", LongType())
    longs = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    t.append(pa.table({"id": pa.array(range(600, 1600), pa.int64()), "v": ["after"] * 1000}, schema=longs))
    files = data_files(t)
    stored = sorted(str(pq.ParquetFile(f).schema_arrow.field("id").type) for f in files)
    assert stored == ["int32", "int64"], "one file from before the promotion, one from after"

    r = report(icescope, t)
    rows, distinct, twice = duck_counts(files, "id")
    assert (r["rows"], r["distinct_keys"], r["duplicated_keys"]) == (rows, distinct, twice)
    assert twice > 0, "the appends overlap: the keys 600..999 are in both files"


def test_spark_int96_timestamps_without_an_arrow_schema_equal_pyicebergs_micros(icescope, tmp_path):
    c = catalog(tmp_path)
    schema = Schema(NestedField(1, "ts", TimestampType(), required=True), NestedField(2, "v", StringType(), required=False), identifier_field_ids=[1])
    t = c.create_table("db.migrated", schema=schema, properties={"format-version": "2"})
    start = datetime(2026, 11, 1, 12, 0, 0, 123456)
    stamps = [start + timedelta(seconds=i) for i in range(500)]
    micros = pa.schema([pa.field("ts", pa.timestamp("us"), nullable=False), pa.field("v", pa.string())])
    t.append(pa.table({"ts": pa.array(stamps, pa.timestamp("us")), "v": ["spark"] * 500}, schema=micros))
    (spark,) = data_files(t)
    t.append(pa.table({"ts": pa.array(stamps[300:] + [start + timedelta(seconds=1000 + i) for i in range(100)], pa.timestamp("us")), "v": ["pyiceberg"] * 300}, schema=micros))
    # The first file as Spark writes timestamps by default outside Iceberg (a Hive table's files
    # migrated in): INT96, no field ids, no arrow schema. PyIceberg's add_files refuses INT96's
    # nanoseconds, so the file takes the place of the one PyIceberg wrote, same rows, same entry.
    pq.write_table(pa.table({"ts": pa.array(stamps, pa.timestamp("us")), "v": ["spark"] * 500}), spark, use_deprecated_int96_timestamps=True, store_schema=False)
    assert pq.ParquetFile(spark).metadata.schema.column(0).physical_type == "INT96"
    assert b"ARROW:schema" not in (pq.ParquetFile(spark).metadata.metadata or {})

    r = report(icescope, t)
    rows, distinct, twice = duck_counts(data_files(t), "ts")
    assert (r["rows"], r["distinct_keys"], r["duplicated_keys"]) == (rows, distinct, twice)
    assert twice > 0


def test_a_dictionary_typed_key_column_with_pyarrows_hint_is_read(icescope, tmp_path):
    c = catalog(tmp_path)
    schema = Schema(NestedField(1, "region", StringType(), required=True), identifier_field_ids=[1])
    t = c.create_table("db.regions", schema=schema, properties={"format-version": "2"})
    # Under the table's folder, where icescope finds a table's files.
    (folder(t) / "data").mkdir(parents=True, exist_ok=True)
    plain, dictionary = folder(t) / "data" / "plain.parquet", folder(t) / "data" / "dictionary.parquet"
    names = [f"region-{i % 40}" for i in range(200)]
    required = lambda t: pa.schema([pa.field("region", t, nullable=False)])  # noqa: E731
    pq.write_table(pa.table({"region": pa.array(names[:120], pa.string())}, schema=required(pa.string())), plain)
    pq.write_table(pa.table({"region": pa.array(names[80:]).dictionary_encode()}, schema=required(pa.dictionary(pa.int32(), pa.string()))), dictionary)
    hint = pq.ParquetFile(dictionary).schema_arrow.field("region").type
    assert pa.types.is_dictionary(hint), "pyarrow stored the dictionary type in the file's arrow schema"
    t.add_files([plain.as_uri(), dictionary.as_uri()])

    r = report(icescope, t)
    rows, distinct, twice = duck_counts(data_files(t), "region")
    assert (r["rows"], r["distinct_keys"], r["duplicated_keys"]) == (rows, distinct, twice)


def test_strings_where_the_schema_says_long_are_refused_with_the_file_and_column(icescope, tmp_path):
    c = catalog(tmp_path)
    schema = Schema(NestedField(1, "id", LongType(), required=True), identifier_field_ids=[1])
    t = c.create_table("db.strings", schema=schema, properties={"format-version": "2"})
    t.append(pa.table({"id": pa.array(range(50), pa.int64())}, schema=pa.schema([pa.field("id", pa.int64(), nullable=False)])))
    t.append(pa.table({"id": pa.array(range(50, 100), pa.int64())}, schema=pa.schema([pa.field("id", pa.int64(), nullable=False)])))
    victim = sorted(data_files(t))[0]
    # A writer that wrote the column as text under the same field id, rows as the entry says.
    field = pa.field("id", pa.string(), nullable=False, metadata={"PARQUET:field_id": "1"})
    pq.write_table(pa.table({"id": pa.array([str(i) for i in range(50)])}, schema=pa.schema([field])), victim)

    r = duplicates(icescope, t)
    assert r.returncode != 0, r.stdout
    assert f"{victim}: field `id`: the file stores this key column as Utf8 where the table's schema says long" in r.stderr, r.stderr


BOMB_ROWS_PER_GROUP = 256 << 17  # 33,554,432 INT64 zeros: one 256 MiB page each
BOMB_GROUPS = 15  # 503,316,480 values, 3.75 GiB decoded


def test_a_decompression_bomb_is_refused_before_it_inflates(icescope, tmp_path):
    c = catalog(tmp_path)
    schema = Schema(NestedField(1, "id", LongType(), required=True), identifier_field_ids=[1])
    t = c.create_table("db.bomb", schema=schema, properties={"format-version": "2"})
    one = pa.schema([pa.field("id", pa.int64(), nullable=False, metadata={"PARQUET:field_id": "1"})])
    t.append(pa.table({"id": pa.array(range(333), pa.int64())}, schema=pa.schema([pa.field("id", pa.int64(), nullable=False)])))
    (victim,) = data_files(t)
    zeros = pa.table({"id": pa.repeat(pa.scalar(0, pa.int64()), BOMB_ROWS_PER_GROUP)}, schema=one)
    with pq.ParquetWriter(victim, one, compression="zstd", use_dictionary=False, data_page_size=(256 << 20) - 1024) as w:
        for _ in range(BOMB_GROUPS):
            w.write_table(zeros, row_group_size=BOMB_ROWS_PER_GROUP)
    md = pq.ParquetFile(victim).metadata
    assert md.num_rows == BOMB_ROWS_PER_GROUP * BOMB_GROUPS
    assert victim.stat().st_size < 2 << 20, victim.stat().st_size

    r = duplicates(icescope, t, memory_mib=1024)
    assert r.returncode == 3, f"exit {r.returncode}: {r.stderr[-2000:]}"
    assert f"{victim}: field `num_rows`: the footer says {md.num_rows} rows, its manifest entry's record_count says 333" in r.stderr, r.stderr


def test_a_dictionary_of_one_long_string_named_by_every_row_is_refused(icescope, tmp_path):
    """The same bomb in a string key: one dictionary entry of 64 MiB of `x`, named by each of the
    333 rows, in a file of a few KB. Without an arrow schema the decoder unpacks it: 22 GB."""
    c = catalog(tmp_path)
    schema = Schema(NestedField(1, "region", StringType(), required=True), identifier_field_ids=[1])
    t = c.create_table("db.dictionary_bomb", schema=schema, properties={"format-version": "2"})
    t.append(pa.table({"region": [f"r{i}" for i in range(333)]}, schema=pa.schema([pa.field("region", pa.string(), nullable=False)])))
    (victim,) = data_files(t)
    one = pa.schema([pa.field("region", pa.dictionary(pa.int32(), pa.string()), nullable=False, metadata={"PARQUET:field_id": "1"})])
    column = pa.DictionaryArray.from_arrays(pa.array([0] * 333, pa.int32()), pa.array(["x" * (64 << 20)]))
    pq.write_table(pa.table({"region": column}, schema=one), victim, compression="zstd", store_schema=False, dictionary_pagesize_limit=128 << 20)
    md = pq.ParquetFile(victim).metadata
    assert md.num_rows == 333 and md.row_group(0).column(0).dictionary_page_offset is not None
    assert victim.stat().st_size < 64 << 10, victim.stat().st_size

    r = duplicates(icescope, t, memory_mib=1024)
    assert r.returncode == 3, f"exit {r.returncode}: {r.stderr[-2000:]}"
    assert f"{victim}: field `page_header`: row group 0 column `region`: page 1 at byte" in r.stderr, r.stderr
    assert "dictionary entries up to 67108864 bytes): icescope decodes at most 2147483648 a column chunk" in r.stderr, r.stderr

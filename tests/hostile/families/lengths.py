"""Declared lengths and counts far past the bytes present (strings of 2^40 bytes, arrays and maps
of 400 M items, a fixed of 10^12 bytes) in files of a few kilobytes: refused before allocating."""
import json

import avro_bytes as ab
from table import Case

F = "declared-lengths"
Z = ab.zigzag


def manifest_case(label, what, overrides, words):
    c = Case(F, f"manifest-{label}", what)
    ref = c.manifest_refs()[-1]
    c.edit_rows(ref.rsplit("/", 1)[-1], lambda rows: None, overrides=overrides)
    c.break_file(ref, *words)
    return c


def with_extra_field(label, what, field, tail, words):
    c = Case(F, f"manifest-{label}", what)
    ref = c.manifest_refs()[-1]
    name = ref.rsplit("/", 1)[-1]
    con = c.container(name)
    records = con.records()
    schema = json.loads(con.schema_text())
    schema["fields"].append(field)
    con.set("avro.schema", json.dumps(schema, separators=(",", ":")).encode())
    c.put(name, con.rebuilt([r + tail for r in records]).to_bytes())
    c.break_file(ref, *words)
    return c


def list_case(label, what, overrides, words):
    c = Case(F, f"list-{label}", what)
    c.edit_rows(c.list_name(), lambda rows: None, overrides=overrides)
    c.break_file(c.list_ref(), *words)
    return c


def cases():
    huge = 400_000_000
    return [
        manifest_case("file-path-2-pow-40-bytes", "a file_path declaring 2^40 bytes", {"data_file.file_path": lambda v: Z(1 << 40) + v.encode()}, ["1099511627776 bytes declared"]),
        manifest_case("file-format-negative-length", "a file_format of length -5", {"data_file.file_format": Z(-5)}, ["negative length -5"]),
        manifest_case("column-sizes-400m-items", "column_sizes declaring 400 M items", {"data_file.column_sizes": Z(1) + Z(huge)}, ["400000000 items declared"]),
        manifest_case("column-sizes-negative-block", "column_sizes as a negative block count of 400 M with a byte size", {"data_file.column_sizes": Z(1) + Z(-huge) + Z(10)}, ["400000000 items declared"]),
        manifest_case("lower-bounds-400m-items", "lower_bounds (skipped, not built) declaring 400 M items", {"data_file.lower_bounds": Z(1) + Z(huge)}, ["400000000 items declared"]),
        manifest_case("key-metadata-2-pow-62-bytes", "key_metadata (skipped) declaring 2^62 bytes", {"data_file.key_metadata": Z(1) + Z(1 << 62)}, ["4611686018427387904 bytes declared"]),
        with_extra_field("map-400m-entries", "an extra map field declaring 400 M entries", {"name": "m", "type": {"type": "map", "values": "long"}}, Z(huge), ["400000000 items declared"]),
        with_extra_field("map-key-2-pow-40-bytes", "a map entry whose key declares 2^40 bytes", {"name": "m", "type": {"type": "map", "values": "long"}}, Z(1) + Z(1 << 40), ["1099511627776 bytes declared"]),
        with_extra_field("fixed-10-pow-12", "an extra fixed field of 10^12 bytes", {"name": "f", "type": {"type": "fixed", "name": "huge", "size": 10 ** 12}}, b"", ["1000000000000 bytes declared"]),
        list_case("manifest-path-2-pow-40-bytes", "the current list's manifest_path declaring 2^40 bytes", {"manifest_path": lambda v: Z(1 << 40) + v.encode()}, ["1099511627776 bytes declared"]),
        list_case("partitions-400m-items", "the current list's partition summaries (skipped) declaring 400 M items", {"partitions": Z(1) + Z(huge)}, ["400000000 items declared"]),
    ]

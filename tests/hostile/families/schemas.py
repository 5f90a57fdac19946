"""Writer schemas that recurse, nest past any Iceberg file, are not JSON or not Avro, and values
that no Iceberg schema allows (unknown status, content, union branch)."""
import json

import avro_bytes as ab
from table import Case

F = "avro-schemas"


def target(c):
    ref = c.manifest_refs()[-1]
    return ref, ref.rsplit("/", 1)[-1]


def users(c, ref):
    return [s["snapshot-id"] for s in c.snapshots() if ref in c.manifest_refs(c.list_name(s))]


def with_extra_field(c, name, field, tail):
    """Adds `field` at the end of each entry's writer schema and `tail` at the end of each entry."""
    con = c.container(name)
    records = con.records()
    schema = json.loads(con.schema_text())
    schema["fields"].append(field)
    con.set("avro.schema", json.dumps(schema, separators=(",", ":")).encode())
    recs = [r + tail for r in records]
    c.put(name, con.rebuilt(recs).to_bytes())


def with_schema_text(c, name, text):
    con = c.container(name)
    con.set("avro.schema", text)
    c.put(name, con.to_bytes())


def case(label, what, words, make, broken=True):
    c = Case(F, label, what)
    ref, name = target(c)
    make(c, name)
    if broken:
        c.break_file(ref, *words)
    return c


NODE = {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]}


def nested_arrays(depth):
    t = "int"
    for _ in range(depth):
        t = {"type": "array", "items": t}
    return t


def rename_status(c, name):
    con = c.container(name)
    text = con.schema_text()
    assert text.count('"name":"status"') == 1
    with_schema_text(c, name, text.replace('"name":"status"', '"name":"state"').encode())


def cases():
    return [
        case("json-nested-3000-deep", "an avro.schema of unions nested 3,000 deep in a 6 KB header: refused before any recursion", ["avro.schema", "recursion limit"],
             lambda c, n: with_schema_text(c, n, b"[" * 3000 + b"]" * 3000)),
        case("arrays-nested-60-deep", "an entry field of arrays nested 60 deep, with data that nests as deep", ["nested deeper than 48"],
             lambda c, n: with_extra_field(c, n, {"name": "deep", "type": nested_arrays(60)}, b"\x02" * 60 + b"\x00" + b"\x00" * 60)),
        case("recursive-record-1000-deep", "a record type that contains itself, with data nesting it 1,000 deep", ["nested deeper than 48"],
             lambda c, n: with_extra_field(c, n, {"name": "deep", "type": NODE}, b"\x02" * 1000 + b"\x00")),
        case("recursive-record-3-deep", "the same self-containing record type, nested 3 deep: an extra field the reader ignores", [],
             lambda c, n: with_extra_field(c, n, {"name": "deep", "type": NODE}, b"\x02" * 3 + b"\x00"), broken=False),
        case("not-json", "an avro.schema that is not JSON", ["avro.schema", "not JSON"],
             lambda c, n: with_schema_text(c, n, b"{\"type\": record")),
        case("invalid-name", "a record named `a-b` (apache-avro would unwrap it)", ["avro.schema", "invalid name `a-b`"],
             lambda c, n: with_schema_text(c, n, c.container(n).schema_text().replace('"name":"manifest_entry"', '"name":"a-b"').encode())),
        case("canonical-form-null", "a field default that does not match its record type, in a record whose field carries `symbols: null` "
             "(apache-avro 0.21 panicked building the canonical form for its error)", ["avro.schema", "`symbols` is null where a schema is expected"],
             canonical_form_null),
        case("no-schema", "a header without avro.schema", ["has no schema"],
             lambda c, n: c.put(n, ab.Container([(k, v) for k, v in c.container(n).meta if k != "avro.schema"], c.container(n).sync, c.container(n).blocks).to_bytes())),
        case("status-renamed", "the writer schema calls `status` `state`: the entries lack a required field", ["entry[0].status", "required field is missing"], rename_status),
        case("status-7", "an entry with status 7", ["entry[0].status", "unknown entry status 7"],
             lambda c, n: c.edit_rows(n, lambda rows: rows[0].update({"status": 7}))),
        case("file-content-9", "a data file with content 9", ["entry[1].data_file.content", "unknown file content 9"],
             lambda c, n: c.edit_rows(n, lambda rows: rows[1]["data_file"].update({"content": 9}))),
        case("union-branch-5", "an entry's snapshot_id union says branch 5 of 2", ["union branch 5 out of range"],
             lambda c, n: c.edit_rows(n, lambda rows: None, overrides={"snapshot_id": ab.zigzag(5)})),
        list_content_5(),
    ]


def canonical_form_null(c, n):
    text = c.container(n).schema_text()
    for old, new in [('{"name":"data_file","type":', '{"name":"data_file","default":5,"type":'), ('"field-id":134}', '"field-id":134,"symbols":null}')]:
        assert old in text, old
        text = text.replace(old, new, 1)
    with_schema_text(c, n, text.encode())


def list_content_5():
    c = Case(F, "list-content-5", "a manifest list row with content 5 (0 data, 1 deletes)")
    c.edit_rows(c.list_name(), lambda rows: rows[0].update({"content": 5}))
    c.break_file(c.list_ref(), "manifest[0].content", "unknown manifest content 5")
    return c

"""Integers at the edges of i64 (and past them) wherever a file states one: retention
properties, timestamps, snapshot ids, sequence numbers, checkpoint ids, summary totals, record
counts, file sizes, manifest lengths, partition values."""
import copy
import json

import avro_bytes as ab
from table import Case

F = "integers"
MIN, MAX = -(1 << 63), (1 << 63) - 1
U64_MAX = (1 << 64) - 1
YEAR_10000_MS = 253_402_300_800_000


def prop(name, key, value, what, base="late1", **expect):
    c = Case(F, name, what, base)
    c.meta.setdefault("properties", {})[key] = value
    c.expect.update(expect)
    return c


def per_snapshot(name, what, edit, base="late3", **expect):
    c = Case(F, name, what, base)
    for k, s in enumerate(c.snapshots()):
        edit(k, s)
    c.expect.update(expect)
    return c


def summary_key(key, value):
    def edit(k, s):
        s["summary"][key] = value(k) if callable(value) else value
    return edit


def entries(c, manifest_ref, edit):
    name = manifest_ref.rsplit("/", 1)[-1]
    c.edit_rows(name, edit)


def cases():
    out = [
        prop("max-age-i64-min", "history.expire.max-snapshot-age-ms", str(MIN), "history.expire.max-snapshot-age-ms is i64::MIN: no cut-off exists, no retention finding", findings={"exclude": ["retention"]}),
        prop("max-age-i64-max", "history.expire.max-snapshot-age-ms", str(MAX), "history.expire.max-snapshot-age-ms is i64::MAX: nothing is old enough", findings={"exclude": ["retention"]}),
        prop("max-age-minus-one", "history.expire.max-snapshot-age-ms", "-1", "max age -1 ms: every snapshot but the last is past retention, with a statement", base="late3", findings={"include": ["retention"]}),
        prop("max-age-past-i64", "history.expire.max-snapshot-age-ms", str(MAX + 1), "max age one past i64::MAX does not parse: the default (5 days) applies", findings={"exclude": ["retention"]}),
        per_snapshot("timestamps-near-i64-min", "commit times at i64::MIN + k ms", lambda k, s: s.update({"timestamp-ms": MIN + k}), base="late3"),
        per_snapshot("timestamps-near-i64-max", "commit times at i64::MAX - 2 + k ms", lambda k, s: s.update({"timestamp-ms": MAX - 2 + k}), base="late3"),
        per_snapshot("timestamps-year-10000", "commit times after 9999-12-31: no statement may carry such a TIMESTAMP", lambda k, s: s.update({"timestamp-ms": YEAR_10000_MS + 1000 * k}), base="late3"),
        per_snapshot("sequence-numbers-at-the-edges", "sequence numbers i64::MIN, i64::MAX, i64::MIN (commit order follows them)", lambda k, s: s.update({"sequence-number": MIN if k % 2 == 0 else MAX}), base="late3"),
        per_snapshot("checkpoints-near-i64-max", "checkpoint ids i64::MAX-2, i64::MAX-1, i64::MAX: the last is an end-of-input commit", summary_key("flink.max-committed-checkpoint-id", lambda k: str(MAX - 2 + k)), findings={"include": ["end_of_input_commit"]}, base="late3"),
        per_snapshot("checkpoints-near-i64-min", "checkpoint ids i64::MIN + 20,000 k: holes past the limit are not listed", summary_key("flink.max-committed-checkpoint-id", lambda k: str(MIN + 20_000 * k)), findings={"exclude": ["checkpoint_gaps"]}, base="late3"),
        per_snapshot("checkpoints-past-i64", "checkpoint ids past i64::MAX do not parse: no checkpoint id", summary_key("flink.max-committed-checkpoint-id", str(MAX + 1))),
        per_snapshot("checkpoints-negative", "checkpoint ids -3, -2, -1", summary_key("flink.max-committed-checkpoint-id", lambda k: str(k - 3))),
        per_snapshot("added-records-i64-max", "added-records i64::MAX on every commit: a job's rows added past 2^64 is unknown, not a saturated number", summary_key("added-records", str(MAX)), jobs=[{"rows_added": None}], base="late3"),
        per_snapshot("added-records-negative", "added-records -5: a job's rows added is unknown", summary_key("added-records", "-5"), jobs=[{"rows_added": None}]),
    ]

    c = prop("min-keep-u64-max", "history.expire.min-snapshots-to-keep", str(U64_MAX), "min-snapshots-to-keep 2^64-1 beside max age -1: every snapshot is kept", base="late3", findings={"exclude": ["retention"]})
    c.meta["properties"]["history.expire.max-snapshot-age-ms"] = "-1"
    out.append(c)

    c = per_snapshot("last-updated-i64-min", "last-updated-ms i64::MIN", lambda k, s: None)
    c.meta["last-updated-ms"] = MIN
    out.append(c)

    c = Case(F, "timestamp-past-i64", "a commit time one past i64::MAX: the metadata cannot be read, and says where")
    c.snapshots()[0]["timestamp-ms"] = MAX + 1
    c.expect["error"] = {"file": c.metadata_rel, "field": "snapshots[0].timestamp-ms"}
    out.append(c)

    c = Case(F, "snapshot-id-u64-max", "the current snapshot's id is 2^64-1 (unsigned writers): kept exact")
    c.rename_snapshot(c.current()["snapshot-id"], U64_MAX)
    out.append(c)

    c = Case(F, "snapshot-id-i64-min", "the first snapshot's id is i64::MIN")
    c.rename_snapshot(c.snapshots()[0]["snapshot-id"], MIN)
    out.append(c)

    c = Case(F, "snapshot-id-past-i128", "a snapshot id of 2^127 fits no integer icescope keeps: an error naming the field")
    c.snapshots()[0]["snapshot-id"] = 1 << 127
    c.expect["error"] = {"file": c.metadata_rel, "field": "snapshots[0].snapshot-id"}
    out.append(c)

    for key, value, label in [
        ("total-records", str(U64_MAX), "u64-max"),
        ("total-records", str(U64_MAX + 1), "past-u64"),
        ("total-data-files", "-5", "negative"),
    ]:
        c = Case(F, f"summary-{key}-{label}", f"the current summary's {key} is {value}")
        c.current()["summary"][key] = value
        out.append(c)

    # Avro values at the edges, in the manifests and lists the real writer wrote.
    c = Case(F, "record-count-i64-max", "one data file claims i64::MAX records: counted exactly (the sum fits u64)")
    entries(c, c.manifest_refs()[0], lambda rows: rows[0]["data_file"].update({"record_count": MAX}))
    out.append(c)

    for label, value in [("minus-one", -1), ("i64-min", MIN)]:
        c = Case(F, f"record-count-{label}", f"one data file claims {value} records: its manifest is a gap, not a zero")
        ref = c.manifest_refs()[-1]
        entries(c, ref, lambda rows: rows[0]["data_file"].update({"record_count": value}))
        c.break_file(ref, "record_count", "negative")
        out.append(c)

    c = Case(F, "record-count-sum-past-u64", "three data files of one manifest claim i64::MAX records: the manifest's sum passes 2^64, a gap")
    ref = c.manifest_refs()[-1]

    def three_max(rows):
        extra = copy.deepcopy(rows[0])
        extra["data_file"]["file_path"] += ".copy"
        rows.append(extra)
        for r in rows:
            r["data_file"]["record_count"] = MAX

    entries(c, ref, three_max)
    c.break_file(ref, "record_count", "overflows")
    out.append(c)

    c = Case(F, "record-counts-past-u64-across-manifests", "each of the current snapshot's three manifests holds a file of i64::MAX records: each manifest sums, the snapshot does not", "late3")
    for ref in c.manifest_refs():
        entries(c, ref, lambda rows: rows[0]["data_file"].update({"record_count": MAX}))
    c.break_file(c.list_ref(), "2^64")
    out.append(c)

    c = Case(F, "file-size-minus-one", "a data file of -1 bytes: its manifest is a gap")
    ref = c.manifest_refs()[0]
    entries(c, ref, lambda rows: rows[0]["data_file"].update({"file_size_in_bytes": -1}))
    c.break_file(ref, "file_size_in_bytes", "negative")
    out.append(c)

    c = Case(F, "file-size-i64-max", "a data file of i64::MAX bytes: counted, the small-files average stays a number")
    entries(c, c.manifest_refs()[0], lambda rows: rows[0]["data_file"].update({"file_size_in_bytes": MAX}))
    out.append(c)

    c = Case(F, "manifest-length-i64-max", "the list says a manifest is i64::MAX bytes long; it holds every entry the list counts: read, and the length said")
    ref = c.manifest_refs()[0]
    c.set_length(ref, MAX)
    c.expect["findings"] = {"include": ["manifest_length_mismatch"], "text": {"manifest_length_mismatch": ["9,223,372,036,854,775,807"]}}
    out.append(c)

    c = Case(F, "manifest-length-minus-one", "the list says a manifest is -1 bytes long")
    c.set_length(c.manifest_refs()[0], -1)
    c.break_file(c.list_ref(), "manifest_length", "negative")
    out.append(c)

    c = Case(F, "partition-day-2-pow-50", "a day partition written as a long of 2^50 (the schema says long): no panic in the late-data and partition views")
    name = c.manifest_refs()[0].rsplit("/", 1)[-1]
    rows = c.rows(name)
    con = c.container(name)
    text = con.schema_text()
    assert '"type":"int","logicalType":"date"' in text
    schema = json.loads(text.replace('"type":"int","logicalType":"date"', '"type":"long"'))
    con.set("avro.schema", json.dumps(schema, separators=(",", ":")).encode())
    for r in rows:
        for k in r["data_file"]["partition"]:
            r["data_file"]["partition"][k] = 1 << 50
    c.put(name, con.rebuilt([ab.encode_raw(schema, r) for r in rows]).to_bytes())
    out.append(c)

    c = Case(F, "partition-day-i32-min", "a day partition of i32::MIN")
    entries(c, c.manifest_refs()[0], lambda rows: [r["data_file"]["partition"].update({k: -(1 << 31) for k in r["data_file"]["partition"]}) for r in rows])
    out.append(c)
    return out

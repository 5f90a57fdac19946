"""Counts that do not add up: a manifest named twice, a manifest shorter or longer than its
manifest_length, list rows whose counts disagree with the entries, summary totals the files
contradict, duplicate snapshot ids. Each must be a gap or a listed contradiction, never a
silent number."""
import copy
import json

import avro_bytes as ab

from table import Case

F = "counts"
MAX = (1 << 63) - 1


def kept(c):
    ref = c.manifest_refs()[-1]
    return ref, ref.rsplit("/", 1)[-1]


def first_row_of_current(c, **fields):
    c.edit_rows(c.list_name(), lambda rows: rows[0].update(fields))


def cases():
    out = []

    c = Case(F, "list-names-a-manifest-twice", "the current list names its first manifest twice")
    c.edit_rows(c.list_name(), lambda rows: rows.append(copy.deepcopy(rows[0])))
    c.break_file(c.list_ref(), "more than once")
    out.append(c)

    c = Case(F, "list-names-a-manifest-twice-as-s3a", "the current list names its first manifest a second time as s3a://…: the same file, counted twice")
    c.edit_rows(c.list_name(), lambda rows: rows.append({**copy.deepcopy(rows[0]), "manifest_path": rows[0]["manifest_path"].replace("s3://", "s3a://", 1)}))
    out.append(c)

    c = Case(F, "manifest-shorter-than-length", "a kept manifest missing its last 100 bytes, its lists stating the full length")
    ref, name = kept(c)
    c.put(name, c.files[f"metadata/{name}"][:-100], keep_lengths=True)
    c.break_file(ref, "manifest_length")
    out.append(c)

    c = Case(F, "manifest-longer-than-length", "a kept manifest with 10 bytes appended, its lists stating the original length")
    ref, name = kept(c)
    c.put(name, c.files[f"metadata/{name}"] + bytes(10), keep_lengths=True)
    c.break_file(ref, "manifest_length")
    out.append(c)

    # Every entry the lists count is in the file: it is read and counted, and the length said.
    c = Case(F, "length-stated-one-short", "every list states a kept manifest one byte shorter than it is; it holds every entry they count")
    ref, name = kept(c)
    c.set_length(ref, len(c.files[f"metadata/{name}"]) - 1)
    c.expect["findings"] = {"include": ["manifest_length_mismatch"], "text": {"manifest_length_mismatch": ["the list says"]}}
    out.append(c)

    for field, value in [("added_files_count", 5), ("added_rows_count", 50)]:
        c = Case(F, f"list-{field}-disagrees", f"the current list says its first manifest has {field} {value}; the manifest's entries say otherwise")
        first_row_of_current(c, **{field: value})
        c.expect["gaps"] = [{"file": c.list_ref(), "contains": [field], "snapshot_ids": [c.current()["snapshot-id"]]}]
        out.append(c)

    # added_files_count is an Avro int, added_rows_count a long.
    for label, files, rows_ in [("at-the-edges", (1 << 31) - 1, MAX), ("negative", -1, -1), ("off-by-3", None, None)]:
        c = Case(F, f"list-counts-{label}-with-a-manifest-missing", f"the current list's counts are {label.replace('-', ' ')} and its manifest is missing: the list's counts are all there is")
        refs = c.manifest_refs()
        c.remove(refs[0].rsplit("/", 1)[-1])

        def edit(rows, files=files, rows_=rows_):
            for r in rows:
                if files is None:
                    r["added_files_count"] += 3
                else:
                    r["added_files_count"] = files
                    r["added_rows_count"] = rows_
        c.edit_rows(c.list_name(), edit)
        out.append(c)

    def summary_case(label, what, edit, snap=-1, **expect):
        c = Case(F, f"summary-{label}", what)
        edit(c.snapshots()[snap]["summary"])
        c.expect.update(expect)
        out.append(c)
        return c

    summary_case("data-files-off", "the current summary states 6 data files (5 are live)", lambda s: s.update({"total-data-files": "6"}))
    summary_case("records-off", "the first summary states 30 records (3 are live)", lambda s: s.update({"total-records": "30"}), snap=0)
    summary_case("manifests-created-off", "the current summary says 4 manifests were created", lambda s: s.update({"manifests-created": "4"}))
    summary_case("delete-files-7", "the current summary states 7 delete files (none are live)", lambda s: s.update({"total-delete-files": "7"}))
    summary_case("position-deletes-3", "the current summary states 3 position deletes", lambda s: s.update({"total-position-deletes": "3"}))
    summary_case("totals-not-numbers", "the current summary's totals are words", lambda s: s.update({k: "five" for k in list(s) if k.startswith("total-")}))

    c = Case(F, "summary-totals-missing", "no summary states a total: every number is counted")
    c.edit_summaries(lambda s: [s.pop(k) for k in list(s) if k.startswith("total-")])
    out.append(c)

    c = Case(F, "summary-values-json-numbers", "summary values written as JSON numbers, not strings")
    c.edit_summaries(lambda s: s.update({k: int(v) for k, v in s.items() if v.isdigit() and len(v) < 19}))
    out.append(c)

    c = Case(F, "summary-without-operation", "a v2 snapshot without summary.operation")
    del c.snapshots()[0]["summary"]["operation"]
    c.expect["error"] = {"file": c.metadata_rel, "field": "snapshots[0].summary.operation"}
    out.append(c)

    c = Case(F, "duplicate-snapshot-id", base="late3", what="the second snapshot has the first one's id")
    first, second = c.snapshots()[0], c.snapshots()[1]
    for e in c.meta.get("snapshot-log", []):
        if e["snapshot-id"] == second["snapshot-id"]:
            e["snapshot-id"] = first["snapshot-id"]
    c.snapshots()[2]["parent-snapshot-id"] = first["snapshot-id"]
    second["snapshot-id"] = first["snapshot-id"]
    c.expect["findings"] = {"include": ["duplicate_snapshot_ids"]}
    out.append(c)

    c = Case(F, "small-files-with-a-manifest-missing", "one of the 12 manifests of append-stream's current snapshot is gone: the small-files finding counts what it read and says so", "append-current")
    c.remove(c.manifest_refs()[3].rsplit("/", 1)[-1])
    c.expect["findings"] = {"include": ["small_files"], "text": {"small_files": ["At least", "could not be read"]}}
    out.append(c)

    c = Case(F, "late-files-with-a-manifest-missing", "a manifest of late-data's current snapshot is gone: the late-data finding says its count is partial", "late3")
    c.remove(c.manifest_refs()[1].rsplit("/", 1)[-1])
    c.expect["findings"] = {"include": ["late_one_row_files"], "text": {"late_one_row_files": ["could not be read"]}}
    out.append(c)

    c = Case(F, "manifest-of-a-million-entries", "a 130 KB manifest of 1,000,000 minimal entries (43 bytes each, deflated 330:1): read in memory proportional to the file, not to the entry count")
    ref = c.manifest_refs()[0]
    name = ref.rsplit("/", 1)[-1]
    con = c.container(name)
    entry = c.rows(name)[0]
    for k in ["column_sizes", "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds", "split_offsets"]:
        entry["data_file"][k] = None
    entry["data_file"]["file_path"] = "x"
    one = ab.encode_raw(json.loads(con.schema_text()), entry)
    c.put(name, con.rebuilt([one] * 1_000_000, per_block=100_000).to_bytes())
    c.edit_rows(c.list_name(), lambda rows: rows[0].update({"added_files_count": 1_000_000, "added_rows_count": 1_000_000 * entry["data_file"]["record_count"]}))
    c.expect["limits"] = {"memory_mib": 256, "seconds": 60}
    c.expect["formats"] = ["json"]
    out.append(c)

    c = Case(F, "current-snapshot-id-unknown", base="late3", what="current-snapshot-id names no snapshot of the table")
    c.meta["current-snapshot-id"] = 42
    c.expect["findings"] = {"include": ["current_snapshot_unknown"]}
    out.append(c)

    c = Case(F, "snapshots-listed-backwards", base="late3", what="the snapshots listed newest first: commit order comes from sequence numbers")
    c.meta["snapshots"].reverse()
    out.append(c)

    c = Case(F, "parent-cycle", base="late3", what="the first snapshot's parent is the last")
    c.snapshots()[0]["parent-snapshot-id"] = c.snapshots()[-1]["snapshot-id"]
    out.append(c)
    return out

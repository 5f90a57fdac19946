"""Strings from the table that try to end a printed Spark statement, forge Markdown (table rows,
HTML, links) or hide in a terminal (ANSI escapes, CR, NUL, U+202E). tests/hostile.rs checks every
case's outputs for this; these cases carry the strings."""
import json

from table import Case

F = "strings"
INJECT = "'); CALL lab.system.expire_snapshots(table => 'db.t', older_than => TIMESTAMP '9999-01-01 00:00:00'); --"
FORGED = "\n| forged | row | 1 | 2 | 3 | 4 |\n"
SCRIPT = "<script>alert(1)</script>"
ANSI = "\x1b[31mRED\x1b[0m\x1b]8;;http://x\x07link\x1b]8;;\x07"


def location(label, value, **expect):
    c = Case(F, f"location-{label}", f"the table location is {value!r}")
    c.meta["location"] = value
    c.expect.update(expect)
    return c


def job_id(label, value, **expect):
    c = Case(F, f"job-id-{label}", f"flink.job-id is {value!r}")
    c.edit_summaries(lambda s: s.update({"flink.job-id": value}))
    c.expect.update(expect)
    return c


def operation(label, value, **expect):
    c = Case(F, f"operation-{label}", f"the current snapshot's operation is {value!r}")
    c.current()["summary"]["operation"] = value
    c.expect.update(expect)
    return c


def column(label, value, **expect):
    """The partition source column (`ts`), renamed: the late-data statement's `where` names it."""
    c = Case(F, f"column-{label}", f"the event-time column is named {value!r}")
    for s in c.meta["schemas"]:
        for f in s["fields"]:
            if f["name"] == "ts":
                f["name"] = value
    c.expect.update(expect)
    return c


REFUSED = {"statements": 0, "actions_contain": "cannot be quoted safely"}
# Every manifest of these one-snapshot tables is read, so the case folder is censused: the
# expect.json beside the table is a file no snapshot names, and remove_orphan_files is printed
# for it wherever the table's name can be quoted.
ORPHAN = 1


def cases():
    out = [
        location("sql-injection", "s3://warehouse/icescope/late_data" + INJECT, statements=1 + ORPHAN),
        location("backticks", "s3://warehouse/ice`scope/late`data` --", statements=1 + ORPHAN),
        location("u202e", "s3://warehouse/icescope/late\u202edata", **REFUSED),
        location("newline-forged-row-script", "s3://warehouse/icescope/late_data" + FORGED + SCRIPT, **REFUSED),
        location("html-and-link", "s3://warehouse/icescope/<img src=x onerror=alert(1)>[click](javascript:alert(1))", statements=1 + ORPHAN),
        location("nul", "s3://warehouse/icescope/late\x00data", **REFUSED),
        location("zero-width-space", "s3://warehouse/icescope/late\u200bdata", **REFUSED),
        job_id("pipe-newline", "933c37c4|x" + FORGED, statements=1 + ORPHAN),
        job_id("script", SCRIPT, statements=1 + ORPHAN),
        job_id("ansi", ANSI, statements=1 + ORPHAN),
        job_id("nul", "933c\x00job", statements=1 + ORPHAN),
        job_id("u202e", "933c\u202ejob", statements=1 + ORPHAN),
        job_id("10k", "j" * 10_000, statements=1 + ORPHAN),
        job_id("autolinks", "https://evil.example/x www.evil.example a@evil.example", statements=1 + ORPHAN),
        operation("ansi-cr", "append\x1b[2K\r\x1b[31mdelete", text_contains=["\\u{001b}", "\\u{000d}"]),
        operation("u202e", "append\u202e", text_contains=["\\u{202e}"]),
        column("sql-injection", 'ts" OR 1=1) --', statements=1 + ORPHAN),
        column("backtick", "ts`) OR (1=1", statements=1 + ORPHAN),
        column("newline", "ts\n--", statements=0 + ORPHAN, actions_contain="cannot be quoted safely"),
    ]

    c = Case(F, "missing-manifest-path-hostile", "the current list names a missing manifest whose path holds HTML, a pipe, a newline and an ANSI escape")
    c.edit_rows(c.list_name(), lambda rows: rows[0].update({"manifest_path": "s3://warehouse/icescope/late_data/metadata/" + SCRIPT + "|x" + FORGED + "\x1b[31m.avro"}))
    out.append(c)

    c = Case(F, "missing-manifest-url", "the current list names a missing manifest at https://evil.example/…, which Markdown must not link")
    c.edit_rows(c.list_name(), lambda rows: rows[0].update({"manifest_path": "https://evil.example/www.evil.example/a@evil.example.avro"}))
    out.append(c)

    c = Case(F, "codec-name-hostile", "a manifest's avro.codec is HTML with a pipe and a newline: the error message carries it")
    ref = c.manifest_refs()[-1]
    name = ref.rsplit("/", 1)[-1]
    con = c.container(name)
    con.set("avro.codec", (SCRIPT + "|" + FORGED).encode())
    c.put(name, con.to_bytes())
    c.break_file(ref, "unsupported Avro codec")
    out.append(c)

    c = Case(F, "metadata-file-name-hostile", "the metadata file is named v4`|<b>x.metadata.json")
    c.metadata_rel = "metadata/v4`|<b>x.metadata.json"
    out.append(c)

    c = Case(F, "spark-catalog-argument", "the Spark catalog name typed is lab`; DROP TABLE x; --")
    c.args = ["--spark-catalog", "lab`; DROP TABLE x; --"]
    c.expect["statements"] = 1 + ORPHAN
    out.append(c)

    c = Case(F, "table-name-argument", "the table name typed is db.t'); CALL x.system.y(); --")
    c.args = ["--table-name", "db.t'); CALL x.system.y(); --"]
    c.expect["statements"] = 1 + ORPHAN
    out.append(c)

    c = Case(F, "summary-keys-hostile", "summary keys and values with HTML, pipes and newlines that no view prints")
    c.edit_summaries(lambda s: s.update({SCRIPT + "|\n": SCRIPT + FORGED}))
    out.append(c)
    assert all(json.dumps(c.meta) for c in out)
    return out

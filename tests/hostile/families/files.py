"""Which files a folder holds: lists and manifests missing, no metadata at all, broken or bombed
metadata.json (plain and gzip), version hints that lie, a stray metadata.json under data/, and
a tampered copy of a list deeper in the folder whose path shares more with the reference."""
import gzip
import json

from table import Case

F = "files"


def cases():
    out = []

    c = Case(F, "current-list-missing", "the current snapshot's manifest list is gone")
    c.remove(c.list_name())
    out.append(c)

    c = Case(F, "kept-manifest-missing", "the manifest all three snapshots keep is gone", "late3")
    c.remove(c.manifest_refs()[-1].rsplit("/", 1)[-1])
    out.append(c)

    c = Case(F, "every-manifest-missing", "only metadata.json and the manifest lists remain", "late3")
    for ref in c.manifest_refs():
        c.remove(ref.rsplit("/", 1)[-1])
    out.append(c)

    c = Case(F, "every-list-missing", "only metadata.json and the manifests remain", "late3")
    for s in c.snapshots():
        c.remove(c.list_name(s))
    out.append(c)

    c = Case(F, "no-metadata-json", "a folder of Avro files and no metadata.json")
    c.metadata_rel = None
    c.expect["error"] = {"cli": "no *.metadata.json file in this folder"}
    out.append(c)

    for label, raw, field, words in [
        ("metadata-empty", b"", "", ["empty (the file is 0 bytes)"]),
        ("metadata-truncated", None, "", ["truncated at byte", "it stops inside `snapshots[0].manifest-list`"]),
        ("metadata-json-string", b'"a table"', "", ["not table metadata: expected a JSON object, found string"]),
        ("metadata-format-version-9", None, "format-version", ["unsupported format version 9"]),
        ("metadata-location-missing", None, "location", ["missing"]),
    ]:
        c = Case(F, label, f"metadata.json: {label.replace('metadata-', '').replace('-', ' ')}")
        text = json.dumps(c.meta, separators=(",", ":")).encode()
        if label == "metadata-truncated":
            raw = text[: text.index(b'"manifest-list":"') + 30]  # inside the first list's path
        elif label == "metadata-format-version-9":
            c.meta["format-version"] = 9
        elif label == "metadata-location-missing":
            del c.meta["location"]
        c.raw_metadata = raw
        c.expect["error"] = {"file": c.metadata_rel, "field": field, "contains": words}
        out.append(c)

    c = Case(F, "metadata-error-quotes-escapes", "format-version is a string of ANSI escapes and a CR: the error quotes it, visibly")
    c.meta["format-version"] = "\x1b[2J\x1b[31mred\r\u202e"
    c.expect["error"] = {"file": c.metadata_rel, "field": "format-version", "contains": ["has the wrong type", "[2J"]}
    out.append(c)

    c = Case(F, "metadata-gzip", "the metadata gzip-compressed as v4.metadata.json.gz")
    c.metadata_rel += ".gz"
    out.append(c)

    c = Case(F, "metadata-gzip-truncated", "a gzip metadata file cut in half")
    text = json.dumps(c.meta, separators=(",", ":")).encode()
    c.metadata_rel += ".gz"
    gz = gzip.compress(text, mtime=0)
    c.raw_metadata = None
    c.gz_override = gz[: len(gz) // 2]
    c.expect["error"] = {"file": c.metadata_rel, "field": "", "contains": ["gzip"]}
    out.append(c)

    c = Case(F, "metadata-gzip-bomb", "a 65 KB gzip metadata.json inflating to 64 MiB of spaces before the JSON")
    c.metadata_rel += ".gz"
    c.gz_override = gzip.compress(b" " * (64 << 20) + json.dumps(c.meta).encode(), compresslevel=9, mtime=0)
    c.expect["error"] = {"file": c.metadata_rel, "field": "", "contains": ["gzip", "inflates past"]}
    c.expect["limits"] = {"memory_mib": 256, "seconds": 30}
    out.append(c)

    c = Case(F, "version-hint-names-missing-version", "version-hint.text says 9, no v9 exists: the newest file is read")
    c.files["metadata/version-hint.text"] = b"9\n"
    out.append(c)

    c = Case(F, "version-hint-hostile", "version-hint.text holds a path out of the folder, a newline and a NUL")
    c.files["metadata/version-hint.text"] = b"../../../etc/passwd\n\x00v4\n"
    out.append(c)

    # The newest by content wins over the hint (issue 10: pick by last-sequence-number and
    # last-updated-ms); the report names the hint's older file.
    c = Case(F, "version-hint-names-older", "version-hint.text names v2, an older table state: the newest by content (v4) is read", "late3")
    c.files["metadata/version-hint.text"] = b"2\n"
    older = Case(F, "unused", "", "late1")
    c.files["metadata/v2.metadata.json"] = json.dumps(older.meta, separators=(",", ":")).encode()
    out.append(c)

    c = Case(F, "stray-metadata-under-data", "a newer metadata.json of another table at data/zz/v99.metadata.json: the table's own metadata/ wins")
    stray = dict(c.meta, location="s3://elsewhere/other", snapshots=[], **{"current-snapshot-id": -1})
    c.files["data/zz/v99.metadata.json"] = json.dumps(stray).encode()
    out.append(c)

    c = Case(F, "stray-metadata-under-data-metadata", "a stray data/metadata/v99.metadata.json: the shallower metadata/ wins")
    c.files["data/metadata/v99.metadata.json"] = json.dumps(stray).encode()
    out.append(c)

    c = Case(F, "stray-metadata-at-root", "a stray v99.metadata.json beside metadata/: the folder named metadata wins")
    c.files["v99.metadata.json"] = json.dumps(stray).encode()
    out.append(c)

    c = Case(F, "deeper-copy-of-a-list", "an emptied copy of the current list at data/icescope/late_data/metadata/, whose path shares more of the reference than metadata/ does: the table's own list is read")
    con = c.container(c.list_name())
    con.blocks = []
    c.files[f"data/icescope/late_data/metadata/{c.list_name()}"] = con.to_bytes()
    out.append(c)
    return out

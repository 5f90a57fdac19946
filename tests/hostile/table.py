"""A case table in memory: one of the lab's fixture tables at one metadata version, with the
manifest lists and manifests that version names, and the edits a case makes to it before it is
written out with its expect.json."""
import gzip
import json
import os
import shutil

import avro_bytes as ab
import oracle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
HOSTILE = os.path.join(ROOT, "tests", "hostile")

# Small tables, so that a hundred copies stay small: late-data at v2 (1 snapshot) and v4 (3).
BASES = {
    "late1": ("late-data", "v2.metadata.json"),
    "late3": ("late-data", "v4.metadata.json"),
    # append-stream's current snapshot alone (36 data files in 12 manifests): enough for small files.
    "append-current": ("append-stream", "v13.metadata.json"),
}


def name_of(reference):
    return reference.rsplit("/", 1)[-1]


class Case:
    def __init__(self, family, name, what, base="late1"):
        fixture, metadata_name = BASES[base]
        self.family, self.name, self.what = family, name, what
        self.source = f"tests/fixtures/{fixture}/metadata/{metadata_name}"
        src = os.path.join(FIXTURES, fixture, "metadata")
        self.meta = json.load(open(os.path.join(src, metadata_name)))
        self.metadata_rel = f"metadata/{metadata_name}"
        if base == "append-current":
            cur = self.meta["current-snapshot-id"]
            self.meta["snapshots"] = [s for s in self.meta["snapshots"] if s["snapshot-id"] == cur]
            self.meta["snapshot-log"] = [e for e in self.meta.get("snapshot-log", []) if e["snapshot-id"] == cur]
        self.files = {}  # path below the table root → bytes
        self.raw_metadata = None  # bytes written instead of the JSON, when a case breaks the JSON itself
        for s in self.meta["snapshots"]:
            lst = name_of(s["manifest-list"])
            self.files[f"metadata/{lst}"] = open(os.path.join(src, lst), "rb").read()
            for row in self.list_rows(lst):
                m = name_of(row["manifest_path"])
                self.files[f"metadata/{m}"] = open(os.path.join(src, m), "rb").read()
        self.broken = {}
        self.args = []
        self.expect = {}
        self.known_bug = None
        self.gz_override = None  # the metadata file's bytes, when a case breaks its gzip
        self.expect_from = None  # (metadata path, …) when the folder's newest is not the one read

    # --- references and files -------------------------------------------------------------
    def snapshots(self):
        return self.meta["snapshots"]

    def current(self):
        cid = self.meta["current-snapshot-id"]
        return next(s for s in self.snapshots() if s["snapshot-id"] == cid)

    def list_name(self, snap=None):
        return name_of((snap or self.current())["manifest-list"])

    def list_ref(self, snap=None):
        return (snap or self.current())["manifest-list"]

    def manifest_refs(self, lst=None):
        return [r["manifest_path"] for r in self.list_rows(lst or self.list_name())]

    def container(self, name):
        return ab.Container.parse(self.files[f"metadata/{name}"])

    def rows(self, name):
        c = self.container(name)
        schema = c.parsed_schema()
        return [ab.decode(schema, r) for r in c.records()]

    list_rows = rows

    # --- edits ----------------------------------------------------------------------------
    def put(self, name, data, keep_lengths=False):
        """Replaces an Avro file; the lists that name it get its new length unless asked not to
        (a writer that wrote a hostile manifest also wrote its true length)."""
        self.files[f"metadata/{name}"] = data
        lists = {self.list_name(s) for s in self.snapshots()}
        if keep_lengths or name in lists:
            return
        for lst in sorted(lists):
            try:
                rows = self.list_rows(lst)
            except Exception:  # a list this case broke or removed names nothing any more
                continue
            if any(name_of(r["manifest_path"]) == name and r["manifest_length"] != len(data) for r in rows):
                for r in rows:
                    if name_of(r["manifest_path"]) == name:
                        r["manifest_length"] = len(data)
                self.put_rows(lst, rows)

    def put_rows(self, name, rows, per_block=None, codec=None, overrides=None, schema_json=None):
        c = self.container(name)
        sj = schema_json or json.loads(c.schema_text())
        recs = [ab.encode_raw(sj, r, overrides) for r in rows]
        self.put(name, c.rebuilt(recs, per_block, codec).to_bytes())

    def edit_rows(self, name, edit, **kw):
        rows = self.rows(name)
        edit(rows)
        self.put_rows(name, rows, **kw)

    def set_length(self, reference, value):
        """The manifest_length every list states for a manifest."""
        for s in self.snapshots():
            lst = self.list_name(s)
            rows = self.list_rows(lst)
            if any(r["manifest_path"] == reference for r in rows):
                for r in rows:
                    if r["manifest_path"] == reference:
                        r["manifest_length"] = value
                self.put_rows(lst, rows)

    def edit_summaries(self, edit):
        for s in self.snapshots():
            edit(s["summary"])

    def rename_snapshot(self, old, new):
        for s in self.snapshots():
            if s["snapshot-id"] == old:
                s["snapshot-id"] = new
            if s.get("parent-snapshot-id") == old:
                s["parent-snapshot-id"] = new
        if self.meta.get("current-snapshot-id") == old:
            self.meta["current-snapshot-id"] = new
        for r in self.meta.get("refs", {}).values():
            if r["snapshot-id"] == old:
                r["snapshot-id"] = new
        for e in self.meta.get("snapshot-log", []):
            if e["snapshot-id"] == old:
                e["snapshot-id"] = new

    def break_file(self, reference, *words):
        self.broken[reference] = list(words)

    def remove(self, name):
        del self.files[f"metadata/{name}"]

    # --- output ---------------------------------------------------------------------------
    def folder(self):
        return os.path.join(HOSTILE, self.family, self.name)

    def write(self):
        root = self.folder()
        if os.path.exists(root):
            shutil.rmtree(root)
        for rel, data in self.files.items():
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "wb").write(data)
        if self.metadata_rel is not None:
            p = os.path.join(root, self.metadata_rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if self.gz_override is not None:
                data = self.gz_override
            else:
                data = self.raw_metadata
                if data is None:
                    data = json.dumps(self.meta, separators=(",", ":"), ensure_ascii=False).encode()
                if self.metadata_rel.endswith(".gz"):
                    data = gzip.compress(data, mtime=0)
            open(p, "wb").write(data)
        expect = {"family": self.family, "case": self.name, "what": self.what, "from": self.source}
        if self.args:
            expect["args"] = self.args
        if self.known_bug:
            expect["known_bug"] = self.known_bug
        if "error" in self.expect:
            expect["outcome"] = "error"
        else:
            expect["outcome"] = "ok"
            metadata_rel = self.expect_from[0] if self.expect_from else self.metadata_rel
            expect.update(oracle.Table(root, metadata_rel, self.broken).expect())
        expect.update(self.expect)
        with open(os.path.join(root, "expect.json"), "w") as f:
            json.dump(expect, f, indent=1, ensure_ascii=False)
            f.write("\n")
        return expect

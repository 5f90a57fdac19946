"""What a correct reader must report for a case table, worked out here with fastavro and the
Iceberg spec, not by running icescope: snapshot count, the current snapshot's live data files and
records and where they come from, every gap (a file that cannot be used, with the snapshots that
need it) and every summary total that the files read contradict.

A case names the files it broke on purpose (`broken`: reference → words the message must hold);
every other file is read with fastavro, so a file broken by accident fails here, loudly.
"""
import gzip
import json
import os

import avro_bytes as ab


def commit_order(snapshots):
    return sorted(range(len(snapshots)), key=lambda i: (snapshots[i].get("sequence-number", 0), snapshots[i]["timestamp-ms"], i))


def u64(summary, key):
    v = summary.get(key)
    if v is None:
        return None
    v = str(v).strip()
    if not v.isdigit():
        return None
    n = int(v)
    return n if n < 1 << 64 else None


def summary_totals(summary):
    created, kept = u64(summary, "manifests-created"), u64(summary, "manifests-kept")
    manifests = created + kept if created is not None and kept is not None and created + kept < 1 << 64 else None
    return {
        "manifests": manifests,
        "data_files": u64(summary, "total-data-files"),
        "delete_files": u64(summary, "total-delete-files"),
        "records": u64(summary, "total-records"),
        "position_deletes": u64(summary, "total-position-deletes"),
    }


def read_records(path):
    c = ab.Container.parse(open(path, "rb").read())
    schema = c.parsed_schema()
    return [ab.decode(schema, r) for r in c.records()]


class Table:
    def __init__(self, root, metadata_rel, broken=None):
        self.root = root
        self.metadata_rel = metadata_rel
        raw = open(os.path.join(root, metadata_rel), "rb").read()
        self.meta = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
        self.location = self.meta["location"].rstrip("/")
        self.broken = dict(broken or {})
        self.gaps = {}

    def local(self, reference):
        """The table's own file for a reference: its path below the table location."""
        if reference.startswith(self.location + "/"):
            rel = reference[len(self.location) + 1:]
        else:
            rel = "metadata/" + reference.rsplit("/", 1)[-1]
        p = os.path.join(self.root, rel)
        return p if os.path.isfile(p) else None

    def fail(self, reference, words):
        self.gaps.setdefault(reference, {"words": words, "snapshots": set()})

    def usable(self, reference, expected_length=None, expected_entries=None):
        if reference in self.broken:
            self.fail(reference, self.broken[reference])
            return None
        path = self.local(reference)
        if path is None:
            self.fail(reference, ["not found"])
            return None
        if expected_length is not None and expected_length > 0 and os.path.getsize(path) != expected_length:
            # Another length than the list states: the file is the listed one only if it holds
            # every entry the list counts (a manifest cut at a block boundary reads cleanly short).
            try:
                found = len(read_records(path))
            except Exception:
                found = None
            if expected_entries is None or found != expected_entries:
                self.fail(reference, ["manifest_length"])
                return None
        return path

    def manifest_counts(self, reference, length, row=None):
        counts = [row.get(k) for k in ("added_files_count", "existing_files_count", "deleted_files_count")] if row else [None]
        entries = sum(counts) if all(isinstance(c, int) and c >= 0 for c in counts) else None
        path = self.usable(reference, length, entries)
        if path is None:
            return None
        c = {"data_files": 0, "delete_files": 0, "records": 0, "position_deletes": 0}
        size = 0
        for e in read_records(path):
            if e["status"] == 2:
                continue
            f = e["data_file"]
            content = f.get("content") or 0
            assert f["record_count"] >= 0 and f["file_size_in_bytes"] >= 0, f"{reference}: a negative count must be listed in `broken`"
            size += f["file_size_in_bytes"]
            if content == 0:
                c["data_files"] += 1
                c["records"] += f["record_count"]
            else:
                c["delete_files"] += 1
                if content == 1:
                    c["position_deletes"] += f["record_count"]
        assert max(c.values()) < 1 << 64 and size < 1 << 64, f"{reference}: a sum past 2^64 must be listed in `broken`"
        return c

    def snapshot_numbers(self, snap):
        """(numbers, source) for one snapshot; records the gaps on the way."""
        ref = snap["manifest-list"]
        path = self.usable(ref)
        rows = None
        if path is not None:
            rows = read_records(path)
            # s3a:// and s3n:// name the same objects as s3://
            paths = [r["manifest_path"].replace("s3a://", "s3://", 1).replace("s3n://", "s3://", 1) for r in rows]
            if len(set(paths)) != len(paths):
                self.fail(ref, ["more than once"])
                rows = None
        if rows is None:
            self.gaps.get(ref, {"snapshots": set()})["snapshots"].add(snap["snapshot-id"])
            return summary_totals(snap.get("summary", {})), "summary"
        counted = {"manifests": len(rows), "data_files": 0, "delete_files": 0, "records": 0, "position_deletes": 0}
        complete = True
        for r in rows:
            c = self.manifest_counts(r["manifest_path"], r["manifest_length"], r)
            if c is None:
                self.gaps[r["manifest_path"]]["snapshots"].add(snap["snapshot-id"])
                complete = False
                continue
            for k, v in c.items():
                counted[k] += v
            # A list row's own counts must match the entries of the manifest it names.
            files = [r.get("added_files_count", r.get("added_data_files_count")), r.get("existing_files_count", r.get("existing_data_files_count"))]
            if None not in files and sum(files) != c["data_files"] + c["delete_files"]:
                self.fail(ref, ["added_files_count"])
                self.gaps[ref]["snapshots"].add(snap["snapshot-id"])
            rows_ = [r.get("added_rows_count"), r.get("existing_rows_count")]
            if (r.get("content") or 0) == 0 and None not in rows_ and sum(rows_) != c["records"]:
                self.fail(ref, ["added_rows_count"])
                self.gaps[ref]["snapshots"].add(snap["snapshot-id"])
        if complete and any(v >= 1 << 64 for v in counted.values()):
            # Every manifest sums, the snapshot does not: neither the manifests nor the list's rows hold.
            self.gaps.pop(ref, None)
            self.fail(ref, ["2^64"])
            self.gaps[ref]["snapshots"].add(snap["snapshot-id"])
            return summary_totals(snap.get("summary", {})), "summary"
        if complete:
            return counted, "manifests"
        listed = {"manifests": len(rows), "data_files": 0, "delete_files": 0, "records": 0, "position_deletes": None}
        for r in rows:
            files = [r.get("added_files_count", r.get("added_data_files_count")), r.get("existing_files_count", r.get("existing_data_files_count"))]
            if None in files or min(files) < 0:
                return summary_totals(snap.get("summary", {})), "summary"
            if (r.get("content") or 0) == 0:
                rows_ = [r.get("added_rows_count"), r.get("existing_rows_count")]
                if None in rows_ or min(rows_) < 0:
                    return summary_totals(snap.get("summary", {})), "summary"
                listed["data_files"] += sum(files)
                listed["records"] += sum(rows_)
            else:
                listed["delete_files"] += sum(files)
        if any(v is not None and v >= 1 << 64 for v in listed.values()):
            return summary_totals(snap.get("summary", {})), "summary"
        return listed, "manifest_list"

    def expect(self):
        snaps = self.meta.get("snapshots", [])
        order = commit_order(snaps)
        disagreements = []
        numbers = {}
        for i in order:
            s = snaps[i]
            got, source = self.snapshot_numbers(s)
            numbers[i] = (got, source)
            if source == "summary":
                continue
            stated = summary_totals(s.get("summary", {}))
            for field in ["manifests", "data_files", "delete_files", "records", "position_deletes"]:
                if stated[field] is not None and got[field] is not None and stated[field] != got[field]:
                    disagreements.append({"snapshot_id": s["snapshot-id"], "field": field, "summary": stated[field], "counted": got[field], "counted_from": source})
        # The current snapshot, or the last committed when the metadata names none it has.
        current_id = self.meta.get("current-snapshot-id")
        at = next((i for i in order if snaps[i]["snapshot-id"] == current_id), order[-1] if order else None)
        current = None
        if at is not None:
            got, source = numbers[at]
            current = {"position": order.index(at), "snapshot_id": snaps[at]["snapshot-id"], "data_files": got["data_files"], "records": got["records"], "counts_from": source}
        gaps = [{"file": ref, "contains": g["words"], "snapshot_ids": sorted(g["snapshots"])} for ref, g in sorted(self.gaps.items())]
        return {"snapshots": len(snaps), "current": current, "gaps": gaps, "disagreements": disagreements}

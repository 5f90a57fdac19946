"""Independent reader #2: fastavro over the manifest list and manifests, nothing else.

Used where DuckDB will not open a table, and for the manifest-list fields DuckDB does not
report (how many manifests, their byte lengths). Counts follow the spec directly:
a file is live in a snapshot when its manifest entry has status EXISTING or ADDED.
"""

from pathlib import Path

import fastavro

from tables import resolve

# Spec enums (manifest entry `status`, data_file `content`).
EXISTING, ADDED, DELETED = 0, 1, 2
DATA, POSITION_DELETES, EQUALITY_DELETES = 0, 1, 2

COUNT_FIELDS = (
    "data_files",
    "position_delete_files",
    "equality_delete_files",
    "deletion_vectors",
    "records",
)


def read_avro(path: Path) -> list[dict]:
    with path.open("rb") as f:
        return list(fastavro.reader(f))


def manifest_list(folder: Path, snapshot: dict) -> list[dict] | None:
    """The snapshot's manifest-list records, or None when the file is not in the folder.

    v1 snapshots may carry a bare `manifests` array instead of a manifest list; those are
    returned as records with only a path, since no length or content was ever written."""
    if "manifest-list" in snapshot:
        path = resolve(folder, snapshot["manifest-list"])
        return read_avro(path) if path else None
    if "manifests" in snapshot:
        return [{"manifest_path": p} for p in snapshot["manifests"]]
    return None


def live_files(folder: Path, manifests: list[dict]) -> list[dict] | None:
    """data_file records of every live entry; None if any manifest is missing."""
    files = []
    for record in manifests:
        path = resolve(folder, record["manifest_path"])
        if path is None:
            return None
        for entry in read_avro(path):
            if entry["status"] in (EXISTING, ADDED):
                files.append(entry["data_file"])
    return files


def file_counts(files: list[dict]) -> dict:
    """The CLI's per-snapshot counts from live data_file records. v1 manifests have no
    `content`, and everything in them is data."""
    counts = dict.fromkeys(COUNT_FIELDS, 0)
    for f in files:
        content = f.get("content", DATA)
        if content == DATA:
            counts["data_files"] += 1
            counts["records"] += f["record_count"]
        elif content == EQUALITY_DELETES:
            counts["equality_delete_files"] += 1
        elif f["file_format"].upper() == "PUFFIN":
            counts["deletion_vectors"] += 1
        else:
            counts["position_delete_files"] += 1
    return counts


def manifest_stats(manifests: list[dict]) -> dict:
    """How many manifests, and their total bytes as the manifest list states them
    (None for v1 bare `manifests` arrays, which carry no length)."""
    lengths = [m.get("manifest_length") for m in manifests]
    return {
        "manifests": len(manifests),
        "manifest_bytes": None if None in lengths else sum(lengths),
    }


def snapshot_counts(folder: Path, snapshot: dict) -> dict | None:
    """All per-snapshot numbers the CLI reports, or None when the manifest list (or a manifest
    it names) is not in the folder."""
    manifests = manifest_list(folder, snapshot)
    if manifests is None:
        return None
    files = live_files(folder, manifests)
    if files is None:
        return None
    return {**manifest_stats(manifests), **file_counts(files)}

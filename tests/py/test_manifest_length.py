"""A manifest whose size is not the one its list states. fastavro re-encodes one of a real Flink
table's manifests with another codec (what a copy through a tool that rewrites Avro does): every
entry is still there, so icescope reads and counts it and says the lengths disagree. The same
manifest re-encoded without its last entry is refused as not the file the list names."""

import json
import shutil
import subprocess
from pathlib import Path

import fastavro

from avro_counts import read_avro
from tables import REPO, resolve

FIXTURE = REPO / "tests" / "fixtures" / "savepoint-twice"


def newest(folder: Path) -> dict:
    files = sorted((folder / "metadata").glob("*.metadata.json"), key=lambda p: json.loads(p.read_text())["last-sequence-number"])
    return json.loads(files[-1].read_text())


def reencode(path: Path, drop_last: bool = False):
    with path.open("rb") as f:
        r = fastavro.reader(f)
        schema, meta, records = r.writer_schema, dict(r.metadata), list(r)
    codec = "null" if meta.get("avro.codec", "null") != "null" else "deflate"
    user = {k: v for k, v in meta.items() if not k.startswith("avro.")}
    with path.open("wb") as f:
        fastavro.writer(f, schema, records[:-1] if drop_last else records, codec=codec, metadata=user)


def inspect(icescope, folder: Path) -> dict:
    r = subprocess.run([str(icescope), "inspect", str(folder), "--format", "json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def current_manifest(folder: Path) -> tuple[str, Path, dict]:
    meta = newest(folder)
    current = next(s for s in meta["snapshots"] if s["snapshot-id"] == meta["current-snapshot-id"])
    row = max(read_avro(resolve(folder, current["manifest-list"])), key=lambda m: m["added_files_count"] + m["existing_files_count"])
    return row["manifest_path"], resolve(folder, row["manifest_path"]), row


def test_a_re_encoded_manifest_is_read_counted_and_reported(icescope, tmp_path):
    folder = tmp_path / "t"
    shutil.copytree(FIXTURE, folder)
    before = inspect(icescope, FIXTURE)
    listed, path, row = current_manifest(folder)
    reencode(path)
    assert path.stat().st_size != row["manifest_length"]
    after = inspect(icescope, folder)
    assert after["gaps"] == []
    # Every snapshot's counts as on the untouched table.
    keys = ("manifests", "data_files", "delete_files", "records", "live_rows", "counts_from")
    assert [[s[k] for k in keys] for s in after["snapshots"]] == [[s[k] for k in keys] for s in before["snapshots"]]
    f = next(f for f in after["findings"] if f["kind"] == "manifest_length_mismatch")
    entries = row["added_files_count"] + row["existing_files_count"] + row["deleted_files_count"]
    assert f["title"] == "1 manifest is not the length its manifest list states"
    assert f"({path.stat().st_size:,} bytes, the list says {row['manifest_length']:,}; {entries} entries)" in f["evidence"], f["evidence"]


def test_a_manifest_missing_an_entry_is_not_the_listed_file(icescope, tmp_path):
    folder = tmp_path / "t"
    shutil.copytree(FIXTURE, folder)
    listed, path, row = current_manifest(folder)
    reencode(path, drop_last=True)
    after = inspect(icescope, folder)
    entries = row["added_files_count"] + row["existing_files_count"] + row["deleted_files_count"]
    gaps = [g for g in after["gaps"] if g["message"].startswith(listed) or listed.endswith(g["file"])]
    assert len(gaps) == 1, after["gaps"]
    assert f"it holds {entries - 1} entries where the list counts {entries}" in gaps[0]["message"], gaps[0]["message"]
    assert not any(f["kind"] == "manifest_length_mismatch" for f in after["findings"])

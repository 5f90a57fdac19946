"""`icescope footers` on the v3 table Spark wrote: every live deletion vector against its Puffin
file's footer, as the lab's own reader (tests/lab/check_fixtures.py, the spec's layout by hand) and
fastavro read them; the same table with every footer compressed by liblz4 (python-lz4, the frame
the spec asks for: one frame, content size present) reads the same; a footer whose cardinality a
writer got wrong is one mismatch. Numbers come from those readers and facts.json, never typed."""

import json
import shutil
import sys

import lz4.frame

from avro_counts import ADDED, EXISTING, read_avro
from tables import REPO, resolve
from test_data_scan import metadata, run

sys.path.insert(0, str(REPO / "tests" / "lab"))
from check_fixtures import puffin_footer  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "v3-deletion-vectors"


def live_vectors(folder):
    meta = metadata(folder)
    current = next(s for s in meta["snapshots"] if s["snapshot-id"] == meta["current-snapshot-id"])
    out = []
    for m in read_avro(resolve(folder, current["manifest-list"])):
        for e in read_avro(resolve(folder, m["manifest_path"])):
            f = e["data_file"]
            if e["status"] in (EXISTING, ADDED) and f["content"] == 1 and f["file_format"].upper() == "PUFFIN":
                out.append(f)
    return out


def rewrite_footer(path, payload: bytes, flags: int):
    """Another footer for the same blobs. A shorter one is preceded by zeros (bytes no blob names),
    so that the file keeps the size its manifest entries state, as a writer of that footer would."""
    raw = path.read_bytes()
    size = int.from_bytes(raw[-12:-8], "little")
    assert len(payload) <= size
    head = raw[: len(raw) - 12 - size - 4] + bytes(size - len(payload)) + b"PFA1"
    out = head + payload + len(payload).to_bytes(4, "little") + bytes([flags, 0, 0, 0]) + b"PFA1"
    assert len(out) == len(raw)
    path.write_bytes(out)


def test_every_vector_is_listed_in_its_footer_as_the_manifest_says(icescope):
    report = run(icescope, "footers", FIXTURE)["deletion_vectors"]
    facts = json.loads((FIXTURE / "facts.json").read_text())["deletion_vectors"]
    vectors = live_vectors(FIXTURE)
    assert report["vectors"] == len(vectors) == facts["live_deletion_vectors"]
    assert report["puffin_files"] == report["puffin_footers_read"] == facts["puffin_files"]
    assert (report["mismatches"], report["unchecked"]) == (0, 0)
    by_blob = {(v["file_path"], v["content_offset"], v["content_size_in_bytes"]): v for v in vectors}
    for row in report["vectors_checked"]:
        key = (row["puffin_path"], row["content_offset"], row["content_size_in_bytes"])
        v = by_blob.pop(key)
        blob = next(b for b in puffin_footer(resolve(FIXTURE, row["puffin_path"]))["blobs"] if (b["offset"], b["length"]) == key[1:])
        assert row["footer_cardinality"] == int(blob["properties"]["cardinality"]) == v["record_count"] == row["manifest_cardinality"]
        assert row["footer_referenced_data_file"] == blob["properties"]["referenced-data-file"]
        assert row["referenced_data_file"] == v["referenced_data_file"]
        assert row["blob_type"] == blob["type"] == "deletion-vector-v1"
    assert by_blob == {}
    assert sum(r["footer_cardinality"] for r in report["vectors_checked"]) == facts["dv_cardinality_sum"]


def test_footers_compressed_by_liblz4_read_the_same(icescope, tmp_path):
    table = tmp_path / "t"
    shutil.copytree(FIXTURE, table)
    puffins = sorted(table.glob("data/*.puffin"))
    assert puffins
    for p in puffins:
        payload = json.dumps(puffin_footer(p), separators=(",", ":")).encode()
        rewrite_footer(p, lz4.frame.compress(payload, store_size=True), 1)
        assert p.read_bytes()[-8] == 1
    plain = run(icescope, "footers", FIXTURE)["deletion_vectors"]
    framed = run(icescope, "footers", table)["deletion_vectors"]
    assert framed["vectors_checked"] == plain["vectors_checked"]
    assert (framed["mismatches"], framed["unchecked"], framed["puffin_footers_read"]) == (0, 0, plain["puffin_files"])


def test_a_footer_cardinality_off_by_one_is_one_mismatch(icescope, tmp_path):
    table = tmp_path / "t"
    shutil.copytree(FIXTURE, table)
    p = sorted(table.glob("data/*.puffin"))[0]
    footer = puffin_footer(p)
    blob = footer["blobs"][0]
    card = int(blob["properties"]["cardinality"])
    blob["properties"]["cardinality"] = str(card + 1)
    rewrite_footer(p, json.dumps(footer, separators=(",", ":")).encode(), 0)
    report = run(icescope, "footers", table)
    v = report["deletion_vectors"]
    assert (v["mismatches"], v["unchecked"]) == (1, 0)
    bad = [r for r in v["vectors_checked"] if r["matches"] is False]
    assert [(r["content_offset"], r["footer_cardinality"], r["manifest_cardinality"]) for r in bad] == [(blob["offset"], card + 1, card)]
    finding = next(f for f in report["findings"] if f["kind"] == "vector_footer_mismatch")
    assert "over them: +1" in finding["evidence"]

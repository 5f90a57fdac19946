"""Seeds each fuzz target's corpus from the lab's fixture tables (tests/fixtures), into
tests/fuzz/corpus/<target>/ (not committed: regenerate with this script), and adds what earlier
machines' runs found and kept in tests/fuzz/grown/<target>.tar.xz (committed; tests/fuzz/keep.py writes it).
Seeds are added beside what earlier runs found, never in place of it: a corpus grown over hours is
what lets a run go on where the last one stopped (`--fresh` starts over from the seeds and grown/).

    tests/.venv/bin/python tests/fuzz/seed.py [--fresh]

LoadTable seeds are the responses a REST catalog gives for those tables: each fixture's current
metadata.json as `metadata`, its location, and the vended S3 config the lab's catalog sends.
`table` seeds pair each fixture manifest list's first row with the manifest it names, the row
pointing at the path the target serves and stating manifest_length 0 (no length check), the list
re-encoded without compression so that mutations reach its fields.
"""
import hashlib
import json
import pathlib
import shutil
import struct
import sys
import tarfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "hostile"))
import avro_bytes as ab  # noqa: E402  (fastavro: run with tests/.venv/bin/python)

HERE = pathlib.Path(__file__).resolve().parent
# The manifest path the `table` target serves its second file under (late-data's first manifest).
TABLE_MANIFEST = "s3://warehouse/icescope/late_data/metadata/952969c3-57b8-45f9-b078-a9a693753616-m0.avro"
FIXTURES = HERE.parent / "fixtures"
CORPUS = HERE / "corpus"
GROWN = HERE / "grown"


def put(target, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def current_metadata(meta_dir):
    def version(p):
        digits = p.name.lstrip("v").split(".")[0].split("-")[0]
        return int(digits) if digits.isdigit() else -1
    return max(meta_dir.glob("*.metadata.json"), key=version)


def seeds():
    """Every seed as (target, bytes), made from the fixtures each time (never stored)."""
    for table in sorted(p for p in FIXTURES.iterdir() if (p / "metadata").is_dir()):
        meta_dir = table / "metadata"
        for f in sorted(meta_dir.iterdir()):
            data = f.read_bytes()
            if f.name.endswith(".metadata.json"):
                yield ("metadata_json", data)
            elif f.name.startswith("snap-") and f.suffix == ".avro":
                yield ("manifest_list", data)
            elif f.suffix == ".avro":
                yield ("manifest", data)
        for f in sorted(meta_dir.glob("snap-*.avro")):
            con = ab.Container.parse(f.read_bytes())
            schema = json.loads(con.schema_text())
            rows = [ab.decode(con.parsed_schema(), r) for r in con.records()]
            if not rows:
                continue
            row = dict(rows[0], manifest_path=TABLE_MANIFEST, manifest_length=0)
            lst = con.rebuilt([ab.encode_raw(schema, row)], codec="null").to_bytes()
            manifest = (meta_dir / rows[0]["manifest_path"].rsplit("/", 1)[-1]).read_bytes()
            yield ("table", struct.pack("<I", len(lst)) + lst + manifest)
        current = current_metadata(meta_dir)
        metadata = json.loads(current.read_bytes())
        facts = json.loads((table / "facts.json").read_bytes())
        location = metadata["location"]
        catalog = facts.get("catalog", {})
        config = {"s3.endpoint": catalog.get("s3_endpoint", "http://127.0.0.1:8333"), "s3.path-style-access": "true"}
        bucket = location.split("/")[2] if location.startswith("s3://") else "warehouse"
        response = {
            "metadata-location": f"{location}/metadata/{current.name}",
            "metadata": metadata,
            "config": config,
            "storage-credentials": [
                {"prefix": f"s3://{bucket}/", "config": {"s3.access-key-id": "vended", "s3.secret-access-key": "vended"}},
                {"prefix": location, "config": {"s3.session-token": "narrower"}},
            ],
        }
        yield ("rest_load_table", json.dumps(response).encode())
        yield ("rest_load_table", json.dumps({"metadata-location": response["metadata-location"]}).encode())
    # The catalog's other answers, as the REST spec shapes them: config, a token, pages of a listing.
    yield ("rest_load_table", b'{"defaults":{"clients":"4"},"overrides":{"prefix":"warehouse","namespace-separator":"%2E"}}')
    yield ("rest_load_table", b'{"access_token":"t0k","token_type":"bearer","expires_in":3600}')
    yield ("rest_load_table", b'{"namespaces":[["icescope"],["icescope","inner"]],"next-page-token":"p2"}')
    yield ("rest_load_table", b'{"identifiers":[{"namespace":["icescope"],"name":"events"}],"next-page-token":null}')
    # Spark's metadata tables as the lab's real Spark wrote them (tests/spark-exports/).
    for part in sorted((HERE.parent / "spark-exports").glob("*/*/*.parquet")):
        yield ("spark_tables", part.read_bytes())
    # Data files: every deletion-vector Puffin file, and each table's smallest Parquet data file.
    for puffin in sorted(FIXTURES.glob("*/data/**/*.puffin")):
        yield ("data_files", puffin.read_bytes())
    for table in sorted(p for p in FIXTURES.iterdir() if (p / "data").is_dir()):
        parquet = sorted(table.glob("data/**/*.parquet"), key=lambda f: (f.stat().st_size, f.name))
        if parquet:
            yield ("data_files", parquet[0].read_bytes())
    # Puffin files for the footer check: each as Spark wrote it, and with its footer as one LZ4
    # frame (liblz4), so that mutations reach the compressed path too.
    import lz4.frame
    for puffin in sorted(FIXTURES.glob("*/data/**/*.puffin")):
        raw = puffin.read_bytes()
        yield ("puffin_footer", raw)
        size = int.from_bytes(raw[-12:-8], "little")
        framed = lz4.frame.compress(raw[len(raw) - 12 - size:-12], store_size=True)
        yield ("puffin_footer", raw[:len(raw) - 12 - size] + framed + len(framed).to_bytes(4, "little") + b"\x01\0\0\0PFA1")
    # ListObjectsV2 pages SeaweedFS answered (tests/fixtures/s3-list), and an error document.
    for page in sorted((HERE.parent / "fixtures" / "s3-list").glob("*.xml")):
        yield ("s3_list", page.read_bytes())
    yield ("s3_list", b'<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Access Denied.</Message></Error>')
    yield ("s3_list", b"http://10.0.0.9:81/a/b?X-Amz-Signature=s3cr3t#f")
    # Every savepoint and retained checkpoint the lab kept, as Flink wrote its _metadata.
    for metadata in sorted((HERE.parent / "savepoints").glob("*/*/_metadata")):
        yield ("flink_savepoint", metadata.read_bytes())
        # The same with its first inline state moved to a state file, as a savepoint above Flink's
        # memory threshold writes it: the `_metadata`'s length, the `_metadata`, the file.
        moved = inline_to_file(metadata.read_bytes())
        if moved:
            meta, state = moved
            yield ("flink_savepoint_state", struct.pack(">I", len(meta)) + meta + state)


def inline_to_file(meta):
    """The first byte-stream handle (type 1: its name, a 4-byte length, the bytes) of a `_metadata`
    rewritten as a file handle (type 2: a size, then the path), and the bytes it held."""
    at = meta.find(b"file:/")
    if at < 3 or meta[at - 3] != 1:
        return None
    name_len = struct.unpack(">H", meta[at - 2:at])[0]
    name = meta[at:at + name_len]
    data_at = at + name_len
    size = struct.unpack(">i", meta[data_at:data_at + 4])[0]
    state = meta[data_at + 4:data_at + 4 + size]
    rewritten = meta[:at - 3] + b"\x02" + struct.pack(">q", size) + struct.pack(">H", len(name)) + name + meta[data_at + 4 + size:]
    return rewritten, state


def main():
    if "--fresh" in sys.argv[1:] and CORPUS.exists():
        shutil.rmtree(CORPUS)
    for target, data in seeds():
        put(target, data)
    # What earlier machines' runs found (tests/fuzz/keep.py), so a new machine goes on from there.
    for archive in sorted(GROWN.glob("*.tar.xz")):
        with tarfile.open(archive, mode="r:xz") as tar:
            for member in tar.getmembers():
                if member.isfile():
                    put(archive.name.removesuffix(".tar.xz"), tar.extractfile(member).read())
    for target in sorted(p.name for p in CORPUS.iterdir()):
        files = list((CORPUS / target).iterdir())
        print(f"{target}: {len(files)} inputs, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()

"""Seeds each fuzz target's corpus from the lab's fixture tables (tests/fixtures), into
tests/fuzz/corpus/<target>/ (not committed: regenerate with this script).

    python3 tests/fuzz/seed.py

LoadTable seeds are the responses a REST catalog gives for those tables: each fixture's current
metadata.json as `metadata`, its location, and the vended S3 config the lab's catalog sends.
"""
import hashlib
import json
import pathlib
import shutil

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"
CORPUS = HERE / "corpus"


def put(target, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def current_metadata(meta_dir):
    def version(p):
        digits = p.name.lstrip("v").split(".")[0].split("-")[0]
        return int(digits) if digits.isdigit() else -1
    return max(meta_dir.glob("*.metadata.json"), key=version)


def main():
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    for table in sorted(p for p in FIXTURES.iterdir() if (p / "metadata").is_dir()):
        meta_dir = table / "metadata"
        for f in sorted(meta_dir.iterdir()):
            data = f.read_bytes()
            if f.name.endswith(".metadata.json"):
                put("metadata_json", data)
            elif f.name.startswith("snap-") and f.suffix == ".avro":
                put("manifest_list", data)
            elif f.suffix == ".avro":
                put("manifest", data)
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
        put("rest_load_table", json.dumps(response).encode())
        put("rest_load_table", json.dumps({"metadata-location": response["metadata-location"]}).encode())
    for target in sorted(p.name for p in CORPUS.iterdir()):
        files = list((CORPUS / target).iterdir())
        print(f"{target}: {len(files)} seeds, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()

"""`icescope orphans` on a table in a real S3 store (SeaweedFS `weed mini`): the store is listed with
signed ListObjectsV2 requests, paged with continuation tokens, and the objects no snapshot
references are exactly the ones this test put beside the table. Sizes and modification times are
the store's own (boto3's listing of the same objects); which files the snapshots reference is
PyIceberg's (`inspect.all_files()` and the metadata log), never the CLI's.
"""

from __future__ import annotations

import json

import pytest

from catalogkit import OUT, make_events

NS = ("orphan_ns",)
TABLE = NS + ("events",)
# Keys an object store allows and a listing must carry through XML and URL encoding intact.
STRAY_DATA = ["data/00000-0-stray-uncommitted.parquet", "data/kind=a b/stray & <odd> 'name'.parquet"]
STRAY_METADATA = ["metadata/99999-stray.metadata.json"]


@pytest.fixture(scope="module")
def table(seaweed):
    cat = seaweed.catalog()
    cat.create_namespace(NS)
    t = make_events(cat, TABLE, appends=3, delete=True)
    bucket, prefix = t.metadata.location.removeprefix("s3://").split("/", 1)
    s3 = seaweed.s3()
    for key in STRAY_DATA + STRAY_METADATA:
        s3.put_object(Bucket=bucket, Key=f"{prefix}/{key}", Body=b"not referenced by any snapshot " + key.encode())
    listed = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=f"{prefix}/"):
        for o in page.get("Contents", []):
            listed[f"s3://{bucket}/{o['Key']}"] = (o["Size"], int(o["LastModified"].timestamp() * 1000))
    referenced = set(t.inspect.all_files().column("file_path").to_pylist())
    pages = capture_pages(s3, bucket, f"{prefix}/")
    return {"table": t, "bucket": bucket, "prefix": prefix, "listed": listed, "referenced": referenced, "pages": pages}


def capture_pages(s3, bucket: str, prefix: str) -> list[dict]:
    """ListObjectsV2 pages of 2 keys, as the server sent them (raw XML, kept by a botocore hook)
    and as botocore parsed them: written to tests/out/s3-list/, where tests/fixtures/s3-list/ was
    copied from (the Rust parser's test reads those real bytes)."""
    raw: list[bytes] = []
    s3.meta.events.register("after-call.s3.ListObjectsV2", lambda http_response, **_: raw.append(http_response.content))
    pages, token = [], None
    while True:
        args = {"Bucket": bucket, "Prefix": prefix, "MaxKeys": 2, **({"ContinuationToken": token} if token else {})}
        r = s3.list_objects_v2(**args)
        pages.append({
            "is_truncated": r["IsTruncated"],
            "next_token": r.get("NextContinuationToken"),
            "objects": [{"key": o["Key"], "size": o["Size"], "modified_ms": int(o["LastModified"].timestamp() * 1000)} for o in r.get("Contents", [])],
        })
        if not r["IsTruncated"]:
            break
        token = r["NextContinuationToken"]
    out = OUT / "s3-list"
    out.mkdir(parents=True, exist_ok=True)
    for i, body in enumerate(raw):
        (out / f"page-{i}.xml").write_bytes(body)
    (out / "botocore.json").write_text(json.dumps({"server": "SeaweedFS weed mini", "bucket": bucket, "prefix": prefix, "pages": pages}, indent=1) + "\n")
    return pages


def s3_flags(sw) -> list[str]:
    return ["--s3-endpoint", sw.s3_endpoint, "--s3-access-key-id", sw.key, "--s3-secret-access-key", sw.secret,
            "--s3-region", sw.region, "--s3-path-style-access"]


@pytest.mark.parametrize("page_size", ["1000", "2"], ids=["one-page", "pages-of-2"])
@pytest.mark.parametrize("via", ["metadata-url", "catalog"])
def test_orphans_on_s3_are_exactly_the_stray_objects(seaweed, table, run_cli, page_size, via):
    t = table["table"]
    root = f"s3://{table['bucket']}/{table['prefix']}/"
    if via == "catalog":
        target = ["--catalog", seaweed.catalog_uri, "--warehouse", seaweed.warehouse, "--table", ".".join(TABLE),
                  "--credential", seaweed.credential, "--scope", seaweed.scope]
    else:
        target = [t.metadata_location]
    run = run_cli("orphans", *target, *s3_flags(seaweed), "--s3-list-page-size", page_size, "--format", "json")
    assert run.returncode == 0, run.stderr
    assert seaweed.secret not in run.stdout + run.stderr
    out = json.loads(run.stdout)
    census = out["orphans"]
    assert census["listed"] == len(table["listed"])
    if page_size == "2":
        # The server pages at 2 keys (botocore's view of the same listing): the CLI followed every token.
        assert len(table["pages"]) > 3 and all(p["is_truncated"] for p in table["pages"][:-1])
        assert sum(len(p["objects"]) for p in table["pages"]) == len(table["listed"])
    data = {o["path"]: o for o in census["data"]}
    assert sorted(data) == sorted(root + k for k in STRAY_DATA)
    # Every data file PyIceberg says a snapshot references is listed and not an orphan.
    assert table["referenced"] and table["referenced"] <= set(table["listed"]) - set(data)
    for path, o in data.items():
        assert (o["size"], o["modified_ms"]) == table["listed"][path]
    metadata = {o["path"]: o for o in census["metadata"]}
    for k in STRAY_METADATA:
        assert metadata[root + k]["kind"] == "metadata_json"
    # No metadata file PyIceberg's metadata log names is called an orphan.
    logged = {e.metadata_file for e in t.metadata.metadata_log} | {t.metadata_location}
    assert not logged & set(metadata)
    f = out["finding"]
    assert f["kind"] == "orphan_files"
    assert f["statement"].startswith("CALL <catalog>.system.remove_orphan_files(table => 'orphan_ns.events', older_than => TIMESTAMP '")
    for k in STRAY_DATA:
        assert root + k in f["evidence"]

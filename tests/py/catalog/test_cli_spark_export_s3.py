"""`icescope inspect s3://bucket/prefix/` on an export of Spark's metadata tables kept in a real S3
store (SeaweedFS `weed mini`): the prefix is listed with signed ListObjectsV2 requests, the export
found by its `snapshots/*.parquet`, and the report equals the one from the same export in a local
folder. The exports were written by real Spark 3.5.7 in the lab (tests/lab/run_spark_export.sh, into tests/spark-exports/).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catalogkit import REPO

FOLDERS = ["snapshots", "history", "refs", "metadata_log_entries", "manifests", "all_manifests_by_snapshot", "entries", "partitions"]


EXPORTS = REPO / "tests" / "spark-exports"


def exported() -> list[str]:
    return sorted(p.parent.name for p in EXPORTS.glob("*/export.json"))


def export_files(fixture: str) -> dict[str, Path]:
    """Relative key → file: the tables Spark wrote and the metadata.json it read, as a user's
    folder holds them after the documented steps."""
    src = EXPORTS / fixture
    out = {}
    for t in FOLDERS:
        for p in sorted((src / t).glob("*.parquet")):
            out[f"{t}/{p.name}"] = p
    registered = json.loads((src / "export.json").read_text())["metadata_file_registered"].rsplit("/", 1)[1]
    out[registered] = src / registered
    return out


def s3_flags(sw) -> list[str]:
    return ["--s3-endpoint", sw.s3_endpoint, "--s3-access-key-id", sw.key, "--s3-secret-access-key", sw.secret,
            "--s3-region", sw.region, "--s3-path-style-access"]


def comparable(report: dict) -> dict:
    """The report without where the files were read from."""
    r = dict(report)
    r.pop("load")
    r["table"] = {k: v for k, v in r["table"].items() if k != "metadata_file"}
    return r


@pytest.mark.parametrize("fixture", exported() or ["(none exported)"])
def test_an_export_on_s3_reads_as_the_same_export_on_disk(seaweed, run_cli, tmp_path, fixture):
    files = export_files(fixture)
    local = tmp_path / "export"
    for key, p in files.items():
        (local / key).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, local / key)
    s3 = seaweed.s3()
    # The table bucket takes only tables' own objects; an export goes in a bucket of its own.
    if "exports" not in [b["Name"] for b in s3.list_buckets()["Buckets"]]:
        s3.create_bucket(Bucket="exports")
    prefix = f"spark/{fixture}/"
    for key, p in files.items():
        s3.put_object(Bucket="exports", Key=prefix + key, Body=p.read_bytes())
    on_disk = run_cli("inspect", str(local))
    assert on_disk.returncode == 0, on_disk.stderr
    remote = run_cli("inspect", f"s3://exports/{prefix}", *s3_flags(seaweed))
    assert remote.returncode == 0, remote.stderr
    a, b = json.loads(on_disk.stdout), json.loads(remote.stdout)
    assert b["load"]["mode"] == "spark_export"
    # What icescope needs with the metadata.json at hand: not history, refs or partitions.
    read = {k: p for k, p in files.items() if k.split("/")[0] not in ("history", "refs", "partitions")}
    assert b["load"]["files_read"] == len(read) == 6 and b["load"]["bytes_read"] == sum(p.stat().st_size for p in read.values())
    assert comparable(a) == comparable(b)
    assert seaweed.secret not in remote.stdout + remote.stderr
    # Without keys the store refuses the listing, and the message says which request failed.
    denied = run_cli("inspect", f"s3://exports/{prefix}", "--s3-endpoint", seaweed.s3_endpoint, "--s3-path-style-access", "--s3-region", seaweed.region)
    assert denied.returncode == 3 and "exports" in denied.stderr, denied.stderr

"""The manifest-merge forecast against a real merging writer: PyIceberg's merge append (its
ManifestMergeManager packs bins like Iceberg Java's) commits one manifest per append, with the
summary keys a Flink sink writes (`flink.job-id`, `flink.operator-id`,
`flink.max-committed-checkpoint-id`) so icescope reads the commits as a streaming job's. icescope
forecasts when the next merge comes; the writer then keeps appending and fastavro reads each
manifest list: the merge must come exactly at the forecast commit."""

import json
import re
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from avro_counts import read_avro

JOB = "3f0a2c1b9d8e7f6a5b4c3d2e1f0a9b8c"
OPERATOR = "e883208d19e3c34f8aaf2a3168a63337"


class Writer:
    def __init__(self, tmp_path: Path, properties: dict[str, str]):
        tmp_path.mkdir(parents=True, exist_ok=True)
        catalog = SqlCatalog("lab", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{tmp_path}/wh")
        catalog.create_namespace("db")
        schema = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "v", StringType(), required=False))
        self.table = catalog.create_table("db.events", schema=schema, properties=properties)
        self.checkpoint = 0

    def commit(self, n: int = 1):
        for _ in range(n):
            self.checkpoint += 1
            rows = pa.table({"id": pa.array([self.checkpoint], pa.int64()), "v": pa.array(["x"], pa.string())})
            self.table.append(
                rows,
                snapshot_properties={
                    "flink.job-id": JOB,
                    "flink.operator-id": OPERATOR,
                    "flink.max-committed-checkpoint-id": str(self.checkpoint),
                },
            )
        self.table = self.table.refresh()

    def folder(self) -> Path:
        return Path(self.table.location().removeprefix("file://"))

    def manifests_now(self) -> int:
        """Manifests in the current snapshot's list, as fastavro reads it."""
        return len(read_avro(Path(self.table.current_snapshot().manifest_list.removeprefix("file://"))))


def findings(icescope, folder: Path) -> dict:
    r = subprocess.run([str(icescope), "inspect", str(folder), "--format", "json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return {f["kind"]: f for f in json.loads(r.stdout)["findings"]}


def forecast(finding: dict) -> int:
    if finding["title"].endswith("the next commit merges them"):
        return 1
    m = re.search(r"merged in (?:about )?([\d,]+) commits$", finding["title"])
    assert m, finding["title"]
    return int(m.group(1).replace(",", ""))


def merges_at(writer: Writer, commits: int) -> int:
    """Appends until the manifest count drops; returns after how many commits it did."""
    before = writer.manifests_now()
    for k in range(1, commits + 2):
        writer.commit()
        now = writer.manifests_now()
        if now < before:
            return k
        before = now
    return -1


def test_the_real_key_merges_at_twenty_and_the_forecast_says_when(icescope, tmp_path):
    w = Writer(tmp_path, {"commit.manifest-merge.enabled": "true", "commit.manifest.min-count-to-merge": "20"})
    w.commit(25)
    # The 20th append merged its 20 manifests into one; five appends since.
    assert w.manifests_now() == 6
    f = findings(icescope, w.folder())
    assert "property_not_read" not in f
    pending = f["manifests_merge_pending"]
    assert "commit.manifest.min-count-to-merge 20 (table property)" in pending["evidence"], pending["evidence"]
    k = forecast(pending)
    assert k == 14
    assert merges_at(w, k) == k


def test_a_misnamed_key_is_read_by_no_one_and_the_forecast_uses_the_default(icescope, tmp_path):
    # The key this project's own issue text named: no Iceberg reads it, so the writer waits for 100.
    w = Writer(tmp_path, {"commit.manifest-merge.enabled": "true", "commit.manifest-merge.min-count-to-merge": "20"})
    w.commit(25)
    assert w.manifests_now() == 25
    f = findings(icescope, w.folder())
    unread = f["property_not_read"]
    assert "commit.manifest-merge.min-count-to-merge = 20 (Iceberg reads commit.manifest.min-count-to-merge, which the table leaves at its default)" in unread["evidence"]
    assert unread["statement"] == "ALTER TABLE <catalog>.db.events SET TBLPROPERTIES ('commit.manifest.min-count-to-merge' = '20');"
    k = forecast(f["manifests_merge_pending"])
    assert k == 75
    assert merges_at(w, k) == k


def test_small_bins_merge_by_size_before_the_count(icescope, tmp_path):
    # A target of eight and a half manifests: the newest bin fills by bytes long before 100.
    probe = Writer(tmp_path / "probe", {})
    probe.commit(1)
    one = probe.table.inspect.manifests()["length"][0].as_py()
    w = Writer(tmp_path / "t", {"commit.manifest-merge.enabled": "true", "commit.manifest.target-size-bytes": str(one * 8 + one // 2)})
    # Append until a size merge has happened and five appends since have each added a manifest.
    merged, grown, before = False, 0, 0
    for _ in range(60):
        w.commit()
        now = w.manifests_now()
        merged |= now < before
        grown = grown + 1 if now > before else 0
        before = now
        if merged and grown >= 5 and now >= 6:
            break
    assert merged and grown >= 5, f"{w.checkpoint} appends, {before} manifests"
    f = findings(icescope, w.folder())
    pending = f.get("manifests_merge_pending") or pytest.fail(f"no forecast: {list(f)} at {before} manifests")
    assert "fills the" in pending["evidence"], pending["evidence"]
    k = forecast(pending)
    assert k < 100 - before
    assert merges_at(w, k) == k

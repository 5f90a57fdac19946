"""Fast, offline check of the lab's fixtures (tests/fixtures/<scenario>/), no engine needed.

    tests/.venv/bin/python tests/lab/check_fixtures.py [fixture-dir ...]

For every fixture:
  * the newest metadata.json's snapshots, manifest lists, manifests and live data/delete files all
    exist in the fixture; files that older metadata.json versions name and that are missing must be
    listed in facts.json as deleted by a maintenance call (expire_snapshots);
  * facts.json agrees with the metadata: every Flink job id in facts["jobs"] that committed appears in
    the snapshot summaries' flink.job-id, the snapshot log's job count matches, and on append-only
    tables the current snapshot's total-records equals the row count Spark reported;
  * the orphans facts.json lists are on disk and referenced by no manifest;
  * format v3 (facts["deletion_vectors"]): the current snapshot's live data files, records, deletion
    vectors, Puffin files and vector cardinalities read from the manifests equal what Spark reported,
    data records minus cardinalities equal count(*), and every vector's blob is in its Puffin file's
    footer (type deletion-vector-v1, same referenced data file and cardinality) where the manifest
    says, starting with the vector magic.
  * the snapshot count in facts equals the metadata's; where facts list "commits" (one per snapshot),
    their flink.job-id, flink.max-committed-checkpoint-id and manifest counts match the metadata and
    the manifest lists; every savepoint in facts is in its job's checkpoint history;
Prints one line per fixture and closes with "N passed, N failed".
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from fastavro import reader

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def version(p: Path) -> int:
    m = re.match(r"v?(\d+)", p.name)
    return int(m.group(1)) if m else -1


def same(path: str) -> str:
    """file:///x and file:/x name the same local file (a Hadoop catalog keeps its location as configured,
    file:///…, and writes every path inside the metadata as file:/…)."""
    return "file:/" + path[len("file:///"):] if path.startswith("file:///") else path


def puffin_footer(path: Path) -> dict:
    """The footer of a Puffin file: ... | Magic | FooterPayload | FooterPayloadSize | Flags | Magic."""
    raw = path.read_bytes()
    if raw[:4] != b"PFA1" or raw[-4:] != b"PFA1":
        raise ValueError("no Puffin magic")
    size = int.from_bytes(raw[-12:-8], "little")
    flags = raw[-8:-4]
    if flags[0] & 1:
        raise ValueError("compressed footer payload")
    return json.loads(raw[-12 - size:-12])


def check_deletion_vectors(d: Path, latest: dict, local, facts: dict) -> list[str]:
    """v3 tables: the current snapshot's live deletion vectors, read from the manifests and the Puffin
    footers, agree with what Spark reported (facts["deletion_vectors"])."""
    problems: list[str] = []
    f = facts["deletion_vectors"]
    cur = next((s for s in latest.get("snapshots", []) if s["snapshot-id"] == latest.get("current-snapshot-id")), None)
    if cur is None:
        return ["no current snapshot"]
    with open(local(cur["manifest-list"]), "rb") as fh:
        manifests = [r["manifest_path"] for r in reader(fh)]
    data, dvs, other = {}, [], 0
    for mp in manifests:
        with open(local(mp), "rb") as fh:
            for e in reader(fh):
                if e["status"] == 2:
                    continue
                df = e["data_file"]
                if df["content"] == 0:
                    data[same(df["file_path"])] = df["record_count"]
                elif df["content"] == 1 and df["file_format"].upper() == "PUFFIN":
                    dvs.append(df)
                else:
                    other += 1
    card = sum(v["record_count"] for v in dvs)
    got = {"live_data_files": len(data), "data_records": sum(data.values()), "live_deletion_vectors": len(dvs),
           "puffin_files": len({same(v["file_path"]) for v in dvs}), "dv_cardinality_sum": card,
           "other_live_delete_files": other}
    for k, v in got.items():
        if f.get(k) != v:
            problems.append(f"{k}: metadata {v} vs facts {f.get(k)}")
    if got["data_records"] - card != f["count_star"]:
        problems.append(f"data records {got['data_records']} - vector cardinality {card} != count(*) {f['count_star']}")
    footers: dict[str, dict] = {}
    referenced = set()
    for v in dvs:
        pp, ref = same(v["file_path"]), same(v.get("referenced_data_file") or "")
        if ref not in data:
            problems.append(f"vector in {pp} references {ref or 'nothing'}, not a live data file")
        if ref in referenced:
            problems.append(f"two live vectors for {ref}")
        referenced.add(ref)
        lp = local(pp)
        if not lp.exists():
            continue
        if pp not in footers:
            try:
                footers[pp] = puffin_footer(lp)
            except ValueError as e:
                problems.append(f"{lp.name}: {e}")
                footers[pp] = {"blobs": []}
        off, size = v.get("content_offset"), v.get("content_size_in_bytes")
        blob = next((b for b in footers[pp]["blobs"] if b["offset"] == off and b["length"] == size), None)
        if blob is None:
            problems.append(f"{lp.name}: no blob at offset {off} length {size}")
            continue
        props = blob.get("properties", {})
        if blob["type"] != "deletion-vector-v1":
            problems.append(f"{lp.name}@{off}: blob type {blob['type']}")
        if same(props.get("referenced-data-file", "")) != ref:
            problems.append(f"{lp.name}@{off}: footer names {props.get('referenced-data-file')}, manifest {ref}")
        if int(props.get("cardinality", -1)) != v["record_count"]:
            problems.append(f"{lp.name}@{off}: footer cardinality {props.get('cardinality')} != record_count {v['record_count']}")
        with open(lp, "rb") as fh:  # blob: length (4, big-endian) | magic D1 D3 39 64 | bitmap | CRC-32
            fh.seek(off)
            head = fh.read(8)
        if head[4:] != bytes.fromhex("d1d33964") or int.from_bytes(head[:4], "big") != size - 8:
            problems.append(f"{lp.name}@{off}: not a deletion-vector blob")
    snaps = [(s["snapshot-id"], s["summary"]["operation"]) for s in latest.get("snapshots", [])]
    fsnaps = [(s["snapshot_id"], s["operation"]) for s in facts["final_table"]["snapshots"]]
    if sorted(snaps) != sorted(fsnaps):
        problems.append(f"snapshots: metadata {snaps} vs facts {fsnaps}")
    return problems


def check(d: Path) -> list[str]:
    problems: list[str] = []
    facts = json.loads((d / "facts.json").read_text())
    metas = sorted((d / "metadata").glob("*.metadata.json"), key=version)
    if not metas:
        return ["no metadata.json"]
    latest = json.loads(metas[-1].read_text())
    loc = same(latest["location"]).rstrip("/") + "/"

    def local(path: str) -> Path:
        path = same(path)
        if not path.startswith(loc):
            problems.append(f"path outside the table location: {path}")
            return d / "__outside__"
        return d / path[len(loc):]

    deleted = set()
    for m in facts.get("maintenance", []):
        deleted.update(m.get("deleted_objects", []))

    referenced: set[str] = set()
    for s in latest.get("snapshots", []):
        ml = local(s["manifest-list"])
        if not ml.exists():
            problems.append(f"missing manifest list {ml.relative_to(d)}")
            continue
        with open(ml, "rb") as fh:
            manifests = [r["manifest_path"] for r in reader(fh)]
        for mp in manifests:
            mf = local(mp)
            if not mf.exists():
                problems.append(f"missing manifest {mf.relative_to(d)}")
                continue
            with open(mf, "rb") as fh:
                for e in reader(fh):
                    fp = same(e["data_file"]["file_path"])
                    referenced.add(fp)
                    if e["status"] != 2 and not local(fp).exists():
                        problems.append(f"missing data/delete file {fp}")
    for old in metas[:-1]:
        for s in json.loads(old.read_text()).get("snapshots", []):
            rel = same(s["manifest-list"])[len(loc):]
            if not (d / rel).exists() and rel not in deleted:
                problems.append(f"{old.name}: manifest list {rel} is missing and not listed as deleted")

    # facts vs metadata
    summaries = [s.get("summary", {}) for s in latest.get("snapshots", [])]
    job_ids_meta = {s["flink.job-id"] for s in summaries if "flink.job-id" in s}
    # a job's snapshots may have been expired since (savepoint-resume): any metadata version counts
    ever = [s.get("summary", {}) for m in metas for s in json.loads(m.read_text()).get("snapshots", [])]
    job_ids_ever = {s["flink.job-id"] for s in ever if "flink.job-id" in s}
    for j in facts.get("jobs", []):
        if j["job_id"] not in job_ids_ever:
            problems.append(f"job {j['job_id']} from facts has no snapshot in the metadata")
    in_log = set(facts["final_table"]["flink_jobs_in_snapshot_log"])
    if in_log != job_ids_meta:
        problems.append(f"flink job ids: facts {sorted(in_log)} vs metadata {sorted(job_ids_meta)}")
    cur = next((s for s in latest.get("snapshots", []) if s["snapshot-id"] == latest.get("current-snapshot-id")), None)
    if cur:
        sm = cur["summary"]
        if sm.get("total-position-deletes", "0") == "0" and sm.get("total-equality-deletes", "0") == "0":
            if int(sm["total-records"]) != facts["final_table"]["rows"]:
                problems.append(f"total-records {sm['total-records']} != rows {facts['final_table']['rows']}")
    snaps_meta = latest.get("snapshots", [])
    if len(facts["final_table"]["snapshots"]) != len(snaps_meta):
        problems.append(f"snapshots: facts {len(facts['final_table']['snapshots'])} vs metadata {len(snaps_meta)}")
    by_id = {s["snapshot-id"]: s for s in snaps_meta}
    if "commits" in facts:  # the newer scenarios: one entry per snapshot with its Flink keys
        if len(facts["commits"]) != len(snaps_meta):
            problems.append(f"commits: facts {len(facts['commits'])} vs metadata snapshots {len(snaps_meta)}")
        for c in facts["commits"]:
            sm = by_id.get(c["snapshot_id"], {}).get("summary")
            if sm is None:
                problems.append(f"commit {c['snapshot_id']} not in the metadata")
                continue
            if sm.get("flink.job-id") != c["flink_job_id"]:
                problems.append(f"snapshot {c['snapshot_id']}: flink.job-id {sm.get('flink.job-id')} vs facts {c['flink_job_id']}")
            cp = sm.get("flink.max-committed-checkpoint-id")
            if (int(cp) if cp is not None else None) != c["max_committed_checkpoint_id"]:
                problems.append(f"snapshot {c['snapshot_id']}: checkpoint id {cp} vs facts {c['max_committed_checkpoint_id']}")
            if c.get("manifests_in_list") is not None:
                ml = local(by_id[c["snapshot_id"]]["manifest-list"])
                if ml.exists():
                    with open(ml, "rb") as fh:
                        n = sum(1 for _ in reader(fh))
                    if n != c["manifests_in_list"]:
                        problems.append(f"snapshot {c['snapshot_id']}: {n} manifests in its list vs facts {c['manifests_in_list']}")
    if "snapshots_ever" in facts:  # flink-maintenance: the current snapshots are the ones never expired
        alive = {x["snapshot_id"] for x in facts["snapshots_ever"] if x["expired_in"] is None}
        if alive != set(by_id):
            problems.append(f"snapshots_ever: {len(alive)} never expired vs {len(by_id)} in the metadata")
    jobs = {j["job_id"]: j for j in facts.get("jobs", [])}
    for sp in facts.get("savepoints", []):
        j = jobs.get(sp["job_id"])
        if j is None or sp.get("checkpoint_id") not in j["checkpoints"]["savepoint_ids"]:
            problems.append(f"savepoint {sp.get('checkpoint_id')} of job {sp['job_id']} not in its checkpoint history")
    if "at_end" in facts and facts["at_end"]["rows"] != facts["final_table"]["rows"]:
        problems.append(f"at_end rows {facts['at_end']['rows']} vs final_table rows {facts['final_table']['rows']}")
    for o in facts.get("store", {}).get("orphans", []):
        if not (d / o).exists():
            problems.append(f"orphan {o} not in the fixture")
        if loc + o in referenced:
            problems.append(f"orphan {o} is referenced by a manifest")
    if "deletion_vectors" in facts:
        problems += check_deletion_vectors(d, latest, local, facts)
    if not (d / "caption.md").exists():
        problems.append("no caption.md")
    return problems


def main(argv: list[str]) -> int:
    dirs = [Path(a) for a in argv] or sorted(p.parent for p in FIXTURES.glob("*/facts.json"))
    passed = failed = 0
    for d in dirs:
        probs = check(d)
        if probs:
            failed += 1
            print(f"FAIL {d.name}")
            for p in probs[:20]:
                print("   ", p)
        else:
            passed += 1
            print(f"ok   {d.name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

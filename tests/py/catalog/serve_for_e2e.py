"""SeaweedFS (Iceberg REST catalog + S3) with the catalog test tables, for the browser tests.

    tests/.venv/bin/python tests/py/catalog/serve_for_e2e.py OUT.json [--rest-fixture]

Starts `weed mini` on free loopback ports (catalogkit.start_seaweed), writes the same tables as
conftest.py's `catalog_tables` through PyIceberg, deletes one manifest of scope_damage.events_copy
behind the catalog's back (as `damaged_table` does), then writes OUT.json (atomically, so a reader
polling for it never sees half a file) and prints `ready OUT.json` on stdout:

    {catalog_uri, s3_endpoint, token_url, key, secret, scope, region, warehouse, ports, version,
     nested_namespaces, namespaces: [["scope_ns"], ...], listing: {"scope_ns": ["events", ...]},
     tables: {"scope_ns.events": {metadata_location, location, current_snapshot_id,
              snapshots: [{snapshot_id, parent_id, operation, total_data_files, total_records,
                           manifest_list, manifests, added_manifests}]}},
     damaged: {table, deleted_manifest, deleted_manifest_name, deleted_get_status,
               broken_snapshot_ids, intact_snapshot_ids}}

With --rest-fixture it also starts Apache Iceberg's REST reference server on that SeaweedFS
(restfixture.start_rest_fixture; it vends the S3 keys in LoadTable's `config`), writes
conftest.py's `rest_fixture_tables` through it, and adds `rest_fixture: {catalog_uri, tables}`.

Snapshot ids are written as decimal strings: they are 64-bit, and JavaScript's JSON.parse would
round them. Every count is PyIceberg's (its snapshot summaries), never ours.

It then serves until stdin reaches EOF (the parent closed the pipe, or died: the kernel closes it
either way) or SIGTERM/SIGINT/SIGHUP arrives, and stops the server's whole process group. It also
asks the kernel for SIGTERM when its parent dies (PR_SET_PDEATHSIG), which covers the minutes of
setup before it reads stdin; `weed` itself has the same arrangement with this process
(catalogkit._die_with_parent), so no server outlives the test run. On the way out it removes
its temp dir and OUT.json, and copies the server's log to tests/out/catalog/seaweedfs-e2e.log.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from catalogkit import (  # noqa: E402 - after the path fix above
    EVENTS_COPY, INSTALL_HINT, NESTED, OUT, RUNNING,
    build_tables, new_root, s3_status, start_seaweed, stop_all, weed_binary,
)


class Stop(Exception):
    pass


def _on_signal(sig, _frame):
    raise Stop(f"signal {sig}")


def _die_with_parent():
    parent = os.getppid()
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        raise Stop("parent gone")


def start(root: Path):
    """catalogkit.start_seaweed, retried when a chosen port was taken before weed bound it."""
    errors = []
    for attempt in range(3):
        try:
            return start_seaweed(weed_binary(), root, attempt)
        except (RuntimeError, TimeoutError) as e:
            log = root / f"weed-{attempt}.log"
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:]) if log.exists() else ""
            errors.append(f"attempt {attempt + 1}: {e}\n{tail}")
            if "address already in use" not in tail:
                break
    raise RuntimeError("SeaweedFS did not start:\n" + "\n\n".join(errors))


def ids(facts: dict) -> dict:
    """table_facts with 64-bit ids as strings, for JavaScript."""
    s = lambda v: None if v is None else str(v)  # noqa: E731
    return {
        "identifier": facts["identifier"],
        "metadata_location": facts["metadata_location"],
        "location": facts["location"],
        "format_version": facts["format_version"],
        "current_snapshot_id": s(facts["current_snapshot_id"]),
        "snapshots": [{
            "snapshot_id": s(x["snapshot_id"]),
            "parent_id": s(x["parent_id"]),
            "sequence_number": x["sequence_number"],
            "operation": x["operation"],
            "total_data_files": x["total_data_files"],
            "total_records": x["total_records"],
            "manifest_list": x["manifest_list"],
            "manifests": x["manifests"],
            "added_manifests": x["added_manifests"],
        } for x in facts["snapshots"]],
    }


REPO = Path(__file__).resolve().parents[3]


def upload_lab(sw) -> dict:
    """The lab's savepoint-resume table (Flink wrote it to s3://warehouse/icescope/savepoint_resume)
    and the savepoints Flink took of its jobs, put back on an S3 store at the keys they name, so the
    app can open both by location. Files are copied byte for byte, never rewritten."""
    table = REPO / "tests" / "fixtures" / "savepoint-resume"
    savepoints = REPO / "tests" / "savepoints" / "savepoint-resume"
    location = "s3://warehouse/icescope/savepoint_resume"
    s3 = sw.s3()

    def put(src: Path, prefix: str):
        for f in sorted(src.rglob("*")):
            if f.is_file():
                bucket, key = f"{prefix}/{f.relative_to(src).as_posix()}".removeprefix("s3://").split("/", 1)
                s3.put_object(Bucket=bucket, Key=key, Body=f.read_bytes())

    for part in ("metadata", "data"):
        put(table / part, f"{location}/{part}")
    # Flink's state goes to a bucket of its own (state.savepoints.dir), as it usually does.
    s3.create_bucket(Bucket="flink")
    for folder in sorted(p for p in savepoints.iterdir() if p.is_dir()):
        put(folder, f"s3://flink/savepoints/savepoint-resume/{folder.name}")
    newest = max((table / "metadata").glob("v*.metadata.json"), key=lambda p: int(p.name[1:].split(".")[0]))
    return {"savepoint_resume": {
        "location": location,
        "metadata_location": f"{location}/metadata/{newest.name}",
        "metadata_file": newest.name,
        "savepoints": "s3://flink/savepoints/savepoint-resume/",
    }}


def build(sw) -> dict:
    """The tables of conftest.py's `catalog_tables` and the damage of its `damaged_table`."""
    facts, namespaces, listing = build_tables(sw.catalog())
    nested = ".".join(NESTED) in facts

    # The manifest the third append added: every later snapshot still lists it, the first two do not.
    damaged = facts[".".join(EVENTS_COPY)]
    victim = damaged["snapshots"][2]["added_manifests"][0]
    bucket, key = victim.removeprefix("s3://").split("/", 1)
    sw.s3().delete_object(Bucket=bucket, Key=key)
    lab = upload_lab(sw)
    return {
        "lab": lab,
        "catalog_uri": sw.catalog_uri,
        "s3_endpoint": sw.s3_endpoint,
        "token_url": sw.token_url,
        "key": sw.key,
        "secret": sw.secret,
        "scope": sw.scope,
        "region": sw.region,
        "warehouse": sw.warehouse,
        "ports": sw.ports,
        "version": sw.version,
        "nested_namespaces": nested,
        "namespaces": [list(n) for n in namespaces],
        "listing": listing,
        "tables": {name: ids(f) for name, f in facts.items()},
        "damaged": {
            "table": ".".join(EVENTS_COPY),
            "deleted_manifest": victim,
            "deleted_manifest_name": victim.rsplit("/", 1)[-1],
            "deleted_get_status": s3_status(sw, victim)[0],
            "broken_snapshot_ids": [str(s["snapshot_id"]) for s in damaged["snapshots"] if victim in s["manifests"]],
            "intact_snapshot_ids": [str(s["snapshot_id"]) for s in damaged["snapshots"] if victim not in s["manifests"]],
        },
    }


def with_rest_fixture(sw, root: Path, facts: dict) -> None:
    """Apache Iceberg's REST reference server on `sw`, its tables written by PyIceberg."""
    from restfixture import RF_NESTED_NS, RF_NS, start_rest_fixture
    rf = start_rest_fixture(sw, root / "rest-fixture")
    RUNNING.append(rf)
    made, _, _ = build_tables(rf.catalog(), RF_NS, RF_NESTED_NS, damage_ns=None)
    facts["rest_fixture"] = {"catalog_uri": rf.catalog_uri, "tables": {name: ids(f) for name, f in made.items()}}


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--rest-fixture"]
    if len(args) != 1:
        print(f"usage: {sys.argv[0]} OUT.json [--rest-fixture]", file=sys.stderr)
        return 2
    out = Path(args[0])
    weed = weed_binary()
    if not (weed.is_file() and os.access(weed, os.X_OK)):
        print(f"SeaweedFS `weed` not found at {weed}: install it with {INSTALL_HINT} "
              "(or set ICESCOPE_WEED to a weed binary)", file=sys.stderr)
        return 3
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    root = None
    sw = None
    try:
        _die_with_parent()
        root = new_root()
        sw = start(root)
        RUNNING.append(sw)
        facts = build(sw)
        if "--rest-fixture" in sys.argv[1:]:
            with_rest_fixture(sw, root, facts)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps(facts, indent=2) + "\n")
        tmp.replace(out)
        print(f"ready {out}", flush=True)
        # Serve until the parent closes our stdin (or dies: the kernel closes it then).
        while sys.stdin.buffer.read(65536):
            pass
        return 0
    except Stop:
        return 0
    finally:
        # No more signals mid-teardown: the server must be stopped whatever arrives now.
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        stop_all()
        if sw is not None:
            try:  # keep the server's log for a look after the run
                OUT.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(sw.log, OUT / "seaweedfs-e2e.log")
            except OSError:
                pass
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)
        for f in (out, out.with_name(out.name + ".tmp")):  # it holds the secret and dead ports
            f.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())

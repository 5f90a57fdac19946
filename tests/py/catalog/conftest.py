"""Fixtures for the CLI against a real Iceberg REST catalog and S3 store (SeaweedFS `weed mini`).

`seaweed` (session) starts the server on free loopback ports in a temp dir and stops its whole
process group at the end, however the session ends. `catalog_tables` (session) writes the test
tables through the REST catalog with PyIceberg and records what PyIceberg itself says about them:
those facts are the expected values. Both write what they saw to tests/out/catalog/ (server.json,
rest-responses.json with GET /v1/config and LoadTable, catalog-facts.json, seaweedfs.log).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess

import pytest

from catalogkit import (
    DAMAGE_NS, EVENTS, EVENTS_COPY, INSTALL_HINT, NESTED, NESTED_NS, NS, ORDERS, OUT, RUNNING,
    CatalogTables, DamagedTable, Run, encode_ns, make_events, make_nested, make_orders,
    namespace_tree, new_root, s3_status, start_seaweed, stop_all, table_facts, token_error,
    weed_binary,
)


@pytest.fixture(scope="session")
def seaweed():
    """SeaweedFS `weed mini` (Iceberg REST catalog + S3) on free loopback ports, for the session."""
    weed = weed_binary()
    if not (weed.is_file() and os.access(weed, os.X_OK)):
        pytest.fail(f"SeaweedFS `weed` not found at {weed}: install it with {INSTALL_HINT} "
                    "(or set ICESCOPE_WEED to a weed binary)", pytrace=False)
    root = new_root()
    # pytest does not turn SIGTERM into an exception: do, so the finally below runs.
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(sig, frame):
        stop_all()
        raise KeyboardInterrupt(f"signal {sig}")

    if previous in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, on_term)
    sw = None
    try:
        errors = []
        for attempt in range(3):  # a port taken between choosing it and weed binding it: try again
            try:
                sw = start_seaweed(weed, root, attempt)
                break
            except (RuntimeError, TimeoutError) as e:
                log = root / f"weed-{attempt}.log"
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:]) if log.exists() else ""
                errors.append(f"attempt {attempt + 1}: {e}\n{tail}")
                if "address already in use" not in tail:
                    break
        if sw is None:
            pytest.fail("SeaweedFS did not start:\n" + "\n\n".join(errors), pytrace=False)
        RUNNING.append(sw)
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "server.json").write_text(json.dumps({
            "version": sw.version, "command": sw.command, "ports": sw.ports,
            "catalog_uri": sw.catalog_uri, "s3_endpoint": sw.s3_endpoint, "warehouse": sw.warehouse,
            "credential": "key:<secret>", "scope": sw.scope, "region": sw.region,
        }, indent=2) + "\n")
        yield sw
    finally:
        if sw is not None:
            sw.stop()
            if sw in RUNNING:
                RUNNING.remove(sw)
            try:  # keep the server's log for a look after the run
                OUT.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(sw.log, OUT / "seaweedfs.log")
            except OSError:
                pass
        shutil.rmtree(root, ignore_errors=True)
        if signal.getsignal(signal.SIGTERM) is on_term:
            signal.signal(signal.SIGTERM, previous)


@pytest.fixture(scope="session")
def catalog_tables(seaweed) -> CatalogTables:
    """The test tables, written through the REST catalog by PyIceberg:

    - scope_ns.events: partitioned by day(ts), 8 appends, then a delete of one append's rows
    - scope_ns.orders: 2 appends, a schema change (add `status`, rename `total` to `amount`), 2 appends
    - scope_ns.inner.deep: a table in a nested namespace (SeaweedFS 4.48 accepts nested namespaces)
    - scope_damage.events_copy: 5 appends, for the test that deletes one of its manifests
    """
    cat = seaweed.catalog()
    cat.create_namespace(NS)
    try:
        cat.create_namespace(NESTED_NS)
        nested = True
    except Exception:  # noqa: BLE001 - a catalog without nested namespaces: say so, test the rest
        nested = False
    cat.create_namespace(DAMAGE_NS)
    made = {
        EVENTS: make_events(cat, EVENTS),
        ORDERS: make_orders(cat, ORDERS),
        EVENTS_COPY: make_events(cat, EVENTS_COPY, appends=5, delete=False),
    }
    if nested:
        made[NESTED] = make_nested(cat, NESTED)
    facts = {".".join(ident): table_facts(ident, t) for ident, t in made.items()}
    namespaces = namespace_tree(cat)
    tables = {".".join(ns): sorted(i[-1] for i in cat.list_tables(ns)) for ns in namespaces}

    # What the catalog itself answers, for the CLI's author: config and vended credentials.
    rest = {"GET /v1/config": seaweed.rest("/v1/config"),
            f"GET /v1/config?warehouse={seaweed.warehouse}": seaweed.rest(f"/v1/config?warehouse={seaweed.warehouse}")}
    _, config = rest[f"GET /v1/config?warehouse={seaweed.warehouse}"]
    prefix = (config.get("overrides") or {}).get("prefix", "") if isinstance(config, dict) else ""
    base = f"/v1/{prefix}" if prefix else "/v1"
    rest["GET namespaces"] = seaweed.rest(f"{base}/namespaces")
    for ident in made:
        ns, name = ident[:-1], ident[-1]
        path = f"{base}/namespaces/{encode_ns(ns)}/tables/{name}"
        for label, headers in (("plain", {}),
                               ("vended-credentials", {"X-Iceberg-Access-Delegation": "vended-credentials"})):
            status, body = seaweed.rest(path, headers)
            if isinstance(body, dict) and "metadata" in body:
                body = {**body, "metadata": f"<{len(json.dumps(body['metadata']))} chars of table metadata>"}
            rest[f"LoadTable {path} ({label})"] = [status, body]
    rest["bad credential: POST /v1/oauth/tokens"] = token_error(seaweed)
    rest["unknown table"] = seaweed.rest(f"{base}/namespaces/{encode_ns(NS)}/tables/no_such_table")
    rest["bad token: GET namespaces"] = seaweed.rest(f"{base}/namespaces", token="not-a-token")
    rest["no Authorization header: GET namespaces"] = seaweed.rest(f"{base}/namespaces", token="")
    md = facts[".".join(EVENTS)]["metadata_location"]
    rest["S3 GET metadata.json: right keys"] = s3_status(seaweed, md)
    rest["S3 GET metadata.json: wrong secret"] = s3_status(seaweed, md, secret="wrong-secret")
    rest["S3 GET metadata.json: unknown access key id"] = s3_status(seaweed, md, key="no-such-key")
    rest["S3 GET never-written .avro in a table folder"] = s3_status(seaweed, md.rsplit("/", 1)[0] + "/nope.avro")
    rest["S3 GET never-written odd name in a table folder"] = s3_status(seaweed, md.rsplit("/", 1)[0] + "/nope")

    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "rest-responses.json").write_text(json.dumps(rest, indent=2, sort_keys=True) + "\n")
    (OUT / "catalog-facts.json").write_text(json.dumps({
        "nested_namespaces": nested,
        "namespaces": [list(n) for n in namespaces],
        "tables": tables,
        "facts": facts,
    }, indent=2) + "\n")
    return CatalogTables(facts=facts, namespaces=namespaces, tables=tables, nested_namespaces=nested, rest=rest)


@pytest.fixture(scope="session")
def damaged_table(seaweed, catalog_tables) -> DamagedTable:
    """scope_damage.events_copy with one manifest object deleted from S3 behind the catalog's back:
    the manifest the third append added, which every later snapshot still lists (fast appends
    carry manifests forward) and the first two do not."""
    ident = ".".join(EVENTS_COPY)
    facts = catalog_tables.facts[ident]
    victim = facts["snapshots"][2]["added_manifests"][0]
    bucket, key = victim.removeprefix("s3://").split("/", 1)
    seaweed.s3().delete_object(Bucket=bucket, Key=key)
    status = s3_status(seaweed, victim)[0]
    broken = [s["snapshot_id"] for s in facts["snapshots"] if victim in s["manifests"]]
    intact = [s["snapshot_id"] for s in facts["snapshots"] if victim not in s["manifests"]]
    return DamagedTable(ident, facts, victim, status, broken, intact)


@pytest.fixture(scope="session")
def run_cli(icescope):
    """Run the CLI with a clean environment: no AWS_*, ICESCOPE_CREDENTIAL or ICESCOPE_TOKEN from
    the caller's shell, only what the test passes in `env`."""

    def run(*args: str, env: dict | None = None, timeout: float = 120) -> Run:
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("AWS_", "ICESCOPE_CREDENTIAL", "ICESCOPE_TOKEN"))}
        base["AWS_EC2_METADATA_DISABLED"] = "true"
        p = subprocess.run([str(icescope), *args], capture_output=True, text=True, timeout=timeout,
                           env={**base, **(env or {})}, stdin=subprocess.DEVNULL)
        return Run(list(args), p.returncode, p.stdout, p.stderr)

    return run

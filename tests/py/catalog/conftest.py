"""Fixtures for the CLI against a real Iceberg REST catalog and S3 store (SeaweedFS `weed mini`).

`seaweed` (session) starts the server on free loopback ports in a temp dir and stops its whole
process group at the end, however the session ends. `catalog_tables` (session) writes the test
tables through the REST catalog with PyIceberg and records what PyIceberg itself says about them:
those facts are the expected values. Both write what they saw to tests/out/catalog/ (server.json,
rest-responses.json with GET /v1/config and LoadTable, catalog-facts.json, seaweedfs.log).

`rest_fixture` (session) is a second, independent REST catalog implementation: Apache Iceberg's
RESTCatalogServer (see restfixture.py), storing through the same SeaweedFS S3. `rest_fixture_tables`
writes tables through it with PyIceberg and records its answers in rest-fixture-*.json/.log.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess

import pytest

from catalogkit import (
    EVENTS, EVENTS_COPY, INSTALL_HINT, NESTED, NS, OUT, RUNNING,
    CatalogTables, DamagedTable, Run, build_tables, encode_ns, new_root, s3_status, save_outputs,
    start_seaweed, stop_all, token_error, weed_binary,
)
from restfixture import (
    ARTIFACT, FETCH_HINT, ICEBERG_VERSION, RF_NESTED, RF_NESTED_NS, RF_NS, RestFixture,
    listening_sockets, short_errors, start_rest_fixture,
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
    facts, namespaces, tables = build_tables(cat)
    nested = ".".join(NESTED) in facts

    # What the catalog itself answers, for the CLI's author: config and vended credentials.
    rest = {"GET /v1/config": seaweed.rest("/v1/config"),
            f"GET /v1/config?warehouse={seaweed.warehouse}": seaweed.rest(f"/v1/config?warehouse={seaweed.warehouse}")}
    _, config = rest[f"GET /v1/config?warehouse={seaweed.warehouse}"]
    prefix = (config.get("overrides") or {}).get("prefix", "") if isinstance(config, dict) else ""
    base = f"/v1/{prefix}" if prefix else "/v1"
    rest["GET namespaces"] = seaweed.rest(f"{base}/namespaces")
    for key in facts:
        ident = tuple(key.split("."))
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

    save_outputs("rest-responses.json", "catalog-facts.json", rest, facts, namespaces, tables, nested)
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


# ---------------------------------------------------------------- Apache Iceberg's REST fixture

@pytest.fixture(scope="session")
def rest_fixture(seaweed) -> RestFixture:
    """Apache Iceberg's RESTCatalogServer (iceberg-open-api test-fixtures) on 127.0.0.1 and a free
    port, JdbcCatalog on sqlite, S3FileIO into SeaweedFS bucket `rest-fixture`, for the session."""
    root = seaweed.data_dir.parent / "rest-fixture"
    rf, problem = None, None
    try:
        rf = start_rest_fixture(seaweed, root)
    except FileNotFoundError as e:
        problem = str(e)
    except (RuntimeError, TimeoutError) as e:
        problem = f"the Iceberg REST fixture did not start: {e}"
    if rf is None:
        pytest.fail(problem, pytrace=False)
    RUNNING.append(rf)  # stop_all (atexit, SIGTERM) stops it too
    sockets = listening_sockets(rf.proc.pid)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "rest-fixture-server.json").write_text(json.dumps({
        "artifact": ARTIFACT, "iceberg_version": ICEBERG_VERSION, "fetch": FETCH_HINT,
        "command": rf.command, "env": rf.env, "catalog_uri": rf.catalog_uri, "port": rf.port,
        "listening (ss -ltnp)": sockets, "s3_endpoint": rf.s3_endpoint, "warehouse": rf.warehouse,
    }, indent=2) + "\n")
    try:
        yield rf
    finally:
        rf.stop()
        if rf in RUNNING:
            RUNNING.remove(rf)
        try:
            shutil.copyfile(rf.log, OUT / "rest-fixture.log")
        except OSError:
            pass


@pytest.fixture(scope="session")
def rest_fixture_tables(rest_fixture) -> CatalogTables:
    """Tables written through the Iceberg REST fixture by PyIceberg (same histories as above):

    - rf_ns.events: partitioned by day(ts), 8 appends, then a delete of one append's rows
    - rf_ns.orders: 2 appends, a schema change, 2 appends
    - rf_ns.inner.deep: a nested namespace, if the server takes one
    """
    rf = rest_fixture
    facts, namespaces, tables = build_tables(rf.catalog(), RF_NS, RF_NESTED_NS, damage_ns=None)
    nested = ".".join(RF_NESTED) in facts
    made = [tuple(k.split(".")) for k in facts]

    # What this server answers. It has no auth: see the made-up token and client below.
    rest = {"GET /v1/config": rf.rest("/v1/config")}
    _, config = rest["GET /v1/config"]
    sep = ((config or {}).get("overrides") or {}).get("namespace-separator", "%1F") if isinstance(config, dict) else "%1F"
    rest["GET /v1/namespaces"] = rf.rest("/v1/namespaces")
    if nested:
        rest["GET /v1/namespaces?parent=rf_ns"] = rf.rest("/v1/namespaces?parent=rf_ns")
    for ident in made:
        ns, name = ident[:-1], ident[-1]
        path = f"/v1/namespaces/{sep.join(ns)}/tables/{name}"
        for label, headers in (("plain", {}),
                               ("vended-credentials", {"X-Iceberg-Access-Delegation": "vended-credentials"})):
            status, body = rf.rest(path, headers)
            if isinstance(body, dict):
                if "metadata" in body:
                    body = {**body, "metadata": f"<{len(json.dumps(body['metadata']))} chars of table metadata>"}
                if isinstance(body.get("config"), dict):  # never write the secret, even to tests/out
                    body = {**body, "config": {k: ("<the S3 secret>" if v == rf.secret else v)
                                               for k, v in body["config"].items()}}
            rest[f"LoadTable {path} ({label})"] = [status, body]
        status, body = rf.rest(f"{path}/credentials")
        rest[f"GET {path}/credentials"] = [status, body if not isinstance(body, dict) else
                                           json.loads(json.dumps(body).replace(rf.secret, "<the S3 secret>"))]
    rest["GET /v1/namespaces with a made-up bearer token"] = rf.rest(
        "/v1/namespaces", {"Authorization": "Bearer not-a-token"})
    rest["POST /v1/oauth/tokens (client_credentials, made-up client)"] = rf.rest(
        "/v1/oauth/tokens", form={"grant_type": "client_credentials", "client_id": "anyone",
                                  "client_secret": "anything", "scope": "catalog"})
    rest["unknown table"] = rf.rest(f"/v1/namespaces/{RF_NS[0]}/tables/no_such_table")
    rest["unknown namespace"] = rf.rest("/v1/namespaces/no_such_ns/tables/events")
    rest = short_errors(rest)  # its error bodies carry whole Java stack traces

    save_outputs("rest-fixture-responses.json", "rest-fixture-facts.json", rest, facts, namespaces, tables, nested)
    return CatalogTables(facts=facts, namespaces=namespaces, tables=tables, nested_namespaces=nested, rest=rest)

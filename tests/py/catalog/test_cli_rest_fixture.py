"""The CLI against a second REST catalog implementation: Apache Iceberg's own RESTCatalogServer
(org.apache.iceberg:iceberg-open-api:1.11.0:test-fixtures, see restfixture.py), with its data in
the session's SeaweedFS S3. Expected values are PyIceberg's, as in test_cli_catalog.py.

This server differs from SeaweedFS's catalog in ways the CLI must handle: no auth at all, no
`prefix`, `namespace-separator` `%2E` in GET /v1/config overrides, and S3 keys vended in LoadTable
`config` (CATALOG_INCLUDE__CREDENTIALS=true) but no endpoint.
"""

from __future__ import annotations

import pytest

from needs import needs
from restfixture import RF_EVENTS, RF_NESTED, RF_ORDERS, listening_sockets
from test_cli_catalog import assert_failed, assert_matches_pyiceberg, assert_no_secret


def s3_flags(rf, *, keys: bool = True) -> list[str]:
    args = ["--s3-endpoint", rf.s3_endpoint]
    if keys:
        args += ["--s3-access-key-id", rf.key, "--s3-secret-access-key", rf.secret]
    return args + ["--s3-region", rf.region, "--s3-path-style-access"]


def inspect_args(rf, table: str, *, keys: bool = True) -> list[str]:
    return ["inspect", "--catalog", rf.catalog_uri, "--table", table, *s3_flags(rf, keys=keys), "--format", "json"]


TABLES = [pytest.param(".".join(RF_EVENTS), id="events"), pytest.param(".".join(RF_ORDERS), id="orders")]


def test_rest_fixture_listens_on_loopback_only(rest_fixture):
    sockets = listening_sockets(rest_fixture.proc.pid)
    needs(bool(sockets), "`ss` (iproute2) is not available to list the server's sockets")
    local = [line.split()[3] for line in sockets]  # State Recv-Q Send-Q Local Peer Process
    assert local == [f"127.0.0.1:{rest_fixture.port}"], f"the JVM listens on {local}"


def test_rest_fixture_tables_have_the_history_they_were_written_with(rest_fixture_tables):
    ops = [s["operation"] for s in rest_fixture_tables.facts[".".join(RF_EVENTS)]["snapshots"]]
    assert ops == ["append"] * 8 + ["delete"]
    orders = rest_fixture_tables.facts[".".join(RF_ORDERS)]
    assert len(orders["schema_ids"]) == 2 and orders["current_schema_id"] == orders["schema_ids"][-1]
    for facts in rest_fixture_tables.facts.values():  # written by the server's S3FileIO into SeaweedFS
        assert facts["metadata_location"].startswith("s3://rest-fixture/warehouse/")


@pytest.mark.parametrize("table", TABLES)
def test_inspect_via_rest_fixture_with_flags(rest_fixture, rest_fixture_tables, run_cli, table):
    run = run_cli(*inspect_args(rest_fixture, table))
    assert_matches_pyiceberg(run.json(), rest_fixture_tables.facts[table])
    assert_no_secret(run, rest_fixture.secret)


def test_inspect_nested_namespace_via_rest_fixture(rest_fixture, rest_fixture_tables, run_cli):
    needs(rest_fixture_tables.nested_namespaces, "this catalog refused a nested namespace")
    table = ".".join(RF_NESTED)  # namespace ["rf_ns", "inner"] sent as rf_ns%2Einner (separator %2E)
    report = run_cli(*inspect_args(rest_fixture, table)).json()
    assert_matches_pyiceberg(report, rest_fixture_tables.facts[table])


@pytest.mark.parametrize("auth", [pytest.param([], id="no-auth"),
                                  pytest.param(["--credential", "anyone:any-secret-3c1f"], id="oauth2")])
def test_catalog_listing_via_rest_fixture(rest_fixture, rest_fixture_tables, run_cli, auth):
    """Also with OAuth2 client credentials: the server's /v1/oauth/tokens hands a token to anyone."""
    run = run_cli("catalog", "--catalog", rest_fixture.catalog_uri, *auth, "--format", "json")
    listing = run.json()
    assert_no_secret(run, "any-secret-3c1f")
    assert sorted(map(tuple, listing["namespaces"])) == rest_fixture_tables.namespaces
    assert {ns: sorted(names) for ns, names in listing["tables"].items()} == rest_fixture_tables.tables
    assert sorted(listing["tables"]["rf_ns"]) == ["events", "orders"]


@pytest.mark.parametrize("table", TABLES)
def test_inspect_with_vended_keys_and_no_key_flags(rest_fixture, rest_fixture_tables, run_cli, table):
    """LoadTable's `config` carries s3.access-key-id/s3.secret-access-key (the server's
    include-credentials), but no endpoint: the CLI gets the endpoint from flags and the keys from
    the catalog alone. The control shows the bucket refuses a read without keys."""
    rf, facts = rest_fixture, rest_fixture_tables.facts[table]
    path = f"/v1/namespaces/{table.rsplit('.', 1)[0]}/tables/{table.rsplit('.', 1)[1]}"
    vended = rest_fixture_tables.rest[f"LoadTable {path} (vended-credentials)"][1]["config"]
    assert vended.get("s3.access-key-id") == rf.key and "s3.secret-access-key" in vended
    assert "s3.endpoint" not in vended

    control = run_cli("inspect", facts["metadata_location"], *s3_flags(rf, keys=False), "--format", "json")
    assert_failed(control)
    assert "403" in control.stderr, "SeaweedFS must refuse an unsigned read, or this test proves nothing"

    run = run_cli(*inspect_args(rf, table, keys=False))
    assert_matches_pyiceberg(run.json(), facts)
    assert_no_secret(run, rf.secret)


def test_unknown_table_via_rest_fixture_says_404_and_the_name(rest_fixture, rest_fixture_tables, run_cli):
    run = run_cli(*inspect_args(rest_fixture, "rf_ns.no_such_table"))
    assert_failed(run)
    assert "404" in run.stderr
    assert "no_such_table" in run.stderr
    assert_no_secret(run, rest_fixture.secret)


def test_vended_keys_win_over_typed_keys(rest_fixture, rest_fixture_tables, run_cli):
    """The documented precedence (rest_catalog::props_for): LoadTable `config` over what the user
    typed. Wrong typed keys do not matter while the catalog vends right ones."""
    rf, table = rest_fixture, ".".join(RF_EVENTS)
    wrong = "wrong-typed-5e7a"
    args = ["inspect", "--catalog", rf.catalog_uri, "--table", table, "--s3-endpoint", rf.s3_endpoint,
            "--s3-access-key-id", "no-such-key", "--s3-secret-access-key", wrong,
            "--s3-region", rf.region, "--s3-path-style-access", "--format", "json"]
    run = run_cli(*args)
    assert_matches_pyiceberg(run.json(), rest_fixture_tables.facts[table])
    assert_no_secret(run, rf.secret, wrong)


def test_no_s3_flags_at_all_says_the_endpoint_is_missing(rest_fixture, rest_fixture_tables, run_cli):
    """This server vends keys but no s3.endpoint, so with no --s3-* flags at all the CLI cannot
    know where the bucket is, and must say so (rather than guess AWS) without printing the
    vended secret."""
    rf, table = rest_fixture, ".".join(RF_EVENTS)
    run = run_cli("inspect", "--catalog", rf.catalog_uri, "--table", table, "--format", "json")
    assert_failed(run)
    assert "endpoint" in run.stderr.lower()
    assert rest_fixture_tables.facts[table]["metadata_location"] in run.stderr
    assert_no_secret(run, rf.secret)

"""The CLI against a real Iceberg REST catalog and S3 store (SeaweedFS), checked against PyIceberg.

Contract under test (the catalog/S3 flags are new; a CLI without them fails these tests):

    icescope inspect --catalog URI --warehouse WH --table NS.TABLE [--credential ID:SECRET]
        [--scope SCOPE] [--s3-endpoint URL] [--s3-access-key-id ID] [--s3-secret-access-key SECRET]
        [--s3-region REGION] [--s3-path-style-access] --format json
    icescope inspect s3://BUCKET/PATH/metadata/FILE.metadata.json [--s3-...] --format json
    icescope catalog --catalog URI --warehouse WH [--credential ID:SECRET] --format json

Secrets may come from the environment instead: ICESCOPE_CREDENTIAL, AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY. Expected values are PyIceberg's own (see conftest.py), never the CLI's.
"""

from __future__ import annotations

import pytest

from needs import needs
from catalogkit import EVENTS, NESTED, ORDERS, closed_port

SECRET_FREE = "the secret must never be printed"


def catalog_args(sw, table: str, *, catalog: str | None = None, credential: str | None = "flag",
                 s3_keys: bool = True, s3_secret: str | None = None) -> list[str]:
    args = ["inspect", "--catalog", catalog or sw.catalog_uri, "--warehouse", sw.warehouse, "--table", table]
    if credential is not None:
        args += ["--credential", sw.credential if credential == "flag" else credential]
    args += ["--scope", sw.scope]
    args += s3_args(sw, keys=s3_keys, secret=s3_secret)
    return args + ["--format", "json"]


def s3_args(sw, *, endpoint: str | None = None, keys: bool = True, secret: str | None = None) -> list[str]:
    args = ["--s3-endpoint", endpoint or sw.s3_endpoint]
    if keys:
        args += ["--s3-access-key-id", sw.key, "--s3-secret-access-key", secret or sw.secret]
    return args + ["--s3-region", sw.region, "--s3-path-style-access"]


def assert_no_secret(run, *secrets: str):
    for s in secrets:
        assert s not in run.stdout, f"{SECRET_FREE}: found in stdout"
        assert s not in run.stderr, f"{SECRET_FREE}: found in stderr:\n{run.stderr}"


def assert_failed(run):
    assert run.returncode != 0, f"expected a failure, got exit 0 with stdout:\n{run.stdout[:2000]}"
    assert run.stderr.strip(), "a failure must say why on stderr"


def assert_matches_pyiceberg(report: dict, facts: dict):
    """The CLI's report of a table equals what PyIceberg says about it."""
    table = report["table"]
    assert table["metadata_file"] == facts["metadata_location"]
    assert table["location"] == facts["location"]
    assert table["format_version"] == facts["format_version"]
    assert table["current_snapshot_id"] == facts["current_snapshot_id"]
    expected = {s["snapshot_id"]: s for s in facts["snapshots"]}
    got = {s["snapshot_id"]: s for s in report["snapshots"]}
    assert sorted(got) == sorted(expected), "snapshot ids differ from PyIceberg's"
    for sid, want in expected.items():
        row = got[sid]
        assert row["parent_id"] == want["parent_id"], f"snapshot {sid}: parent_id"
        assert row["operation"] == want["operation"], f"snapshot {sid}: operation"
        assert (row["data_files"], row["records"]) == (want["total_data_files"], want["total_records"]), (
            f"snapshot {sid} ({want['operation']}): (data_files, records) vs PyIceberg's "
            "(total-data-files, total-records)")
        assert row["manifests"] == len(want["manifests"]), f"snapshot {sid}: manifests"
    assert report["gaps"] == [], f"no file is missing, yet gaps: {report['gaps']}"


TABLES = [pytest.param(".".join(EVENTS), id="events"), pytest.param(".".join(ORDERS), id="orders")]


# ---------------------------------------------------------------- reading through the catalog


@pytest.mark.parametrize("table", TABLES)
def test_inspect_via_catalog_with_flags(seaweed, catalog_tables, run_cli, table):
    run = run_cli(*catalog_args(seaweed, table))
    report = run.json()
    assert_matches_pyiceberg(report, catalog_tables.facts[table])
    assert_no_secret(run, seaweed.secret)


def test_events_table_has_the_history_it_was_written_with(catalog_tables):
    """The fixture itself: 8 appends and a delete, as PyIceberg records them (guards the expected
    values above against a fixture that silently wrote something else)."""
    ops = [s["operation"] for s in catalog_tables.facts[".".join(EVENTS)]["snapshots"]]
    assert ops == ["append"] * 8 + ["delete"]
    orders = catalog_tables.facts[".".join(ORDERS)]
    assert len(orders["schema_ids"]) == 2 and orders["current_schema_id"] == orders["schema_ids"][-1]


def test_inspect_nested_namespace(seaweed, catalog_tables, run_cli):
    needs(catalog_tables.nested_namespaces, "this catalog refused a nested namespace")
    table = ".".join(NESTED)  # scope_ns.inner.deep: namespace ["scope_ns", "inner"], table "deep"
    report = run_cli(*catalog_args(seaweed, table)).json()
    assert_matches_pyiceberg(report, catalog_tables.facts[table])


@pytest.mark.parametrize("table", TABLES)
def test_inspect_via_catalog_with_secrets_from_env(seaweed, catalog_tables, run_cli, table):
    args = catalog_args(seaweed, table, credential=None, s3_keys=False)
    run = run_cli(*args, env={"ICESCOPE_CREDENTIAL": seaweed.credential,
                              "AWS_ACCESS_KEY_ID": seaweed.key, "AWS_SECRET_ACCESS_KEY": seaweed.secret})
    assert seaweed.secret not in " ".join(args)
    report = run.json()
    assert_matches_pyiceberg(report, catalog_tables.facts[table])
    assert_no_secret(run, seaweed.secret)


@pytest.mark.parametrize("command", ["inspect", "catalog", "orphans", "duplicates"])
def test_help_names_the_secret_variables_and_never_their_values(run_cli, command):
    """`--help` says which variables stand in for the secret flags; with them set, their values
    stay out of the help text, and out of a usage error."""
    secrets = {"ICESCOPE_TOKEN": "tok-9f3a-help", "ICESCOPE_CREDENTIAL": "id:cred-77e1-help",
               "AWS_ACCESS_KEY_ID": "AKIA-help-5521", "AWS_SECRET_ACCESS_KEY": "sk-help-0c4b",
               "AWS_SESSION_TOKEN": "st-help-e2d9", "AWS_REGION": "eu-help-1"}
    run = run_cli(command, "--help", env=secrets)
    assert run.returncode == 0, run.stderr
    words = " ".join(run.stdout.split())  # clap wraps help to 80 columns
    for var in ["ICESCOPE_TOKEN", "ICESCOPE_CREDENTIAL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]:
        assert f"[env: {var}]" in words, f"{command} --help does not name {var}"
    bad = run_cli(command, "--no-such-flag", env=secrets)
    assert bad.returncode == 2 and "--no-such-flag" in bad.stderr, bad.stderr
    for value in secrets.values():
        assert value not in run.stdout + run.stderr + bad.stdout + bad.stderr, f"{value} was printed"


@pytest.mark.parametrize("table", TABLES)
def test_inspect_direct_s3_metadata_url(seaweed, catalog_tables, run_cli, table):
    facts = catalog_tables.facts[table]
    assert facts["metadata_location"].startswith(f"s3://{seaweed.warehouse}/")
    run = run_cli("inspect", facts["metadata_location"], *s3_args(seaweed), "--format", "json")
    assert_matches_pyiceberg(run.json(), facts)
    assert_no_secret(run, seaweed.secret)


# ---------------------------------------------------------------- listing


def test_catalog_listing_matches_pyiceberg(seaweed, catalog_tables, run_cli):
    run = run_cli("catalog", "--catalog", seaweed.catalog_uri, "--warehouse", seaweed.warehouse,
                  "--credential", seaweed.credential, "--format", "json")  # default scope
    listing = run.json()
    assert sorted(map(tuple, listing["namespaces"])) == catalog_tables.namespaces
    assert {ns: sorted(names) for ns, names in listing["tables"].items()} == catalog_tables.tables
    assert listing["tables"]["scope_ns"] and sorted(listing["tables"]["scope_ns"]) == ["events", "orders"]
    assert_no_secret(run, seaweed.secret)


# ---------------------------------------------------------------- errors a person can act on


def test_wrong_credential_says_401_token_url_and_credential(seaweed, catalog_tables, run_cli):
    wrong = "wrong-4e1d"  # distinctive, so finding it in the output can only be a leak
    run = run_cli(*catalog_args(seaweed, ".".join(EVENTS), credential=f"{seaweed.key}:{wrong}"))
    assert_failed(run)
    # SeaweedFS answers the token request with 401 {"error":"invalid_client",...}.
    assert "401" in run.stderr
    assert seaweed.token_url in run.stderr
    assert "credential" in run.stderr.lower()
    assert_no_secret(run, wrong, seaweed.secret)


def test_unknown_table_says_404_and_the_name(seaweed, catalog_tables, run_cli):
    run = run_cli(*catalog_args(seaweed, "scope_ns.no_such_table"))
    assert_failed(run)
    # SeaweedFS: 404 {"error":{"type":"NoSuchTableException","message":"Table does not exist: no_such_table"}}
    assert "404" in run.stderr
    assert "no_such_table" in run.stderr
    assert_no_secret(run, seaweed.secret)


def test_missing_manifest_is_a_gap_not_a_failure(seaweed, damaged_table, run_cli):
    d = damaged_table
    assert d.deleted_get_status == 404, "S3 should now answer 404 NoSuchKey for the deleted manifest"
    assert d.broken_snapshot_ids and d.intact_snapshot_ids
    run = run_cli(*catalog_args(seaweed, d.ident))
    report = run.json()  # exit 0: the rest of the history stands
    assert report["table"]["metadata_file"] == d.facts["metadata_location"]
    gaps = [g for g in report["gaps"] if g["file"] == d.deleted_manifest]
    assert gaps, f"no gap names {d.deleted_manifest}: {report['gaps']}"
    assert [g["file"] for g in report["gaps"]] == [d.deleted_manifest], "only the deleted manifest is missing"
    rows = {s["snapshot_id"]: s for s in report["snapshots"]}
    assert sorted(rows) == sorted(s["snapshot_id"] for s in d.facts["snapshots"])
    uncounted = sorted(sid for sid, r in rows.items() if r["counts_from"] != "manifests")
    assert uncounted == sorted(d.broken_snapshot_ids), "counted from manifests exactly where every listed manifest is there"
    stated = {s["snapshot_id"]: s for s in d.facts["snapshots"]}
    for sid in d.broken_snapshot_ids:
        # Not a partial count: the manifest list's own rows (exact, delete kinds not split), marked as such.
        assert rows[sid]["counts_from"] == "manifest_list", f"snapshot {sid}: {rows[sid]['counts_from']}"
        assert (rows[sid]["data_files"], rows[sid]["records"]) == (stated[sid]["total_data_files"], stated[sid]["total_records"])
    for s in d.facts["snapshots"]:
        if s["snapshot_id"] in d.intact_snapshot_ids:
            row = rows[s["snapshot_id"]]
            assert (row["data_files"], row["records"]) == (s["total_data_files"], s["total_records"])


def _object_urls(sw, s3_url: str) -> tuple[str, str]:
    """An object as s3://bucket/key and as the path-style HTTP URL the request went to."""
    return s3_url, f"{sw.s3_endpoint}/{s3_url.removeprefix('s3://')}"


def test_wrong_s3_secret_direct_url_says_403_and_the_object(seaweed, catalog_tables, run_cli):
    wrong = "wrong-s3-9b2c"
    url = catalog_tables.facts[".".join(EVENTS)]["metadata_location"]
    run = run_cli("inspect", url, *s3_args(seaweed, secret=wrong), "--format", "json")
    assert_failed(run)
    # SeaweedFS: 403 SignatureDoesNotMatch
    assert "403" in run.stderr
    assert any(u in run.stderr for u in _object_urls(seaweed, url)), f"stderr names neither form of {url}"
    assert_no_secret(run, wrong, seaweed.secret)


def test_wrong_s3_secret_via_catalog_says_403_and_the_metadata_file(seaweed, catalog_tables, run_cli):
    wrong = "wrong-s3-9b2c"
    facts = catalog_tables.facts[".".join(EVENTS)]
    run = run_cli(*catalog_args(seaweed, ".".join(EVENTS), s3_secret=wrong))
    assert_failed(run)
    assert "403" in run.stderr
    assert any(u in run.stderr for u in _object_urls(seaweed, facts["metadata_location"]))
    assert_no_secret(run, wrong, seaweed.secret)


def test_catalog_connection_refused_names_the_uri(seaweed, catalog_tables, run_cli):
    uri = f"http://127.0.0.1:{closed_port()}"
    run = run_cli(*catalog_args(seaweed, ".".join(EVENTS), catalog=uri), timeout=60)
    assert_failed(run)
    assert "refused" in run.stderr.lower() or "connect" in run.stderr.lower()
    assert uri in run.stderr
    assert_no_secret(run, seaweed.secret)


def test_s3_connection_refused_names_the_endpoint(seaweed, catalog_tables, run_cli):
    endpoint = f"http://127.0.0.1:{closed_port()}"
    url = catalog_tables.facts[".".join(EVENTS)]["metadata_location"]
    run = run_cli("inspect", url, *s3_args(seaweed, endpoint=endpoint), "--format", "json", timeout=60)
    assert_failed(run)
    assert "refused" in run.stderr.lower() or "connect" in run.stderr.lower()
    assert endpoint in run.stderr
    assert_no_secret(run, seaweed.secret)

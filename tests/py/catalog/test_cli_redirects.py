"""A server the user named answers with a redirect to one they did not: the CLI does not follow it.

Two real HTTP servers on loopback: `named` (the URL, catalog or S3 endpoint the user typed) answers
302 to `elsewhere`, which records every request it gets and would serve the table's real files. Had
a redirect been followed, `elsewhere` would have been asked (and the read would have worked), so an
empty log there is the outcome, not a formality.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from catalogkit import HOST, REPO

TABLE = REPO / "tests" / "fixtures" / "late-data"
METADATA = "v4.metadata.json"
# The table's own paths: s3://warehouse/icescope/late_data/metadata/…
PREFIX = "/warehouse/icescope/late_data"
# A redirect target may carry a signature; it must not be printed.
SIGNED = "X-Amz-Signature=deadbeef0123456789"


class Server:
    def __init__(self, handler):
        self.requests: list[str] = []
        self.http = ThreadingHTTPServer((HOST, 0), handler)
        self.http.owner = self
        self.url = f"http://{HOST}:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self):
        self.http.shutdown()
        self.http.server_close()


class Quiet(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Elsewhere(Quiet):
    """Serves the table's files by name, and remembers that it was asked."""

    def do_GET(self):
        self.server.owner.requests.append(f"GET {self.path}")
        name = Path(self.path.split("?")[0]).name
        hits = list(TABLE.rglob(name)) if name else []
        body = hits[0].read_bytes() if hits else b""
        self.send_response(200 if hits else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET
    do_HEAD = do_GET


def redirecting(target: str, serve_metadata: bool = False):
    class Named(Quiet):
        def do_GET(self):
            self.server.owner.requests.append(f"GET {self.path}")
            if serve_metadata and self.path.endswith(METADATA):
                body = (TABLE / "metadata" / METADATA).read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(302)
            self.send_header("Location", f"{target}{self.path.split('?')[0]}?{SIGNED}")
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET
        do_HEAD = do_GET

    return Named


@pytest.fixture
def servers():
    elsewhere = Server(Elsewhere)
    made = []

    def named(**kw):
        s = Server(redirecting(elsewhere.url, **kw))
        made.append(s)
        return s

    yield elsewhere, named
    for s in [elsewhere, *made]:
        s.close()


def assert_refused_redirect(run, named, elsewhere, path: str, query: str = ""):
    assert run.returncode != 0, f"expected a failure, got exit 0:\n{run.stdout[:2000]}"
    want = f"{named.url}{path}{query}: HTTP 302 redirect to {elsewhere.url}{path}; not followed"
    assert want in run.stderr, f"expected {want!r} in:\n{run.stderr}"
    assert SIGNED not in run.stderr + run.stdout, "the redirect's query string was printed"
    assert elsewhere.requests == [], f"a request reached a host the user did not name: {elsewhere.requests}"


def test_a_metadata_url_that_redirects_elsewhere_is_not_followed(servers, run_cli):
    elsewhere, named = servers
    a = named()
    path = f"{PREFIX}/metadata/{METADATA}"
    run = run_cli("inspect", f"{a.url}{path}", "--format", "json", timeout=60)
    assert_refused_redirect(run, a, elsewhere, path)
    assert a.requests == [f"GET {path}"]


def test_a_catalog_that_redirects_elsewhere_is_not_followed(servers, run_cli):
    elsewhere, named = servers
    a = named()
    for args in (["inspect", "--catalog", a.url, "--warehouse", "wh", "--table", "ns.t", "--token", "tok-4417"],
                 ["catalog", "--catalog", a.url, "--warehouse", "wh", "--token", "tok-4417"]):
        run = run_cli(*args, "--format", "json", timeout=60)
        assert_refused_redirect(run, a, elsewhere, "/v1/config", "?warehouse=wh")
        assert "tok-4417" not in run.stderr + run.stdout


def test_manifest_lists_that_redirect_elsewhere_become_gaps_naming_the_redirect(servers, run_cli):
    """The metadata is served; every manifest list redirects: 3 gaps, one per snapshot, each saying
    where the redirect pointed, and the snapshots keep the counts their summaries state."""
    import json

    elsewhere, named = servers
    a = named(serve_metadata=True)
    run = run_cli("inspect", f"{a.url}{PREFIX}/metadata/{METADATA}", "--s3-endpoint", a.url, "--s3-path-style-access",
                  "--format", "json", timeout=60)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    meta = json.loads((TABLE / "metadata" / METADATA).read_text())
    lists = {s["manifest-list"].removeprefix("s3:/"): s["snapshot-id"] for s in meta["snapshots"]}
    assert len(lists) == 3
    gaps = {g["file"].removeprefix("s3:/"): g for g in report["gaps"]}
    assert sorted(gaps) == sorted(lists)
    for path, sid in lists.items():
        g = gaps[path]
        assert g["snapshot_ids"] == [sid]
        assert f"HTTP 302 redirect to {elsewhere.url}{path}; not followed" in g["message"], g["message"]
        assert SIGNED not in g["message"]
    assert [s["counts_from"] for s in report["snapshots"]] == ["summary"] * 3
    assert [s["data_files"] for s in report["snapshots"]] == [
        int(s["summary"]["total-data-files"]) for s in sorted(meta["snapshots"], key=lambda s: s["timestamp-ms"])]
    assert elsewhere.requests == [], f"a request reached a host the user did not name: {elsewhere.requests}"


class WrongRegion(Quiet):
    """S3's answer for a bucket in another region: 301 with no Location, the reason in the body."""

    BODY = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket you are '
            b'attempting to access must be addressed using the specified endpoint.</Message></Error>')

    def do_GET(self):
        self.server.owner.requests.append(f"GET {self.path}")
        self.send_response(301)
        self.send_header("Content-Length", str(len(self.BODY)))
        self.end_headers()
        self.wfile.write(self.BODY)


def test_a_301_without_location_is_an_error_with_the_stores_reason(run_cli):
    s3 = Server(WrongRegion)
    try:
        path = f"{PREFIX}/metadata/{METADATA}"
        run = run_cli("inspect", f"s3:/{path}", "--s3-endpoint", s3.url, "--s3-path-style-access", "--format", "json", timeout=60)
        assert run.returncode != 0
        want = (f"{s3.url}{path}: HTTP 301 Moved Permanently: PermanentRedirect: The bucket you are attempting to access must be "
                "addressed using the specified endpoint.")
        assert want in run.stderr, run.stderr
        assert "redirect;" not in run.stderr
        assert s3.requests == [f"GET {path}"]
    finally:
        s3.close()

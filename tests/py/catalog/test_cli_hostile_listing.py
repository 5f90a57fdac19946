"""A catalog that never stops answering: `icescope catalog` lists it as far as its bounds go, says
where and why the listing is incomplete, and exits, instead of asking for ever.

A real HTTP server on loopback plays the catalog (`GET /v1/config`, `/v1/namespaces`, `/tables`);
each test's catalog misbehaves in one way a stranger's server could. The request log is the check:
the listing must stop at the bound the CLI states, not at a timeout.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from catalogkit import HOST

# The bounds in app/src/source/rest_catalog.rs.
MAX_LIST_REQUESTS = 5_000
MAX_NAMESPACE_DEPTH = 32


class Catalog:
    """Serves config, then hands every listing request to `answer(path, query)` → JSON."""

    def __init__(self, answer):
        owner = self
        self.requests: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out as two writes: without this, each answer waits out the
            # client's delayed ACK (40 ms), and 5,000 requests take minutes.
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                owner.requests.append(self.path)
                query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
                body = {"defaults": {}, "overrides": {}} if url.path == "/v1/config" else answer(url.path, query)
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.http = ThreadingHTTPServer((HOST, 0), Handler)
        self.url = f"http://{HOST}:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self):
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def catalog():
    made = []

    def make(answer):
        c = Catalog(answer)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


def listing(run_cli, url: str) -> dict:
    run = run_cli("catalog", "--catalog", url, "--format", "json", timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_a_page_token_answered_with_itself_ends_that_list(catalog, run_cli):
    def answer(path, query):
        if path.endswith("/tables"):
            return {"identifiers": [{"namespace": ["ops"], "name": "events"}], "next-page-token": "same"}
        if "parent" in query:
            return {"namespaces": []}
        return {"namespaces": [["ops"]], "next-page-token": "same"}

    c = catalog(answer)
    got = listing(run_cli, c.url)
    assert got["namespaces"] == [["ops"]]
    assert got["tables"] == {"ops": ["events"]}
    assert got["incomplete"] == [
        "the catalog answered a page token with the same next-page-token (2 times); those lists end at that page",
        "1 table name listed more than once in a namespace, shown once"]
    # config, namespaces ×2, tables ×2, the children of `ops`: nothing asked twice beyond the repeat.
    assert len(c.requests) == 6, c.requests


def test_namespaces_nested_without_end_are_followed_to_the_depth_bound(catalog, run_cli):
    def answer(path, query):
        if path.endswith("/tables"):
            return {"identifiers": []}
        depth = len(query["parent"].split("\x1f")) if "parent" in query else 0
        return {"namespaces": [[f"n{i}" for i in range(depth + 1)]]}

    c = catalog(answer)
    got = listing(run_cli, c.url)
    assert len(got["namespaces"]) == MAX_NAMESPACE_DEPTH
    assert max(len(ns) for ns in got["namespaces"]) == MAX_NAMESPACE_DEPTH
    assert got["incomplete"] == [f"1 namespace nested deeper than {MAX_NAMESPACE_DEPTH} levels not listed"]
    assert len(c.requests) == 1 + 1 + 2 * MAX_NAMESPACE_DEPTH


def test_a_catalog_with_endless_new_pages_is_asked_a_bounded_number_of_times(catalog, run_cli):
    def answer(path, query):
        page = int(query.get("pageToken", "0"))
        # One new namespace on every page, and always another page.
        return {"namespaces": [[f"ns{page}"]], "next-page-token": str(page + 1)} if path == "/v1/namespaces" and "parent" not in query \
            else {"namespaces": [], "identifiers": []}

    c = catalog(answer)
    got = listing(run_cli, c.url)
    assert len(c.requests) == 1 + MAX_LIST_REQUESTS
    assert got["incomplete"][0].startswith(f"stopped after {MAX_LIST_REQUESTS} requests to the catalog")
    # Every namespace page it was asked for was listed; the requests for their tables were not all sent.
    pages = sum(1 for r in c.requests if r.startswith("/v1/namespaces") and "parent" not in r)
    assert len(got["namespaces"]) == pages

"""A server that sends without end, or declares a body of gigabytes: the CLI refuses the response at
512 MiB with a message naming the URL and the bound, instead of filling the memory.

A real HTTP server on loopback serves the metadata URL the CLI is pointed at.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from catalogkit import HOST

BOUND = "icescope reads at most 512 MiB of one response"
CHUNK = b"\x20" * (1 << 20)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.sent = 0
        if self.path.startswith("/declared/"):
            # Declares 10 GiB, sends a little, then waits: nothing past the header should be needed.
            self.send_response(200)
            self.send_header("Content-Length", str(10 << 30))
            self.end_headers()
            self.wfile.write(b"{")
            return
        # Chunked and endless: only the client's bound ends it.
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while self.server.sent < (2 << 30):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK))
                self.server.sent += len(CHUNK)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture
def server():
    http = ThreadingHTTPServer((HOST, 0), Handler)
    http.sent = 0
    threading.Thread(target=http.serve_forever, daemon=True).start()
    yield http, f"http://{HOST}:{http.server_address[1]}"
    http.shutdown()
    http.server_close()


def refused(run_cli, target: str, why: str):
    run = run_cli("inspect", target, "--format", "json", timeout=120)
    assert run.returncode != 0
    assert f"{target}: {why}; {BOUND}" in run.stderr, run.stderr


def test_an_endless_body_is_refused_at_the_bound(server, run_cli):
    http, url = server
    refused(run_cli, f"{url}/endless/metadata/v1.metadata.json", "the response went on past that")
    # The client stopped reading at the bound (what the kernel buffers beyond it is a few MiB).
    assert (512 << 20) <= http.sent < (600 << 20), http.sent


def test_a_declared_length_past_the_bound_is_refused_before_the_body(server, run_cli):
    _, url = server
    refused(run_cli, f"{url}/declared/metadata/v1.metadata.json", "the response declares 10737418240 bytes")

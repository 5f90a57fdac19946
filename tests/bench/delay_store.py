"""A path-style S3 stand-in on loopback that answers each GET after a delay: how many requests the
CLI keeps in flight decides how long a remote load takes once every request costs a round trip.

    python3 tests/bench/delay_store.py FOLDER BUCKET/KEY-PREFIX DELAY_MS
        # prints the endpoint; GET /BUCKET/KEY-PREFIX/<path> serves FOLDER/<path> after DELAY_MS

Anonymous (no signature checked), HTTP/1.1 keep-alive, a thread per connection, Range honoured.
It counts the requests and the most it answered at once, printed at SIGTERM/SIGINT on stderr.
"""

import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

root, prefix, delay = Path(sys.argv[1]).resolve(), sys.argv[2].strip("/"), float(sys.argv[3]) / 1000
lock = threading.Lock()
stats = {"requests": 0, "now": 0, "most": 0}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def setup(self):
        super().setup()
        # Headers and body are two writes: without this, Nagle's algorithm holds the body until the
        # client's delayed ACK (40 ms on Linux), a round trip the test did not ask for.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self):
        with lock:
            stats["requests"] += 1
            stats["now"] += 1
            stats["most"] = max(stats["most"], stats["now"])
        try:
            time.sleep(delay)
            rel = self.path.split("?", 1)[0].lstrip("/")
            body = None
            if rel.startswith(prefix + "/"):
                f = (root / rel[len(prefix) + 1:]).resolve()
                if f.is_file() and root in f.parents:
                    body = f.read_bytes()
            if body is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status, extra = 200, {}
            rng = self.headers.get("Range", "")
            if rng.startswith("bytes="):
                a, b = rng[6:].split("-", 1)
                size = len(body)
                start, end = (size - int(b), size - 1) if a == "" else (int(a), min(int(b) if b else size - 1, size - 1))
                start = max(start, 0)
                body, status = body[start:end + 1], 206
                extra["Content-Range"] = f"bytes {start}-{end}/{size}"
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            for k, v in extra.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        finally:
            with lock:
                stats["now"] -= 1


def stop(*_):
    print(f"requests {stats['requests']} most-at-once {stats['most']}", file=sys.stderr, flush=True)
    os._exit(0)


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()

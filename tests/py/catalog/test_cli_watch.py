"""`icescope watch` while PyIceberg writes the table it watches, and then stops writing.

Two sources: Apache Iceberg's REST reference server (storing in SeaweedFS S3; LoadTable answered
with an ETag) and a folder table PyIceberg's SQL catalog writes on the local disk. What the events
must say is what the table says once the writer is done (PyIceberg reads it back): every commit
made while watching exactly once, in commit order, with its id and added records; the writer
stalled once it stops, with its last commit and its own median interval, not before that is due;
the exit status 1 that `--stop-on-alarm` gives a stall. Each look's time is the CLI's clock; the
only bound on it besides "not before" is a generous one (a look every 0.5 s, a loaded machine).
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from catalogkit import _day_spec, _events_batch, _events_schema

EVERY_MS = 500
STALL_AFTER = 8  # a slow append on a loaded machine must not look like a stall
# Between writes: the writer's pace is what it is; this only spaces the commits.
PAUSE_S = 0.8


class Watch:
    """The CLI running `watch`, its JSON lines collected as they come."""

    def __init__(self, icescope, args: list[str]):
        self.proc = subprocess.Popen([str(icescope), "watch", *args, "--every", f"{EVERY_MS}ms", "--stall-after", str(STALL_AFTER),
                                      "--format", "jsonl", "--stop-on-alarm", "--for", "180s"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                                     env={"PATH": "/usr/bin:/bin", "AWS_EC2_METADATA_DISABLED": "true"})
        self.events: list[dict] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.events.append(json.loads(line))

    def wait_for(self, event: str, timeout: float = 60.0) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = [e for e in self.events if e["event"] == event]
            if found:
                return found[0]
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no `{event}` event; stderr: {self.proc.stderr.read() if self.proc.poll() is not None else ''}\n{self.events}")

    def finish(self, timeout: float = 120.0) -> int:
        try:
            code = self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        self.reader.join(5)
        return code


class CountingProxy:
    """A pass-through in front of the catalog that records each request's path, If-None-Match
    and the status the catalog answered: what the watch asked, seen from the wire."""

    def __init__(self, upstream: str):
        self.seen: list[tuple[str, str | None, int]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                req = urllib.request.Request(upstream + self.path, headers=headers)
                try:
                    with urllib.request.urlopen(req, timeout=30) as r:
                        status, body, out = r.status, r.read(), r.headers.items()
                except urllib.error.HTTPError as e:
                    status, body, out = e.code, e.read(), e.headers.items()
                proxy.seen.append((self.path, self.headers.get("If-None-Match"), status))
                self.send_response(status)
                for k, v in out:
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self):
        self.http.shutdown()
        self.http.server_close()


def write_and_stop(table, first: int, appends: int):
    for i in range(first, first + appends):
        table.append(_events_batch(i))
        time.sleep(PAUSE_S)


def check(watch: Watch, table, before: int):
    """The events against the table PyIceberg reads back once the writer stopped."""
    code = watch.finish()
    snapshots = sorted(table.metadata.snapshots, key=lambda s: s.sequence_number)
    new = snapshots[before:]
    commits = [e for e in watch.events if e["event"] == "commit"]
    assert [c["snapshot_id"] for c in commits] == [str(s.snapshot_id) for s in new]
    assert [c["added_records"] for c in commits] == [int(s.summary["added-records"]) for s in new]
    assert [c["committed_ms"] for c in commits] == [s.timestamp_ms for s in new]
    for c in commits:
        assert c["writer"] == "unknown" and c["job_id"] is None, c  # PyIceberg names no engine
    # The stall: once, from the last commit, against the median of the last 20 intervals.
    stalls = [e for e in watch.events if e["event"] == "stalled"]
    assert len(stalls) == 1, watch.events
    times = [s.timestamp_ms for s in snapshots]
    intervals = sorted(b - a for a, b in list(zip(times, times[1:]))[-20:])
    usual = intervals[len(intervals) // 2]
    stall = stalls[0]
    assert stall["last_commit_ms"] == times[-1]
    assert stall["usual_interval_ms"] == usual
    due = times[-1] + STALL_AFTER * usual
    assert stall["at_ms"] > due, f"said {stall['at_ms'] - due} ms before it was due"
    # Said by the first look past due: no later than the longest gap between two looks this run
    # showed (the looks that said something, each at its own time), not a fixed allowance.
    looks = sorted({e["at_ms"] for e in watch.events[: watch.events.index(stall)]})
    longest = max((b - a for a, b in zip(looks, looks[1:])), default=EVERY_MS)
    assert stall["at_ms"] <= due + max(longest, EVERY_MS), f"said {stall['at_ms'] - due} ms after it was due; looks were at most {longest} ms apart"
    # Every commit was said before the stall, each by a look after it was made.
    assert all(c["at_ms"] >= c["committed_ms"] for c in commits)
    assert watch.events.index(stall) > watch.events.index(commits[-1])
    assert code == 1, watch.proc.stderr.read()


def test_watch_follows_a_writer_through_the_rest_reference_catalog(rest_fixture, rest_fixture_tables, icescope):
    cat = rest_fixture.catalog()
    ident = ("rf_ns", "watched")
    table = cat.create_table(ident, _events_schema(), partition_spec=_day_spec())
    write_and_stop(table, 0, 2)
    proxy = CountingProxy(rest_fixture.catalog_uri)
    watch = Watch(icescope, ["--catalog", proxy.uri, "--table", "rf_ns.watched",
                             "--s3-endpoint", rest_fixture.s3_endpoint, "--s3-access-key-id", rest_fixture.key,
                             "--s3-secret-access-key", rest_fixture.secret, "--s3-region", rest_fixture.region,
                             "--s3-path-style-access"])
    first = watch.wait_for("watching")
    assert first["snapshots"] == 2
    write_and_stop(table, 2, 7)
    watch.wait_for("stalled", timeout=90)
    table = cat.load_table(ident)
    check(watch, table, 2)
    assert rest_fixture.secret not in json.dumps(watch.events)
    proxy.close()
    # Each look after the first sends the last answer's ETag; a table that had not changed cost
    # a 304 and no metadata. Full answers: the opening, the first look, and one per new version.
    loads = [(tag, status) for path, tag, status in proxy.seen if path.endswith("/tables/watched")]
    not_modified = [l for l in loads if l[1] == 304]
    assert not_modified and all(tag for tag, _ in not_modified), loads
    versions = {e["metadata_file"] for e in watch.events if e["event"] == "metadata"}
    assert len([l for l in loads if l[1] == 200]) <= 2 + len(versions), loads
    assert len(versions) == 7


def test_watch_follows_a_writer_in_a_folder(tmp_path, icescope):
    from pyiceberg.catalog.sql import SqlCatalog
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    cat = SqlCatalog("watched", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{warehouse}")
    cat.create_namespace("ns")
    table = cat.create_table(("ns", "events"), _events_schema(), partition_spec=_day_spec())
    write_and_stop(table, 0, 2)
    folder = table.metadata.location.removeprefix("file://")
    watch = Watch(icescope, [folder])
    assert watch.wait_for("watching")["snapshots"] == 2
    write_and_stop(table, 2, 7)
    watch.wait_for("stalled", timeout=90)
    table = cat.load_table(("ns", "events"))
    check(watch, table, 2)

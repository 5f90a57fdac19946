"""A day table where it lives: SeaweedFS's S3 store and Apache Iceberg's REST reference server
(tests/py/catalog/restfixture.py; SeaweedFS's own catalog registers only tables inside its table
bucket), each behind a relay on
loopback that holds every chunk DELAY_MS in each direction (a 2 × DELAY_MS round trip) without
limiting bandwidth. The table is one the generator wrote at an s3:// location
(`make_workloads.sh --s3-bucket bench …`): its metadata/ is put on the store byte for byte at the
keys its paths name, and the newest metadata.json is registered in the catalog.

    tests/.venv/bin/python tests/bench/network_day.py TABLE_DIR DELAY_MS

Prints one JSON line (endpoints through the relays, keys, table, metadata location), then serves.
Each line read on stdin is a command: `stats` prints the relays' counters as one JSON line (bytes
each way, connections), `reset` zeroes them; end of input stops everything.
data/ is not uploaded: the default load reads metadata only (the data features are not timed here).
"""

import asyncio
import json
import shutil
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py" / "catalog"))
from catalogkit import RUNNING, new_root, start_seaweed, stop_all, weed_binary  # noqa: E402
from restfixture import start_rest_fixture  # noqa: E402

table_dir, delay = Path(sys.argv[1]).resolve(), float(sys.argv[2]) / 1000


class Relay:
    """A TCP relay adding `delay` to every byte's way, in both directions: each chunk is sent when
    its time comes, so chunks stay in flight together (latency, not a bandwidth cap)."""

    def __init__(self, target_port: int):
        self.target = target_port
        self.stats = {"connections": 0, "bytes_to_server": 0, "bytes_to_client": 0}
        ready = threading.Event()
        self.port = 0

        async def main():
            server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            await server.serve_forever()

        # On libuv's loop: the relay stands for a network, which costs the machine under test no
        # CPU (on asyncio's own loop the two relays took 2.9 CPU s of W1b's load through serve, 2.1
        # on uvloop).
        threading.Thread(target=lambda: uvloop.run(main()), daemon=True).start()
        ready.wait()

    async def pipe(self, reader, writer, counter):
        queue: asyncio.Queue = asyncio.Queue()

        async def send():
            while True:
                due, data = await queue.get()
                if data is None:
                    break
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()
                self.stats[counter] += len(data)
            writer.close()

        sender = asyncio.ensure_future(send())
        try:
            while data := await reader.read(65536):
                queue.put_nowait((time.monotonic() + delay, data))
        finally:
            queue.put_nowait((time.monotonic() + delay, None))
            await asyncio.gather(sender, return_exceptions=True)

    async def handle(self, r, w):
        self.stats["connections"] += 1
        try:
            ur, uw = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            w.close()
            return
        await asyncio.gather(self.pipe(r, uw, "bytes_to_server"), self.pipe(ur, w, "bytes_to_client"), return_exceptions=True)


def upload(sw, folder: Path, location: str) -> tuple[int, int]:
    """metadata/ put at the keys the table's own paths name; returns (files, bytes)."""
    bucket, prefix = location.removeprefix("s3://").split("/", 1)
    s3 = sw.s3()
    s3.create_bucket(Bucket=bucket)
    files = sorted(p for p in (folder / "metadata").iterdir() if p.is_file())

    def put(p: Path) -> int:
        body = p.read_bytes()
        s3.put_object(Bucket=bucket, Key=f"{prefix}/metadata/{p.name}", Body=body)
        return len(body)

    with ThreadPoolExecutor(16) as pool:
        sizes = list(pool.map(put, files))
    return len(files), sum(sizes)


facts = json.loads((table_dir / "facts.json").read_text())
location = facts["table_location"]
if not location.startswith("s3://"):
    sys.exit(f"{table_dir} is at {location}: write it with make_workloads.sh --s3-bucket bench")
root = new_root()
rf = None
try:
    sw = start_seaweed(weed_binary(), root, 0)
    RUNNING.append(sw)
    t0 = time.monotonic()
    files, size = upload(sw, table_dir, location)
    uploaded_s = time.monotonic() - t0
    metadata_location = f"{location}/metadata/{facts['metadata_file']}"
    rf = start_rest_fixture(sw, root / "rest")
    cat = rf.catalog()
    ns, name = "bench", facts["workload"].replace("-", "_")
    cat.create_namespace((ns,))
    try:
        cat.register_table((ns, name), metadata_location)
    except Exception as e:  # the catalog's own words, for the note
        sys.exit(f"register_table refused: {e!r} {getattr(getattr(e, '__cause__', None), 'response', None) and e.__cause__.response.text}")
    s3_relay = Relay(int(sw.s3_endpoint.rsplit(":", 1)[1]))
    catalog_relay = Relay(rf.port)
    catalog_uri = rf.catalog_uri.replace(f":{rf.port}", f":{catalog_relay.port}")
    print(json.dumps({
        "catalog_uri": catalog_uri, "s3_endpoint": f"http://127.0.0.1:{s3_relay.port}", "key": sw.key,
        "secret": sw.secret, "region": sw.region,
        "table": f"{ns}.{name}", "metadata_location": metadata_location, "delay_ms_each_way": delay * 1000,
        "uploaded": {"files": files, "bytes": size, "seconds": round(uploaded_s, 1)}, "facts": facts,
    }), flush=True)
    relays = {"s3": s3_relay, "catalog": catalog_relay}
    for line in sys.stdin:
        if line.strip() == "stats":
            print(json.dumps({k: dict(r.stats) for k, r in relays.items()}), flush=True)
        elif line.strip() == "reset":
            for r in relays.values():
                r.stats = {k: 0 for k in r.stats}
finally:
    if rf is not None:
        rf.stop()
    stop_all()
    shutil.rmtree(root, ignore_errors=True)

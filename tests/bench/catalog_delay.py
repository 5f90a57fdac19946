"""A REST catalog whose store is a round trip away: SeaweedFS (catalogkit.start_seaweed) with a
table of N fast appends written by PyIceberg, and a TCP relay on loopback in front of its S3 port
that holds every chunk DELAY_MS in each direction (as the issue's measurement did). The catalog
itself is reached directly. Prints one JSON line, then serves until stdin closes.

    tests/.venv/bin/python tests/bench/catalog_delay.py APPENDS DELAY_MS
"""

import asyncio
import json
import shutil
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py" / "catalog"))
from catalogkit import RUNNING, new_root, start_seaweed, stop_all, weed_binary  # noqa: E402

appends, delay = int(sys.argv[1]), float(sys.argv[2]) / 1000


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


def relay(target_port: int) -> int:
    ready = threading.Event()
    port = []

    async def handle(r, w):
        ur, uw = await asyncio.open_connection("127.0.0.1", target_port)
        await asyncio.gather(pipe(r, uw), pipe(ur, w), return_exceptions=True)

    async def main():
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port.append(server.sockets[0].getsockname()[1])
        ready.set()
        await server.serve_forever()

    threading.Thread(target=lambda: asyncio.run(main()), daemon=True).start()
    ready.wait()
    return port[0]


root = new_root()
try:
    sw = start_seaweed(weed_binary(), root, 0)
    RUNNING.append(sw)
    import pyarrow as pa
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField
    cat = sw.catalog()
    cat.create_namespace(("bench",))
    t = cat.create_table(("bench", "appends"), Schema(NestedField(1, "id", LongType(), required=False)))
    for i in range(appends):
        t.append(pa.table({"id": pa.array([i], pa.int64())}))
    proxy = relay(int(sw.s3_endpoint.rsplit(":", 1)[1]))
    print(json.dumps({"catalog_uri": sw.catalog_uri, "s3_endpoint": f"http://127.0.0.1:{proxy}", "key": sw.key,
                      "secret": sw.secret, "warehouse": sw.warehouse, "scope": sw.scope, "region": sw.region,
                      "table": "bench.appends", "snapshots": appends}), flush=True)
    while sys.stdin.buffer.read(65536):
        pass
finally:
    stop_all()
    shutil.rmtree(root, ignore_errors=True)

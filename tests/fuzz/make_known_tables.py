"""A real table around each fuzz-found page that panicked the `parquet` crate (tests/fuzz/known/):
PyIceberg creates the table with the file's own schema and adds the file as its one data file
(`add_files`), so its manifest names it with the file's row count. The browser test
(tests/e2e/worker.test.mjs) and tests/decode_jobs.rs read its columns through the decoder worker.

    tests/.venv/bin/python tests/fuzz/make_known_tables.py   # rewrites tests/fuzz/known-tables/
"""
import os
import shutil
import tempfile

import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the tables say they live: the app and the CLI read them from wherever they are copied.
LOCATION = "/tmp/icescope-known-tables"
FILES = ["parquet-definition-levels-panic.parquet"]


def make(name: str) -> None:
    table = os.path.join(LOCATION, name.removesuffix(".parquet"))
    shutil.rmtree(table, ignore_errors=True)
    os.makedirs(os.path.join(table, "data"))
    with tempfile.TemporaryDirectory() as tmp:
        catalog = SqlCatalog("known", uri=f"sqlite:///{tmp}/catalog.db", warehouse=f"file://{LOCATION}")
        catalog.create_namespace("fuzz")
        t = catalog.create_table("fuzz.known", schema=pq.read_schema(os.path.join(HERE, "known", name)), location=f"file://{table}")
        data = os.path.join(table, "data", "part-00000.parquet")
        shutil.copy(os.path.join(HERE, "known", name), data)
        t.add_files([f"file://{data}"])
    out = os.path.join(HERE, "known-tables", os.path.basename(table))
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(table, out)


if __name__ == "__main__":
    for f in FILES:
        make(f)

"""Appends to a table of the e2e catalog (serve_for_e2e.py's SeaweedFS), as a running writer
would: the browser tests watch it grow. PyIceberg writes; nothing here is read back by icescope.

    tests/.venv/bin/python tests/py/catalog/append_for_e2e.py FACTS_JSON NS.TABLE N [--create]

FACTS_JSON is the JSON serve_for_e2e.py wrote (as a string). Prints one JSON object: the table's
snapshot ids (decimal strings) in commit order after the N appends.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from catalogkit import _day_spec, _events_batch, _events_schema  # noqa: E402


def main() -> int:
    facts = json.loads(sys.argv[1])
    ident = tuple(sys.argv[2].split("."))
    n = int(sys.argv[3])
    from pyiceberg.catalog.rest import RestCatalog
    cat = RestCatalog(
        "icescope-e2e-writer", uri=facts["catalog_uri"], warehouse=facts["warehouse"],
        credential=f"{facts['key']}:{facts['secret']}", scope=facts["scope"], **{"oauth2-server-uri": facts["token_url"]},
        **{"s3.endpoint": facts["s3_endpoint"], "s3.access-key-id": facts["key"], "s3.secret-access-key": facts["secret"],
           "s3.path-style-access": "true", "s3.region": facts["region"]})
    table = cat.create_table(ident, _events_schema(), partition_spec=_day_spec()) if "--create" in sys.argv else cat.load_table(ident)
    start = len(table.metadata.snapshots)
    for i in range(n):
        table.append(_events_batch(start + i))
        time.sleep(0.3)
    table = cat.load_table(ident)
    snaps = sorted(table.metadata.snapshots, key=lambda s: s.sequence_number)
    print(json.dumps({"snapshot_ids": [str(s.snapshot_id) for s in snaps], "metadata_location": table.metadata_location}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Every family of hostile cases, in the order make.py writes them."""
from . import avro_blocks, counts, files, integers, jobs, lengths, schemas, strings

ALL = [
    ("integers", integers.cases),
    ("avro-blocks", avro_blocks.cases),
    ("avro-schemas", schemas.cases),
    ("declared-lengths", lengths.cases),
    ("counts", counts.cases),
    ("files", files.cases),
    ("strings", strings.cases),
    ("jobs", jobs.cases),
]

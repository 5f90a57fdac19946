"""Avro container framing that lies: files cut at a block boundary, block counts one short, one
over, huge or negative, sizes past the end, bad sync markers, codecs (snappy blocks shorter than
their checksum, zstandard with an empty compression level, deflate and zstandard bombs)."""
import avro_bytes as ab
from table import Case

F = "avro-blocks"
BOMB = (256 << 20) + (1 << 16)  # just past the 256 MiB a block may inflate to


def manifest(c):
    """The manifest every snapshot of late-data keeps (two entries), by reference and name."""
    ref = c.manifest_refs()[-1]
    return ref, ref.rsplit("/", 1)[-1]


def every_user(c, ref):
    return [s["snapshot-id"] for s in c.snapshots() if ref in c.manifest_refs(c.list_name(s))]


def framed(c, name, per_block=1, codec=None):
    con = c.container(name)
    return con.rebuilt(con.records(), per_block, codec)


def on_manifest(label, what, change, words, keep_lengths=False, broken=True):
    c = Case(F, f"manifest-{label}", what)
    ref, name = manifest(c)
    c.put(name, change(c, name), keep_lengths=keep_lengths)
    if broken:
        c.break_file(ref, *words)
    return c


def on_list(label, what, change, words, broken=True, base="late1"):
    c = Case(F, f"list-{label}", what, base)
    name = c.list_name()
    c.put(name, change(c, name))
    if broken:
        c.break_file(c.list_ref(), *words)
    return c


def header_only(c, name):
    return c.container(name).header_bytes()


def first_block_only(c, name):
    con = framed(c, name)
    con.blocks = con.blocks[:1]
    return con.to_bytes()


def with_count(delta=None, value=None):
    def change(c, name):
        con = c.container(name)
        b = con.blocks[0]
        b.count = value if value is not None else b.count + delta
        return con.to_bytes()
    return change


def with_size(delta):
    def change(c, name):
        con = c.container(name)
        data = bytearray(con.header_bytes())
        b = con.blocks[0]
        data += ab.zigzag(b.count) + ab.zigzag(len(b.raw) + delta) + b.raw + con.sync
        return bytes(data)
    return change


def bad_sync(c, name):
    data = bytearray(c.files[f"metadata/{name}"])
    data[-1] ^= 0xFF
    return bytes(data)


def trailing(c, name):
    return c.files[f"metadata/{name}"] + b"\xff\xff\xff"


def recoded(codec, level=None):
    def change(c, name):
        con = framed(c, name, per_block=None, codec=codec)
        if level is not None:
            con.set("avro.codec.compression_level", level)
        return con.to_bytes()
    return change


def raw_block(codec, raw, count=1):
    def change(c, name):
        con = c.container(name)
        con.set("avro.codec", codec.encode())
        con.blocks = [ab.Block(count, raw)]
        return con.to_bytes()
    return change


def snappy_bad_crc(c, name):
    con = framed(c, name, per_block=None, codec="snappy")
    b = con.blocks[0]
    b.raw = b.raw[:-4] + bytes(x ^ 0xFF for x in b.raw[-4:])
    return con.to_bytes()


def empty_block_between(c, name):
    con = framed(c, name)
    con.blocks.insert(1, ab.Block(0, ab.compress(con.codec, b"")))
    return con.to_bytes()


def header_cut(c, name):
    return c.files[f"metadata/{name}"][:200]


def header_huge_count(c, name):
    data = c.files[f"metadata/{name}"]
    _, pos = ab.read_long(data, 4)
    return data[:4] + ab.zigzag(1 << 40) + data[pos:]


def json_only(c):
    """A bomb costs half a second a run in a debug build: its report is read once, as JSON."""
    c.expect["formats"] = ["json"]
    return c


def cases():
    out = [
        on_list("header-only", "the current manifest list cut at its first block boundary (a header and no rows): counted as empty, and every summary total it contradicts is listed", header_only, [], broken=False),
        on_list("first-of-three-blocks", "the current list written one row per block and cut after the first block: one of three manifests, contradictions listed", first_block_only, [], broken=False, base="late3"),
        on_manifest("header-only", "a kept manifest cut at its first block boundary (header only), its list still stating the full length", header_only, ["manifest_length"], keep_lengths=True),
        on_manifest("first-of-two-blocks", "a kept manifest written one entry per block and cut after the first block, its lists stating the full length", first_block_only, ["manifest_length"], keep_lengths=True),
        on_manifest("first-of-two-blocks-length-agrees", "a kept manifest cut after its first block, and the lists state the cut length: one entry of two counted, the summaries' contradictions listed", first_block_only, [], broken=False),
        on_manifest("count-one-short", "a block declares one record fewer than it holds", with_count(-1), ["Avro block 0", "bytes follow"]),
        on_list("count-one-short", "the current list's block declares one row fewer than it holds", with_count(-1), ["Avro block 0", "bytes follow"]),
        on_manifest("count-one-over", "a block declares one record more than it holds", with_count(+1), ["Avro block 0", "record 2 of 3"]),
        on_manifest("count-2-pow-62", "a block declares 2^62 records", with_count(value=1 << 62), ["declares 4611686018427387904 records"]),
        on_list("count-2-pow-62", "the current list's block declares 2^62 rows", with_count(value=1 << 62), ["declares 4611686018427387904 records"]),
        on_manifest("count-negative", "a block declares -2 records", with_count(value=-2), ["negative record count"]),
        on_manifest("size-past-end", "a block declares 100 bytes more than the file holds", with_size(+100), ["Avro block 0", "remain"]),
        on_manifest("size-short", "a block declares 10 bytes fewer than it holds", with_size(-10), ["Avro block 0"]),
        on_manifest("bad-sync", "the last sync marker does not match the header's", bad_sync, ["sync marker"]),
        on_list("bad-sync", "the current list's sync marker does not match its header's", bad_sync, ["sync marker"]),
        on_manifest("trailing-bytes", "three 0xff bytes after the last block", trailing, ["block header is cut off"]),
        on_manifest("snappy", "a manifest re-encoded with the snappy codec (literals, CRC-32): read like the original", recoded("snappy"), [], broken=False),
        on_list("snappy", "the current list re-encoded with snappy", recoded("snappy"), [], broken=False),
        on_manifest("snappy-block-of-2-bytes", "a snappy block of 2 bytes, shorter than its 4-byte checksum", raw_block("snappy", b"\x00\x01"), ["snappy", "shorter than its checksum"]),
        on_manifest("snappy-block-empty", "an empty snappy block declaring one record", raw_block("snappy", b""), ["snappy", "shorter than its checksum"]),
        on_manifest("snappy-bad-checksum", "a snappy block whose CRC-32 is inverted", snappy_bad_crc, ["checksum does not match"]),
        on_manifest("zstd-empty-level", "zstandard blocks with an empty avro.codec.compression_level: the level is the writer's business, the file reads", recoded("zstandard", b""), [], broken=False),
        on_list("zstd-empty-level", "the current list in zstandard with an empty compression level", recoded("zstandard", b""), [], broken=False),
        json_only(on_manifest("zstd-bomb", "an 8 KB zstandard block of RLE runs inflating past 256 MiB", raw_block("zstandard", ab.zstd_frame(rle=(0, BOMB))), ["inflates past 256 MiB"])),
        on_manifest("zstd-garbage", "a zstandard block that is not a frame", raw_block("zstandard", b"\x28\xb5\x2f\xfd\xff\xff\xff\xff"), ["zstandard"]),
        json_only(on_manifest("deflate-bomb", "a 260 KB deflate block inflating past 256 MiB", raw_block("deflate", ab.deflate(bytes(BOMB))), ["inflates past 256 MiB"])),
        on_manifest("deflate-garbage", "a deflate block of reserved block type bits", raw_block("deflate", b"\xff\xff\xff\xff"), ["deflate"]),
        on_manifest("null-codec", "a manifest re-encoded without compression: read like the original", recoded("null"), [], broken=False),
        on_manifest("empty-block-between", "a block of zero records between two real blocks (valid Avro)", empty_block_between, [], broken=False),
        on_manifest("codec-lz4", "an avro.codec icescope does not know", raw_block("lz4", b"\x00"), ["unsupported Avro codec `lz4`"]),
        on_manifest("bad-magic", "a manifest starting with PAR1 instead of Obj\\x01", lambda c, n: b"PAR1" + c.files[f"metadata/{n}"][4:], ["not an Avro object container"]),
        on_list("bad-magic", "the current list starting with PAR1", lambda c, n: b"PAR1" + c.files[f"metadata/{n}"][4:], ["not an Avro object container"]),
        on_manifest("header-cut", "a manifest of only its first 200 bytes, its lists stating 200", header_cut, ["avro header", "truncated"]),
        on_manifest("header-2-pow-40-entries", "a header map declaring 2^40 entries", header_huge_count, ["avro header"]),
        on_manifest("empty-file", "a manifest of 0 bytes, its lists stating 0", lambda c, n: b"", ["not an Avro object container"]),
        on_list("empty-file", "the current list is 0 bytes", lambda c, n: b"", ["not an Avro object container"]),
    ]
    return out

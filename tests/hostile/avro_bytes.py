"""Avro object container files taken apart and put back together byte by byte, so that a case can
lie in exactly one place (a block count, a size, a sync marker, a codec) while everything else
stays as the real writer wrote it. Records are decoded and encoded with fastavro; the container
framing and the codecs are written here, because fastavro will not write a lie.
"""
import io
import json
import struct
import zlib

import fastavro

MAGIC = b"Obj\x01"


def zigzag(n):
    """An Avro long: zig-zag, then base-128 varint."""
    u = (n << 1) ^ (n >> 63) if -(1 << 63) <= n < (1 << 63) else None
    if u is None:
        raise ValueError(f"{n} is not a 64-bit long")
    u &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = u & 0x7F
        u >>= 7
        if u:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_long(buf, pos):
    shift, u = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        u |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
    return (u >> 1) ^ -(u & 1), pos


def avro_bytes(b):
    return zigzag(len(b)) + b


class Block:
    def __init__(self, count, raw):
        self.count = count
        self.raw = raw  # as stored (compressed)


class Container:
    """Header entries in the writer's order, the sync marker, and the blocks as stored."""

    def __init__(self, meta, sync, blocks):
        self.meta = meta  # list of (key str, value bytes)
        self.sync = sync
        self.blocks = blocks

    @classmethod
    def parse(cls, data):
        assert data[:4] == MAGIC
        pos, meta = 4, []
        while True:
            n, pos = read_long(data, pos)
            if n == 0:
                break
            if n < 0:
                _, pos = read_long(data, pos)
                n = -n
            for _ in range(n):
                klen, pos = read_long(data, pos)
                key = data[pos:pos + klen].decode()
                pos += klen
                vlen, pos = read_long(data, pos)
                meta.append((key, data[pos:pos + vlen]))
                pos += vlen
        sync = data[pos:pos + 16]
        pos += 16
        blocks = []
        while pos < len(data):
            count, pos = read_long(data, pos)
            size, pos = read_long(data, pos)
            blocks.append(Block(count, data[pos:pos + size]))
            pos += size
            assert data[pos:pos + 16] == sync
            pos += 16
        return cls(meta, sync, blocks)

    def get(self, key):
        return next((v for k, v in self.meta if k == key), None)

    def set(self, key, value):
        if any(k == key for k, _ in self.meta):
            self.meta = [(k, value if k == key else v) for k, v in self.meta]
        else:
            self.meta.append((key, value))

    @property
    def codec(self):
        return (self.get("avro.codec") or b"null").decode()

    def schema_text(self):
        return self.get("avro.schema").decode()

    def parsed_schema(self):
        return parse_plain(self.schema_text())

    def datum_bytes(self):
        return b"".join(decompress(self.codec, b.raw) for b in self.blocks)

    def records(self):
        """Each record's encoded bytes, in order."""
        schema = self.parsed_schema()
        out = []
        for b in self.blocks:
            data = decompress(self.codec, b.raw)
            f = io.BytesIO(data)
            for _ in range(b.count):
                start = f.tell()
                fastavro.schemaless_reader(f, schema, None)
                out.append(data[start:f.tell()])
            assert f.tell() == len(data)
        return out

    def header_bytes(self):
        out = bytearray(MAGIC)
        if self.meta:
            out += zigzag(len(self.meta))
            for k, v in self.meta:
                out += avro_bytes(k.encode()) + avro_bytes(v)
        out += zigzag(0)
        out += self.sync
        return bytes(out)

    def to_bytes(self):
        out = bytearray(self.header_bytes())
        for b in self.blocks:
            out += zigzag(b.count) + zigzag(len(b.raw)) + b.raw + self.sync
        return bytes(out)

    def rebuilt(self, records, per_block=None, codec=None):
        """The same header (codec possibly changed) with `records` in blocks of `per_block`."""
        c = Container(list(self.meta), self.sync, [])
        codec = codec or self.codec
        c.set("avro.codec", codec.encode())
        per_block = per_block or max(1, len(records))
        for i in range(0, len(records), per_block):
            chunk = records[i:i + per_block]
            c.blocks.append(Block(len(chunk), compress(codec, b"".join(chunk))))
        return c


def strip_logical(node):
    """The schema with logical types dropped: values stay the integers and bytes on the wire."""
    if isinstance(node, dict):
        return {k: strip_logical(v) for k, v in node.items() if k != "logicalType"}
    if isinstance(node, list):
        return [strip_logical(v) for v in node]
    return node


def parse_plain(text):
    return fastavro.parse_schema(strip_logical(json.loads(text)))


def decode(schema, record_bytes):
    return fastavro.schemaless_reader(io.BytesIO(record_bytes), schema, None)


def encode(schema, record):
    f = io.BytesIO()
    fastavro.schemaless_writer(f, schema, record)
    return f.getvalue()


def deflate(data, level=9):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def snappy_literal(data):
    """Snappy's raw format with literals only (valid, if not small), as Avro stores it: the
    compressed bytes, then the CRC-32 of the uncompressed bytes, big-endian."""
    out = bytearray()
    n = len(data)
    while True:  # uncompressed length, varint
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            break
    for i in range(0, len(data), 65536):
        chunk = data[i:i + 65536]
        ln = len(chunk) - 1
        if ln < 60:
            out.append(ln << 2)
        else:
            out.append(61 << 2)
            out += struct.pack("<H", ln)
        out += chunk
    return bytes(out) + struct.pack(">I", zlib.crc32(data))


def zstd_frame(data=None, rle=None, window_log=20):
    """A Zstandard frame of raw blocks holding `data`, or of RLE blocks repeating one byte
    `rle[0]` for `rle[1]` bytes (a few bytes per 128 KiB: a bomb). No content size is declared;
    the window is 2^window_log bytes."""
    out = bytearray(struct.pack("<I", 0xFD2FB528))
    out.append(0x00)  # no content size, not single-segment, no checksum, no dictionary
    out.append((window_log - 10) << 3)
    max_block = 128 * 1024
    blocks = []
    if rle is None:
        for i in range(0, len(data), max_block):
            blocks.append((0, data[i:i + max_block], len(data[i:i + max_block])))
        if not blocks:
            blocks.append((0, b"", 0))
    else:
        value, total = rle
        while total > 0:
            n = min(total, max_block)
            blocks.append((1, bytes([value]), n))
            total -= n
    for k, (kind, payload, size) in enumerate(blocks):
        last = 1 if k == len(blocks) - 1 else 0
        header = last | (kind << 1) | (size << 3)
        out += struct.pack("<I", header)[:3] + payload
    return bytes(out)


def compress(codec, data):
    if codec == "null":
        return data
    if codec == "deflate":
        return deflate(data)
    if codec == "snappy":
        return snappy_literal(data)
    if codec == "zstandard":
        return zstd_frame(data)
    raise ValueError(codec)


def decompress(codec, raw):
    if codec == "null":
        return raw
    if codec == "deflate":
        return zlib.decompress(raw, -15)
    if codec == "snappy":
        return unsnappy(raw)
    if codec == "zstandard":
        return unzstd(raw)
    raise ValueError(f"cannot read {codec} blocks here")


def unsnappy(raw):
    """Snappy's raw format (literals and copies), then Avro's CRC-32 checked."""
    data, crc = raw[:-4], raw[-4:]
    n, shift, pos = 0, 0, 0
    while True:
        b = data[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    out = bytearray()
    while pos < len(data):
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            ln = tag >> 2
            if ln >= 60:
                k = ln - 59
                ln = int.from_bytes(data[pos:pos + k], "little")
                pos += k
            ln += 1
            out += data[pos:pos + ln]
            pos += ln
            continue
        if kind == 1:
            ln = ((tag >> 2) & 7) + 4
            off = ((tag >> 5) << 8) | data[pos]
            pos += 1
        else:
            k = 2 if kind == 2 else 4
            ln = (tag >> 2) + 1
            off = int.from_bytes(data[pos:pos + k], "little")
            pos += k
        for _ in range(ln):
            out.append(out[-off])
    assert len(out) == n and struct.pack(">I", zlib.crc32(out)) == crc
    return bytes(out)


def unzstd(raw):
    """Zstandard frames of raw and RLE blocks (what zstd_frame writes)."""
    assert struct.unpack("<I", raw[:4])[0] == 0xFD2FB528
    fhd = raw[4]
    assert fhd & 0x20 == 0 and fhd >> 6 == 0 and fhd & 3 == 0, "only what zstd_frame writes"
    pos, out = 6, bytearray()
    while True:
        h = int.from_bytes(raw[pos:pos + 3], "little")
        pos += 3
        last, kind, size = h & 1, (h >> 1) & 3, h >> 3
        if kind == 0:
            out += raw[pos:pos + size]
            pos += size
        elif kind == 1:
            out += raw[pos:pos + 1] * size
            pos += 1
        else:
            raise ValueError("compressed zstandard blocks are not read here")
        if last:
            return bytes(out)


def encode_raw(schema, value, overrides=None, path="", named=None):
    """Avro binary for `value` against a schema's JSON (logical types ignored), where
    `overrides[path]` (a dotted field path, `data_file.file_path`) gives the bytes to write
    instead of that field's encoding: a length or count can lie while the rest stays true."""
    overrides = overrides or {}
    named = {} if named is None else named
    if path in overrides:
        o = overrides[path]
        return o(value) if callable(o) else o
    if isinstance(schema, str):
        if schema in named:
            return encode_raw(named[schema], value, overrides, path, named)
        t = schema
        schema = {"type": t}
    if isinstance(schema, list):
        for i, branch in enumerate(schema):
            bt = branch if isinstance(branch, str) else branch.get("type")
            if (value is None) == (bt == "null"):
                return zigzag(i) + encode_raw(branch, value, overrides, path, named)
        raise ValueError(f"no union branch for {value!r} at {path}")
    t = schema["type"]
    if isinstance(t, (dict, list)):
        return encode_raw(t, value, overrides, path, named)
    if t in ("record", "enum", "fixed") and "name" in schema:
        named[schema["name"]] = schema
        named[(schema.get("namespace", "") + "." + schema["name"]).lstrip(".")] = schema
    if t == "null":
        return b""
    if t == "boolean":
        return b"\x01" if value else b"\x00"
    if t in ("int", "long"):
        return zigzag(value)
    if t == "float":
        return struct.pack("<f", value)
    if t == "double":
        return struct.pack("<d", value)
    if t in ("bytes", "string"):
        b = value.encode() if isinstance(value, str) else value
        return zigzag(len(b)) + b
    if t == "fixed":
        return value
    if t == "enum":
        return zigzag(schema["symbols"].index(value))
    if t == "array":
        if not value:
            return zigzag(0)
        items = b"".join(encode_raw(schema["items"], v, overrides, path, named) for v in value)
        return zigzag(len(value)) + items + zigzag(0)
    if t == "map":
        if not value:
            return zigzag(0)
        items = b"".join(avro_bytes(k.encode()) + encode_raw(schema["values"], v, overrides, path, named) for k, v in value.items())
        return zigzag(len(value)) + items + zigzag(0)
    if t == "record":
        out = bytearray()
        for f in schema["fields"]:
            sub = f"{path}.{f['name']}" if path else f["name"]
            out += encode_raw(f["type"], value.get(f["name"]), overrides, sub, named)
        return bytes(out)
    if t in named:
        return encode_raw(named[t], value, overrides, path, named)
    raise ValueError(f"type {t} at {path}")

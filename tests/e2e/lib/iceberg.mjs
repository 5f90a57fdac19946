// Independent, dependency-free readers used by the e2e tests to compute the numbers the app
// must show: a BigInt-safe JSON parser, an Avro object-container reader (null/deflate/snappy),
// and per-snapshot counts (live data files, records, manifests) read from a table folder.
// Nothing here is shared with the app: it is the tests' own second opinion.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

// ---------------------------------------------------------------- JSON

/**
 * JSON.parse that keeps every integer exact: safe integers become Number, the rest BigInt.
 * (Iceberg snapshot ids are 64-bit and routinely exceed 2^53.)
 */
export function parseJsonBig(text) {
  let i = 0;
  const s = text;
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\n' || s[i] === '\r' || s[i] === '\t')) i++;
  };
  const fail = (msg) => {
    throw new SyntaxError(`parseJsonBig: ${msg} at offset ${i}`);
  };
  const value = () => {
    ws();
    const c = s[i];
    if (c === '{') {
      i++;
      const o = {};
      ws();
      if (s[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        if (s[i] !== '"') fail('expected key');
        const k = str();
        ws();
        if (s[i++] !== ':') fail('expected :');
        o[k] = value();
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === '}') {
          i++;
          return o;
        }
        fail('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const a = [];
      ws();
      if (s[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ']') {
          i++;
          return a;
        }
        fail('expected , or ]');
      }
    }
    if (c === '"') return str();
    if (s.startsWith('true', i)) return (i += 4), true;
    if (s.startsWith('false', i)) return (i += 5), false;
    if (s.startsWith('null', i)) return (i += 4), null;
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(s.slice(i, i + 400));
    if (!m) fail('unexpected token');
    i += m[0].length;
    if (m[1] === undefined && m[2] === undefined) {
      const b = BigInt(m[0]);
      const n = Number(m[0]);
      return Number.isSafeInteger(n) ? n : b;
    }
    return Number(m[0]);
  };
  const str = () => {
    // s[i] === '"'
    let j = i + 1;
    while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
    if (j >= s.length) fail('unterminated string');
    const out = JSON.parse(s.slice(i, j + 1));
    i = j + 1;
    return out;
  };
  const v = value();
  ws();
  if (i !== s.length) fail('trailing characters');
  return v;
}

/** Read a metadata.json (or .metadata.json.gz) file's text. */
export function metadataText(bytes, name = '') {
  const buf = Buffer.from(bytes);
  const gz = buf.length > 2 && buf[0] === 0x1f && buf[1] === 0x8b;
  if (gz || name.endsWith('.gz')) return zlib.gunzipSync(buf).toString('utf8');
  return buf.toString('utf8');
}

export function parseMetadata(bytes, name = '') {
  return parseJsonBig(metadataText(bytes, name));
}

export const isMetadataName = (name) => /\.metadata\.json(\.gz)?$/i.test(name);

/** The snapshot ids of a parsed metadata, as exact decimal strings, in file order. */
export function snapshotIds(meta) {
  return (meta.snapshots ?? []).map((s) => String(s['snapshot-id']));
}

/**
 * Second, parser-free opinion on the ids: regex the raw text of the "snapshots" array.
 * Used to cross-check parseJsonBig so a parser bug cannot make a test pass.
 */
export function snapshotIdsByRegex(text) {
  const start = text.search(/"snapshots"\s*:\s*\[/);
  if (start < 0) return [];
  // walk to the matching ']' of the snapshots array, skipping strings
  let i = text.indexOf('[', start);
  let depth = 0;
  let end = -1;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      i++;
      while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    } else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        end = i;
        break;
      }
    }
  }
  const body = text.slice(start, end + 1);
  return [...body.matchAll(/"snapshot-id"\s*:\s*(-?\d+)/g)].map((m) => m[1]);
}

/** Order of "newness" for metadata files: sequence number, then update time, then version in the name. */
export function newestOf(entries /* [{name, meta}] */) {
  const ver = (n) => {
    const m = /^v?(\d+)[.-]/.exec(path.basename(n));
    return m ? Number(m[1]) : -1;
  };
  const key = (e) => [
    BigInt(e.meta['last-sequence-number'] ?? 0),
    BigInt(e.meta['last-updated-ms'] ?? 0),
    BigInt(ver(e.name)),
  ];
  let best = null;
  for (const e of entries) {
    if (!best) {
      best = e;
      continue;
    }
    const a = key(e);
    const b = key(best);
    for (let k = 0; k < a.length; k++) {
      if (a[k] > b[k]) {
        best = e;
        break;
      }
      if (a[k] < b[k]) break;
    }
  }
  return best;
}

// ---------------------------------------------------------------- Avro

class Reader {
  constructor(buf) {
    this.b = buf;
    this.p = 0;
  }
  byte() {
    if (this.p >= this.b.length) throw new RangeError('avro: read past end');
    return this.b[this.p++];
  }
  long() {
    // zigzag varint, exact via BigInt; Number when safe
    let shift = 0n;
    let acc = 0n;
    for (;;) {
      const x = this.byte();
      acc |= BigInt(x & 0x7f) << shift;
      if ((x & 0x80) === 0) break;
      shift += 7n;
      if (shift > 70n) throw new RangeError('avro: varint too long');
    }
    const v = (acc >> 1n) ^ -(acc & 1n);
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v;
  }
  bytes(n) {
    if (this.p + n > this.b.length) throw new RangeError('avro: read past end');
    const out = this.b.subarray(this.p, this.p + n);
    this.p += n;
    return out;
  }
  lenBytes() {
    return this.bytes(Number(this.long()));
  }
  string() {
    return Buffer.from(this.lenBytes()).toString('utf8');
  }
}

function snappyDecompress(src) {
  let p = 0;
  let len = 0;
  for (let shift = 0; ; shift += 7) {
    const c = src[p++];
    len |= (c & 0x7f) << shift;
    if (!(c & 0x80)) break;
  }
  const out = Buffer.alloc(len);
  let o = 0;
  while (p < src.length) {
    const tag = src[p++];
    const t = tag & 3;
    if (t === 0) {
      let n = tag >> 2;
      if (n >= 60) {
        const k = n - 59;
        n = 0;
        for (let j = 0; j < k; j++) n |= src[p++] << (8 * j);
      }
      n += 1;
      src.copy(out, o, p, p + n);
      p += n;
      o += n;
      continue;
    }
    let n;
    let off;
    if (t === 1) {
      n = ((tag >> 2) & 7) + 4;
      off = ((tag >> 5) << 8) | src[p++];
    } else if (t === 2) {
      n = (tag >> 2) + 1;
      off = src[p] | (src[p + 1] << 8);
      p += 2;
    } else {
      n = (tag >> 2) + 1;
      off = (src[p] | (src[p + 1] << 8) | (src[p + 2] << 16) | (src[p + 3] << 24)) >>> 0;
      p += 4;
    }
    for (let j = 0; j < n; j++, o++) out[o] = out[o - off];
  }
  if (o !== len) throw new Error('snappy: length mismatch');
  return out;
}

function decoderFor(schema, named = new Map(), ns = '') {
  if (typeof schema === 'string') {
    switch (schema) {
      case 'null':
        return () => null;
      case 'boolean':
        return (r) => r.byte() !== 0;
      case 'int':
      case 'long':
        return (r) => r.long();
      case 'float':
        return (r) => r.b.readFloatLE((r.p += 4) - 4);
      case 'double':
        return (r) => r.b.readDoubleLE((r.p += 8) - 8);
      case 'bytes':
        return (r) => Buffer.from(r.lenBytes());
      case 'string':
        return (r) => r.string();
      default: {
        const full = schema.includes('.') ? schema : ns ? `${ns}.${schema}` : schema;
        const hit = named.get(full) ?? named.get(schema);
        if (!hit) throw new Error(`avro: unknown type ${schema}`);
        return (r) => hit.fn(r);
      }
    }
  }
  if (Array.isArray(schema)) {
    const branches = schema.map((s) => decoderFor(s, named, ns));
    return (r) => branches[Number(r.long())](r);
  }
  const type = schema.type;
  const register = () => {
    const nns = schema.namespace ?? (schema.name.includes('.') ? schema.name.slice(0, schema.name.lastIndexOf('.')) : ns);
    const full = schema.name.includes('.') ? schema.name : nns ? `${nns}.${schema.name}` : schema.name;
    const slot = { fn: null };
    named.set(full, slot);
    named.set(schema.name.split('.').pop(), slot);
    return { slot, nns };
  };
  switch (type) {
    case 'record':
    case 'error': {
      const { slot, nns } = register();
      const fields = schema.fields.map((f) => [f.name, decoderFor(f.type, named, nns)]);
      slot.fn = (r) => {
        const o = {};
        for (const [name, fn] of fields) o[name] = fn(r);
        return o;
      };
      return slot.fn;
    }
    case 'enum': {
      const { slot } = register();
      slot.fn = (r) => schema.symbols[Number(r.long())];
      return slot.fn;
    }
    case 'fixed': {
      const { slot } = register();
      slot.fn = (r) => Buffer.from(r.bytes(schema.size));
      return slot.fn;
    }
    case 'array': {
      const item = decoderFor(schema.items, named, ns);
      return (r) => {
        const out = [];
        for (;;) {
          let n = Number(r.long());
          if (n === 0) return out;
          if (n < 0) {
            n = -n;
            r.long();
          }
          for (let j = 0; j < n; j++) out.push(item(r));
        }
      };
    }
    case 'map': {
      const val = decoderFor(schema.values, named, ns);
      return (r) => {
        const out = {};
        for (;;) {
          let n = Number(r.long());
          if (n === 0) return out;
          if (n < 0) {
            n = -n;
            r.long();
          }
          for (let j = 0; j < n; j++) {
            const k = r.string();
            out[k] = val(r);
          }
        }
      };
    }
    default:
      return decoderFor(type, named, ns); // {"type":"long","logicalType":...} etc.
  }
}

/** Read an Avro object container file. Returns { meta: {key: string}, schema, records: [] }. */
export function readAvro(bytes) {
  const r = new Reader(Buffer.from(bytes));
  const magic = r.bytes(4);
  if (!(magic[0] === 0x4f && magic[1] === 0x62 && magic[2] === 0x6a && magic[3] === 1)) {
    throw new Error('avro: not an object container file');
  }
  const meta = {};
  for (;;) {
    let n = Number(r.long());
    if (n === 0) break;
    if (n < 0) {
      n = -n;
      r.long();
    }
    for (let j = 0; j < n; j++) {
      const k = r.string();
      meta[k] = Buffer.from(r.lenBytes()).toString('utf8');
    }
  }
  const sync = Buffer.from(r.bytes(16));
  const schema = JSON.parse(meta['avro.schema']);
  const codec = meta['avro.codec'] || 'null';
  const decode = decoderFor(schema);
  const records = [];
  while (r.p < r.b.length) {
    const count = Number(r.long());
    const size = Number(r.long());
    let block = Buffer.from(r.bytes(size));
    if (codec === 'deflate') block = zlib.inflateRawSync(block);
    else if (codec === 'snappy') block = snappyDecompress(block.subarray(0, block.length - 4));
    else if (codec !== 'null') throw new Error(`avro: codec ${codec} not supported by the test reader`);
    const br = new Reader(block);
    for (let j = 0; j < count; j++) records.push(decode(br));
    if (!Buffer.from(r.bytes(16)).equals(sync)) throw new Error('avro: sync marker mismatch');
  }
  return { meta, schema, records };
}

// ---------------------------------------------------------------- table folders

/** Every file under dir (recursively), as absolute paths, sorted. */
export function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Everything the tests assert about a table folder, computed from the files alone.
 * Paths inside the metadata are resolved against the folder by file name (as the app does).
 * Returns { newest, meta, text, snapshots: [{id, summary, manifests, dataFiles, deleteFiles, records, missing}] }.
 * A count is null when a file it needs is missing from the folder (its name is then in `missing`).
 */
export function tableFacts(dir) {
  const files = listFiles(dir);
  const byName = new Map();
  for (const f of files) byName.set(path.basename(f), f);
  const metas = files
    .filter((f) => isMetadataName(path.basename(f)))
    .map((f) => {
      const bytes = fs.readFileSync(f);
      return { name: f, text: metadataText(bytes, f), meta: parseMetadata(bytes, f) };
    });
  if (metas.length === 0) throw new Error(`no *.metadata.json under ${dir}`);
  const newest = newestOf(metas);
  const meta = newest.meta;
  const find = (p) => byName.get(path.basename(String(p))) ?? null;
  const snapshots = (meta.snapshots ?? []).map((snap) => {
    const fact = {
      id: String(snap['snapshot-id']),
      summary: snap.summary ?? {},
      manifests: null,
      dataFiles: null,
      deleteFiles: null,
      records: null,
      missing: [], // file names the metadata points at that the folder lacks
    };
    let manifestList;
    if (snap['manifest-list'] != null) {
      const f = find(snap['manifest-list']);
      if (!f) {
        fact.missing.push(path.basename(String(snap['manifest-list'])));
        return fact;
      }
      manifestList = readAvro(fs.readFileSync(f)).records;
    } else {
      manifestList = (snap.manifests ?? []).map((p) => ({ manifest_path: p, content: 0 }));
    }
    fact.manifests = manifestList.length;
    let dataFiles = 0;
    let deleteFiles = 0;
    let records = 0n;
    for (const m of manifestList) {
      const f = find(m.manifest_path);
      if (!f) {
        fact.missing.push(path.basename(String(m.manifest_path)));
        continue;
      }
      for (const e of readAvro(fs.readFileSync(f)).records) {
        if (Number(e.status) === 2) continue; // DELETED entries are not live
        const content = Number(e.data_file.content ?? 0);
        if (Number(m.content ?? 0) === 0 && content === 0) {
          dataFiles++;
          records += BigInt(e.data_file.record_count);
        } else {
          deleteFiles++;
        }
      }
    }
    if (fact.missing.length === 0) {
      fact.dataFiles = dataFiles;
      fact.deleteFiles = deleteFiles;
      fact.records = records.toString();
    }
    return fact;
  });
  return { newest: newest.name, meta, text: newest.text, snapshots };
}

// The harness's own readers and server, checked without a browser or a built app, so a bug here
// cannot make an app test pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from './serve.mjs';
import { corpus, inspectPng, REPO } from './lib/harness.mjs';
import { parseJsonBig, snapshotIds, snapshotIdsByRegex, tableFacts } from './lib/iceberg.mjs';

test('parseJsonBig keeps 64-bit ids exact and matches JSON.parse elsewhere', () => {
  const text = '{"a":[1,-2.5e3,true,null,"x\\"y"],"snapshots":[{"snapshot-id":9158179788527662767,"parent-snapshot-id":-1},{"snapshot-id":-9223372036854775808}],"refs":{"main":{"snapshot-id":1}}}';
  const v = parseJsonBig(text);
  assert.deepEqual(v.a, [1, -2500, true, null, 'x"y']);
  assert.deepEqual(snapshotIds(v), ['9158179788527662767', '-9223372036854775808']);
  assert.deepEqual(snapshotIdsByRegex(text), ['9158179788527662767', '-9223372036854775808']);
  assert.throws(() => parseJsonBig('{"a":1,}'));
});

test('serve.mjs: MIME types, 404, no escape from the root, client-route fallback', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-serve-'));
  fs.mkdirSync(path.join(root, 'examples'));
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html>shell');
  fs.writeFileSync(path.join(root, 'app_bg.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  fs.writeFileSync(path.join(root, 'examples', 'm.avro'), 'Obj\x01');
  fs.writeFileSync(path.join(root, 'app.js'), '1');
  const srv = await startServer({ root });
  try {
    assert.match(srv.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const get = async (p) => {
      const r = await fetch(new URL(p, srv.url));
      return { status: r.status, type: r.headers.get('content-type'), body: Buffer.from(await r.arrayBuffer()) };
    };
    assert.deepEqual([(await get('app_bg.wasm')).status, (await get('app_bg.wasm')).type], [200, 'application/wasm']);
    assert.equal((await get('examples/m.avro')).type, 'application/octet-stream');
    assert.match((await get('app.js')).type, /^text\/javascript/);
    assert.match((await get('')).type, /^text\/html/);
    assert.equal((await get('missing.wasm')).status, 404);
    assert.equal((await get('some/route')).body.toString(), '<!doctype html>shell');
    for (const p of ['../../../../etc/passwd', '%2e%2e/%2e%2e/etc/hostname', '..%2f..%2fetc%2fhostname']) {
      const r = await get(p);
      assert.ok(!r.body.toString().includes('root:') && r.status !== 500, `${p} escaped the root`);
      assert.ok([200, 403, 404].includes(r.status));
      if (r.status === 200) assert.equal(r.body.toString(), '<!doctype html>shell', p);
    }
  } finally {
    await srv.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('inspectPng reads IHDR and rejects a corrupted chunk', () => {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
  const info = inspectPng(png);
  assert.deepEqual([info.width, info.height, info.colorType, info.bitDepth], [1, 1, 6, 8]);
  const bad = Buffer.from(png);
  bad[20] ^= 0xff;
  assert.throws(() => inspectPng(bad), /CRC/);
  assert.throws(() => inspectPng(Buffer.from('GIF89a not a png at all, padded to length')), /signature/);
});

const { PUBLIC, skip: noCorpus, need } = corpus();

test('Avro reader agrees with every corpus snapshot summary', { skip: noCorpus }, () => {
  need();
  const tables = [];
  const walk = (d) => {
    const names = fs.readdirSync(d);
    if (names.includes('metadata') && fs.statSync(path.join(d, 'metadata')).isDirectory()) tables.push(d);
    else for (const n of names) if (fs.statSync(path.join(d, n)).isDirectory()) walk(path.join(d, n));
  };
  walk(PUBLIC);
  assert.ok(tables.length >= 2, `found tables: ${tables}`);
  let checked = 0;
  for (const dir of tables) {
    const facts = tableFacts(dir);
    const rel = path.relative(PUBLIC, dir);
    assert.deepEqual(facts.snapshots.map((s) => s.id), snapshotIdsByRegex(facts.text), rel);
    for (const s of facts.snapshots) {
      if (s.missing.length) continue;
      const sum = s.summary;
      if (sum['total-data-files'] !== undefined) {
        assert.equal(String(s.dataFiles), String(sum['total-data-files']), `${rel} ${s.id} data files`);
        checked++;
      }
      if (sum['total-records'] !== undefined) assert.equal(s.records, String(sum['total-records']), `${rel} ${s.id} records`);
      if (sum['total-delete-files'] !== undefined) {
        assert.equal(String(s.deleteFiles), String(sum['total-delete-files']), `${rel} ${s.id} delete files`);
      }
    }
  }
  assert.ok(checked > 5, `only ${checked} snapshots had summaries to check`);
});

// Export and orphan files in the browser, on the lab's taskmanager-kill fixture: the orphan-file
// finding names the two files facts.json's store census lists; the export buttons download a
// Parquet file (magic and footer) and CSV files whose snapshot ids are the metadata's and whose
// statements carry the catalog name typed. Expected values are read from the fixture, never typed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { appTarget, cliPath, launchBrowser, newPage, openGallery, waitReady, sel, REPO, screenshotOnFailure, download } from './lib/harness.mjs';

const NAME = 'taskmanager-kill';
const DIR = path.join(REPO, 'tests', 'fixtures', NAME);
const facts = JSON.parse(fs.readFileSync(path.join(DIR, 'facts.json'), 'utf8'));

let target;
let browser;

before(async () => {
  target = await appTarget();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await target?.close();
});


test('taskmanager-kill: orphan finding from the census, Parquet and CSV exports', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, `export-${NAME}`, async () => {
      await openGallery(page, target.url);
      await page.locator(`${sel.card}[data-example="${NAME}"]`).click();
      await waitReady(page, errors);
      const orphan = page.locator('[data-testid="finding"][data-kind="orphan_files"]');
      await orphan.waitFor({ state: 'attached' });
      const text = await orphan.textContent();
      for (const p of facts.store.orphans) assert.ok(text.includes(p), `finding names ${p}: ${text}`);
      await page.locator('[data-testid="catalog-name"]').fill('lab');
      const statement = await orphan.locator('[data-testid="statement"]').textContent();
      assert.ok(statement.startsWith(`CALL lab.system.remove_orphan_files(table => '${facts.table}', older_than => TIMESTAMP '`), statement);

      await page.locator('[data-testid="export-format"]').selectOption('parquet');
      const pq = await download(page, 'export-snapshots');
      assert.match(pq.name, /snapshots\.parquet$/);
      assert.equal(pq.bytes.subarray(0, 4).toString('latin1'), 'PAR1');
      assert.equal(pq.bytes.subarray(pq.bytes.length - 4).toString('latin1'), 'PAR1');
      const footer = pq.bytes.readUInt32LE(pq.bytes.length - 8);
      assert.ok(footer > 0 && footer < pq.bytes.length, `footer length ${footer}`);
      // Read back by pyarrow, row for row equal to what the CLI exports of the same table read the
      // same way (every snapshot's manifests, as the app reads a table it shows whole).
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-export-'));
      try {
        fs.writeFileSync(path.join(tmp, 'browser.parquet'), pq.bytes);
        execFileSync(cliPath(), ['export', DIR, '--what', 'snapshots', '--format', 'parquet', '--all-snapshots', '--out', path.join(tmp, 'cli')]);
        const read = `
import json, sys
import pyarrow.parquet as pq
a, b = (pq.read_table(p) for p in sys.argv[1:3])
rows = lambda t: [{k: str(v) for k, v in r.items()} for r in t.to_pylist()]
ra, rb = rows(a), rows(b)
print(json.dumps({"rows": len(ra), "cli_rows": len(rb), "columns": a.column_names == b.column_names,
                  "differ": [f"{i}.{k}: {x[k]} vs {y.get(k)}" for i, (x, y) in enumerate(zip(ra, rb)) for k in x if x[k] != y.get(k)][:10]}))`;
        const python = path.join(REPO, 'tests', '.venv', 'bin', 'python');
        const got = JSON.parse(execFileSync(python, ['-c', read, path.join(tmp, 'browser.parquet'), path.join(tmp, 'cli', 'snapshots.parquet')], { encoding: 'utf8' }));
        assert.equal(got.rows, Number(await page.locator(sel.count).textContent()), 'a row per snapshot');
        assert.deepEqual(got, { rows: got.cli_rows, cli_rows: got.cli_rows, columns: true, differ: [] }, 'the browser\'s Parquet equals the CLI\'s');
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }

      await page.locator('[data-testid="export-format"]').selectOption('csv');
      const snaps = (await download(page, 'export-snapshots')).bytes.toString('utf8');
      const lines = snaps.trimEnd().split('\n');
      assert.equal(lines[0].split(',')[0], '"snapshot_id"');
      const metadataFile = fs.readdirSync(path.join(DIR, 'metadata')).filter((f) => f.endsWith('.metadata.json'))
        .sort((a, b) => parseInt(a.slice(1)) - parseInt(b.slice(1))).pop();
      const raw = fs.readFileSync(path.join(DIR, 'metadata', metadataFile), 'utf8');
      const ids = [...raw.slice(raw.indexOf('"snapshots"')).matchAll(/"snapshot-id"\s*:\s*(\d+)/g)].map((m) => m[1]);
      const exported = lines.slice(1).map((l) => l.split(',')[0]);
      // Ids as text: they pass 2^53.
      assert.deepEqual([...new Set(exported)].sort(), [...new Set(ids)].sort());
      assert.equal(exported.length, Number(await page.locator(sel.count).textContent()));

      const findings = (await download(page, 'export-findings')).bytes.toString('utf8');
      assert.ok(findings.includes('"orphan_files"'));
      assert.ok(findings.includes('CALL lab.system.remove_orphan_files('), 'the typed catalog name is in the exported statements');
      for (const p of facts.store.orphans) assert.ok(findings.includes(p));
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});

test('taskmanager-kill picked as a folder: the orphan finding lists the folder\'s unreferenced files with their sizes', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, `orphans-picked-${NAME}`, async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(DIR);
      await waitReady(page, errors);
      const orphan = page.locator('[data-testid="finding"][data-kind="orphan_files"]');
      await orphan.waitFor({ state: 'attached' });
      const text = await orphan.textContent();
      // The store's orphans, with the sizes the files have on disk; the lab's own files beside the
      // table (facts.json, caption.md) are in the picked folder too, and no snapshot names them.
      const beside = fs.readdirSync(DIR).filter((f) => fs.statSync(path.join(DIR, f)).isFile());
      for (const p of [...facts.store.orphans, ...beside]) {
        const size = fs.statSync(path.join(DIR, p)).size.toLocaleString('en-US');
        assert.ok(text.includes(`${p} (${size} bytes)`), `finding names ${p} with ${size} bytes: ${text}`);
      }
      const [d, o] = [facts.store.orphans.length, beside.length];
      assert.ok(text.includes(`${d + o} orphan files under the table location (${d} data or delete, 0 metadata, ${o} other)`), text);
      assert.ok(text.includes(`${o} files beside them are no table file at all`), text);
      assert.deepEqual(errors.pageErrors, [], 'page errors');
    });
  } finally {
    await context.close();
  }
});

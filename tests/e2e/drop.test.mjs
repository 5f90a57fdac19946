// Real tables from the shared corpus, read in place, opened (a) through the folder input and
// (b) through a synthesized drop on the dropzone. Every number is computed here from the files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, waitReady, readTableView, dropFiles, screenshotOnFailure, sel, corpus, REPO } from './lib/harness.mjs';
import { tableFacts, listFiles, snapshotIdsByRegex } from './lib/iceberg.mjs';

const { PUBLIC, skip, need } = corpus();
const TABLES = ['icebird/spark/bunnies', 'duckdb-iceberg/equality_deletes/warehouse/mydb/mytable'];

let target;
let browser;

before(async () => {
  if (skip) return;
  need();
  target = await appTarget();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await target?.close();
});

/** Facts for one table, with the tests' own readers checked against each other first. */
function factsFor(rel) {
  const dir = path.join(PUBLIC, rel);
  const facts = tableFacts(dir);
  assert.deepEqual(
    facts.snapshots.map((s) => s.id),
    snapshotIdsByRegex(facts.text),
    `${rel}: BigInt JSON parse and regex disagree on snapshot ids`,
  );
  for (const s of facts.snapshots) {
    // our Avro reading must agree with what the writer recorded in the snapshot summary
    if (s.dataFiles !== null && s.summary['total-data-files'] !== undefined) {
      assert.equal(String(s.dataFiles), String(s.summary['total-data-files']), `${rel} ${s.id}: test's data-file count vs summary`);
    }
    if (s.records !== null && s.summary['total-records'] !== undefined) {
      assert.equal(s.records, String(s.summary['total-records']), `${rel} ${s.id}: test's record count vs summary`);
    }
  }
  return { dir, facts };
}

function assertViewMatches(view, facts, rel) {
  const n = facts.snapshots.length;
  assert.equal(view.count, String(n), `${rel}: snapshot-count (newest metadata ${path.basename(facts.newest)})`);
  assert.equal(view.rows.length, n, `${rel}: snapshot rows`);
  assert.deepEqual(
    view.rows.map((r) => r.id).sort(),
    facts.snapshots.map((s) => s.id).sort(),
    `${rel}: data-snapshot-id of the rows`,
  );
  assert.equal(view.chartPoints, String(n), `${rel}: growth-chart data-points`);
  assert.ok(view.location && view.location.length > 0, `${rel}: table-location is empty`);
  const byId = new Map(view.rows.map((r) => [r.id, r]));
  const missing = [];
  for (const s of facts.snapshots) {
    const row = byId.get(s.id);
    if (s.missing.length === 0) {
      assert.equal(row.dataFiles, String(s.dataFiles), `${rel} snapshot ${s.id}: data-data-files`);
      assert.equal(row.records, s.records, `${rel} snapshot ${s.id}: data-records`);
      assert.equal(row.manifests, String(s.manifests), `${rel} snapshot ${s.id}: data-manifests`);
    } else {
      // the metadata points at a file this folder lacks: the count is unknown (empty), or taken
      // from the snapshot summary; either way the missing file must be reported
      missing.push(...s.missing);
      const sumFiles = s.summary['total-data-files'];
      const sumRecords = s.summary['total-records'];
      assert.ok(
        row.dataFiles === '' || (sumFiles !== undefined && row.dataFiles === String(sumFiles)),
        `${rel} snapshot ${s.id} (missing ${s.missing.join(', ')}): data-data-files=${JSON.stringify(row.dataFiles)}, want "" or summary ${sumFiles}`,
      );
      assert.ok(
        row.records === '' || (sumRecords !== undefined && row.records === String(sumRecords)),
        `${rel} snapshot ${s.id} (missing ${s.missing.join(', ')}): data-records=${JSON.stringify(row.records)}, want "" or summary ${sumRecords}`,
      );
    }
  }
  if (missing.length === 0) {
    assert.deepEqual(view.loadErrors, [], `${rel}: load-error shown for a complete table`);
  } else {
    for (const name of missing) {
      assert.ok(
        view.loadErrors.some((e) => e.includes(name)),
        `${rel}: no load-error names the missing ${name}; load-errors: ${JSON.stringify(view.loadErrors)}`,
      );
    }
  }
}

for (const rel of TABLES) {
  test(`folder input: ${rel}`, { skip, timeout: 120000 }, async () => {
    const { dir, facts } = factsFor(rel);
    const { context, page, errors } = await newPage(browser);
    try {
      await screenshotOnFailure(page, `folder-${path.basename(rel)}`, async () => {
        await openGallery(page, target.url);
        await page.locator(sel.folderInput).setInputFiles(dir);
        await waitReady(page, errors);
        const view = await readTableView(page);
        assertViewMatches(view, facts, rel);
        assert.deepEqual(errors.pageErrors, [], 'page errors');
        assert.deepEqual(errors.panics(), [], 'wasm panic');
      });
    } finally {
      await context.close();
    }
  });

  test(`drop on dropzone: ${rel}`, { skip, timeout: 120000 }, async () => {
    const { dir, facts } = factsFor(rel);
    const files = listFiles(dir).map((f) => ({ name: path.basename(f), bytes: fs.readFileSync(f) }));
    const { context, page, errors } = await newPage(browser);
    try {
      await screenshotOnFailure(page, `drop-${path.basename(rel)}`, async () => {
        await openGallery(page, target.url);
        const r = await dropFiles(page, files);
        assert.equal(r.files, files.length, 'DataTransfer built in the page');
        assert.ok(r.overPrevented, 'dropzone did not preventDefault() on dragover: a real browser would never fire drop');
        assert.ok(r.dropPrevented, 'dropzone did not preventDefault() on drop: the browser would navigate to the file');
        await waitReady(page, errors);
        const view = await readTableView(page);
        assertViewMatches(view, facts, rel);
        assert.deepEqual(errors.pageErrors, [], 'page errors');
        assert.deepEqual(errors.panics(), [], 'wasm panic');
      });
    } finally {
      await context.close();
    }
  });
}

// "Choose folder…" where Chromium offers showDirectoryPicker: the folder comes as a handle, only
// metadata/ is listed to open it, and the report equals the folder input's. The picker's dialog
// cannot be driven, so the test copies a lab fixture into the origin-private file system and
// hands its directory handle to the app as the picker's answer; every folder the app lists is
// recorded (FileSystemDirectoryHandle's iterators, patched before the app loads). A folder dropped
// from disk (Chromium's own drag, driven through CDP) comes with its handle and opens the same way.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copyToOpfs, pickerAnswers, chooseFolder } from './lib/opfs.mjs';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, waitReady, dropFromDisk, readTableView, sel, REPO, TIMEOUT_MS } from './lib/harness.mjs';

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

/** What the report says, as the page shows it: the same for both ways of opening. */
async function report(page) {
  await page.locator('[data-testid="finding"][data-kind="orphan_files"]').waitFor({ state: 'attached', timeout: TIMEOUT_MS });
  return {
    snapshots: await page.locator(sel.count).textContent(),
    points: await page.locator(sel.chart).getAttribute('data-points'),
    findings: await page.locator('[data-testid="finding"]').evaluateAll((els) => els.map((e) => `${e.dataset.kind}: ${e.textContent}`)),
    markdown: await page.locator('[data-testid="markdown"]').inputValue(),
    counted: await page.locator('[data-testid="count-sources"]').textContent(),
  };
}

/** Patched into the page before the app loads: every folder it lists and every file it takes
 * (the decoder workers are not patched). */
function recordReads() {
  window.__listed = [];
  for (const m of ['values', 'keys', 'entries']) {
    const inner = FileSystemDirectoryHandle.prototype[m];
    FileSystemDirectoryHandle.prototype[m] = function (...a) {
      window.__listed.push({ name: this.name, at: performance.now() });
      return inner.apply(this, a);
    };
  }
  // Files whose contents or size the page itself takes (the decoder workers are not patched).
  window.__got = [];
  const getFile = FileSystemFileHandle.prototype.getFile;
  FileSystemFileHandle.prototype.getFile = function (...a) {
    window.__got.push({ name: this.name, at: performance.now() });
    return getFile.apply(this, a);
  };
}

/** Only metadata/ listed to open the table, its lists and manifests read by the workers. */
async function readOnlyMetadata(page) {
  const { listed, got, census } = await page.evaluate(() => ({
    listed: window.__listed,
    got: window.__got,
    census: performance.getEntriesByName('icescope:phase:census').at(-1)?.startTime,
  }));
  const before = listed.filter((l) => census === undefined || l.at < census).map((l) => l.name);
  assert.deepEqual(before, [NAME, 'metadata'], 'to open and read the table: the folder itself and metadata/, nothing else');
  // The lists and the manifests are read by the decoder workers, which are handed
  // metadata/'s handle: the page takes none of them (it takes the metadata files' heads, to
  // pick the newest by content, and the metadata log's sizes).
  const onPage = got.filter((g) => census === undefined || g.at < census).map((g) => g.name);
  assert.deepEqual(onPage.filter((n) => n.endsWith('.avro')), [], 'no manifest list or manifest read on the page');
  assert.ok(onPage.some((n) => n.endsWith('.metadata.json')), 'the patch sees what the page reads');
  // Every snapshot's files were read (a small table): only then is the folder listed whole,
  // for the orphan census, as the folder input's census waits for them.
  assert.ok(census !== undefined, 'the census ran');
  assert.ok(listed.some((l) => l.name === 'data' && l.at > census), 'data/ listed for the census');
}

/** The reference: the folder read through the folder input; then back on the start page, with
 * what the page listed and took so far forgotten. */
async function viaFolderInput(context, page, errors) {
  await context.addInitScript(recordReads);
  await openGallery(page, target.url);
  await page.locator(sel.folderInput).setInputFiles(DIR);
  await waitReady(page, errors);
  const viaInput = await report(page);
  await page.locator(sel.back).click();
  await page.evaluate(() => { window.__listed = []; window.__got = []; });
  return viaInput;
}

test(`${NAME}: a folder handle lists metadata/ only to open, and reports what the folder input does`, { timeout: 180000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'folder-handle', async () => {
      const viaInput = await viaFolderInput(context, page, errors);
      await copyToOpfs(page, DIR, NAME);
      await pickerAnswers(page, NAME);
      await chooseFolder(page);
      await waitReady(page, errors);
      const viaHandle = await report(page);
      assert.deepEqual(viaHandle, viaInput, 'the same report as the folder input');
      assert.equal(viaHandle.snapshots, String(facts.final_table.snapshots.length), 'snapshots, as Spark listed them');

      await readOnlyMetadata(page);
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});

test(`${NAME}: a table folder dropped from disk is opened by its handle, as the picker opens it`, { timeout: 180000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'folder-drop-handle', async () => {
      const viaInput = await viaFolderInput(context, page, errors);
      // Chromium's own drag of the folder from disk: the drop carries its entries and its handle.
      await dropFromDisk(page, [DIR]);
      await waitReady(page, errors);
      assert.deepEqual(await report(page), viaInput, 'the same report as the folder input');
      await readOnlyMetadata(page);
      // A handle reads the folder as it is now, not a copy: the Live switch can follow it.
      assert.equal(await page.locator('[data-testid="live-switch"]').isDisabled(), false, 'Live can follow a dropped folder');
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});

test(`${NAME}: a dropped folder Chromium will not hand over (under ~/.cache) is read as its entries`, { timeout: 180000 }, async () => {
  // Chromium keeps the handle of a folder it deems sensitive waiting on a dialog, which headless
  // never answers: the app reads the drop's entries instead, after a short wait.
  const home = fs.mkdtempSync(path.join(os.homedir(), '.cache', 'icescope-e2e-drop-'));
  const copy = path.join(home, NAME);
  fs.cpSync(DIR, copy, { recursive: true });
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'folder-drop-sensitive', async () => {
      const viaInput = await viaFolderInput(context, page, errors);
      await dropFromDisk(page, [copy]);
      await waitReady(page, errors);
      assert.deepEqual(await report(page), viaInput, 'the same report as the folder input');
      assert.deepEqual(await page.evaluate(() => window.__listed.map((l) => l.name)), [], 'no handle listed: the entries were read');
      assert.equal(await page.locator('[data-testid="live-switch"]').isDisabled(), true, 'files read from a drop are a copy of one moment');
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test(`${NAME}: a manifest list whose read never ends (a stalled mount) is given up after its allowance, and a fresh worker, handed the folder again, reads on`, { timeout: 180000 }, async () => {
  // The decoder workers read the folder themselves: a read that never settles (a network mount
  // that stopped answering) must cost only its own file. The workers' getFile is patched, through
  // the worker's loader, to never answer for the first snapshot's manifest list; that file's
  // allowance, and only that file's, is set to 2 s by the test switches `decoder-ms`, `decoder-ms-for`.
  // From the text: a snapshot id is past what a JS number holds exactly.
  const first = fs.readFileSync(path.join(DIR, 'facts.json'), 'utf8').match(/"final_table"[^]*?"snapshot_id": (\d+)/)[1];
  const stalled = fs.readdirSync(path.join(DIR, 'metadata')).find((n) => n.startsWith(`snap-${first}-`));
  assert.ok(stalled, 'the first snapshot\'s manifest list is in the fixture');
  const { context, page, errors } = await newPage(browser);
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  try {
    await screenshotOnFailure(page, 'folder-handle-stalled-read', async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(DIR);
      await waitReady(page, errors);
      const reference = await readTableView(page);
      await page.locator(sel.back).click();

      await page.route('**/icescope-decoder_loader.js', async (route) => {
        const original = await (await route.fetch()).text();
        const stall = `const getFile = FileSystemFileHandle.prototype.getFile;
FileSystemFileHandle.prototype.getFile = function (...a) { return this.name === ${JSON.stringify(stalled)} ? new Promise(() => {}) : getFile.apply(this, a); };\n`;
        await route.fulfill({ contentType: 'text/javascript', body: stall + original });
      });
      // The workers of this page load: its pool, and the fresh one.
      workers.length = 0;
      await openGallery(page, `${target.url}?decoder-ms=2000&decoder-ms-for=${encodeURIComponent(stalled)}`);
      await dropFromDisk(page, [DIR]);
      await waitReady(page, errors);
      const shown = await readTableView(page);

      assert.equal(shown.loadErrors.length, 1, JSON.stringify(shown.loadErrors));
      assert.match(shown.loadErrors[0], new RegExp(`/metadata/${stalled.replace('.', '\\.')}: the decoder stopped on this file: no answer within 2 s; a fresh decoder takes the next file`));
      assert.match(shown.loadErrors[0], new RegExp(`needed by snapshot ${first}$`));
      const pool = await page.evaluate(() => Math.min(navigator.hardwareConcurrency, 2));
      assert.equal(workers.length, pool + 1, 'one fresh worker took the stalled one\'s place');
      // Every other snapshot is counted as the folder input counts it: the jobs queued behind the
      // stalled read went to the fresh worker, which was handed metadata/ again.
      const others = (rows) => rows.filter((r) => r.id !== first);
      assert.equal(shown.rows.length, reference.rows.length);
      assert.deepEqual(others(shown.rows), others(reference.rows));
      const [was, now] = [reference, shown].map((v) => v.rows.find((r) => r.id === first));
      assert.notDeepEqual(now, was, 'the unread snapshot is not shown as counted from its list');
      assert.deepEqual(errors.pageErrors, []);
    });
  } finally {
    await context.close();
  }
});

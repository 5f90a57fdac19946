// "Choose folder…" where Chromium offers showDirectoryPicker: the folder comes as a handle, only
// metadata/ is listed to open it, and the report equals the folder input's. The picker's dialog
// cannot be driven, so the test copies a lab fixture into the origin-private file system and
// hands its directory handle to the app as the picker's answer; every folder the app lists is
// recorded (FileSystemDirectoryHandle's iterators, patched before the app loads).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, waitReady, sel, REPO, TIMEOUT_MS } from './lib/harness.mjs';

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

function filesUnder(dir, prefix = '') {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name), `${prefix}${e.name}/`) : [[`${prefix}${e.name}`, path.join(dir, e.name)]]);
}

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

test(`${NAME}: a folder handle lists metadata/ only to open, and reports what the folder input does`, { timeout: 180000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'folder-handle', async () => {
      await context.addInitScript(() => {
        window.__listed = [];
        for (const m of ['values', 'keys', 'entries']) {
          const inner = FileSystemDirectoryHandle.prototype[m];
          FileSystemDirectoryHandle.prototype[m] = function (...a) {
            window.__listed.push({ name: this.name, at: performance.now() });
            return inner.apply(this, a);
          };
        }
      });
      await openGallery(page, target.url);
      // The folder input first: the reference.
      await page.locator(sel.folderInput).setInputFiles(DIR);
      await waitReady(page, errors);
      const viaInput = await report(page);
      await page.locator(sel.back).click();

      // The fixture into the origin-private file system, a file at a time.
      const files = filesUnder(DIR);
      for (const [rel, abs] of files) {
        await page.evaluate(async ({ root, rel, b64 }) => {
          let dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(root, { create: true });
          const parts = rel.split('/');
          for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p, { create: true });
          const w = await (await dir.getFileHandle(parts.at(-1), { create: true })).createWritable();
          await w.write(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
          await w.close();
        }, { root: NAME, rel, b64: fs.readFileSync(abs).toString('base64') });
      }
      await page.evaluate((root) => {
        window.__listed = [];
        window.showDirectoryPicker = async () => (await navigator.storage.getDirectory()).getDirectoryHandle(root);
      }, NAME);
      await page.locator('label:has([data-testid="folder-input"])').click();
      await waitReady(page, errors);
      const viaHandle = await report(page);
      assert.deepEqual(viaHandle, viaInput, 'the same report as the folder input');
      assert.equal(viaHandle.snapshots, String(facts.final_table.snapshots.length), 'snapshots, as Spark listed them');

      const { listed, census } = await page.evaluate(() => ({
        listed: window.__listed,
        census: performance.getEntriesByName('icescope:phase:census').at(-1)?.startTime,
      }));
      const before = listed.filter((l) => census === undefined || l.at < census).map((l) => l.name);
      assert.deepEqual(before, [NAME, 'metadata'], 'to open and read the table: the folder itself and metadata/, nothing else');
      // Every snapshot's files were read (a small table): only then is the folder listed whole,
      // for the orphan census, as the folder input's census waits for them.
      assert.ok(census !== undefined, 'the census ran');
      assert.ok(listed.some((l) => l.name === 'data' && l.at > census), 'data/ listed for the census');
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});

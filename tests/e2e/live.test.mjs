// The Live switch in Chromium: a lab table (savepoint-twice, written by Flink) grows in the folder
// the app watches, metadata file by metadata file as Flink committed them; the folder is picked as
// a handle (the origin-private file system, as folder_handle.test.mjs does). After each look the
// growth chart's points and the snapshot count equal the snapshots of the newest metadata file
// there; the resumed job and the replay are events; the tab a person chose stays chosen. A dropped
// folder is a copy of one moment: the switch says so and stays off.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copyToOpfs, writeToOpfs, pickerAnswers, chooseFolder } from './lib/opfs.mjs';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, waitReady, sel, REPO, SCREENSHOT_DIR, TIMEOUT_MS } from './lib/harness.mjs';

const NAME = 'savepoint-twice';
const DIR = path.join(REPO, 'tests', 'fixtures', NAME);
const version = (f) => Number(/^v(\d+)\.metadata\.json$/.exec(f)?.[1]);
const versions = fs.readdirSync(path.join(DIR, 'metadata')).filter((f) => version(f)).sort((a, b) => version(a) - version(b));
const snapshots = (f) => (JSON.parse(fs.readFileSync(path.join(DIR, 'metadata', f), 'utf8')).snapshots ?? []).length;
const seq = (f) => JSON.parse(fs.readFileSync(path.join(DIR, 'metadata', f), 'utf8'))['last-sequence-number'];
const jobsIn = (f) => new Set((JSON.parse(fs.readFileSync(path.join(DIR, 'metadata', f), 'utf8')).snapshots ?? []).map((x) => x.summary?.['flink.job-id']).filter(Boolean));
// The table as it stood after its first job's last commit (the newest version written by one job:
// job A, stopped with savepoint A), then grown in steps read from the files: the second job's first
// commit (B, resumed from A), B midway, B near its end, the third job's first commit (C, the replay
// of A's checkpoint), the end.
const START = versions.filter((f) => jobsIn(f).size === 1).map(version).at(-1);
const C_FIRST = version(versions.find((f) => jobsIn(f).size === 3));
const STEPS = [...new Set([START + 1, Math.floor((START + 1 + C_FIRST) / 2), C_FIRST - 2, C_FIRST, versions.length])].sort((a, b) => a - b);
const NEW_JOBS = jobsIn(versions.at(-1)).size - jobsIn(versions[START - 1]).size;

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

/** The fixture with its metadata files up to `upTo` only, in a temporary folder. */
function tableUpTo(upTo) {
  return tableOf((v) => v <= upTo);
}

/** The fixture with only the metadata versions `keep` keeps, in a temporary folder. */
function tableOf(keep) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-live-'));
  fs.cpSync(DIR, dir, { recursive: true, filter: (src) => !version(path.basename(src)) || keep(version(path.basename(src))) });
  return dir;
}

async function shown(page) {
  return {
    points: Number(await page.locator(sel.chart).getAttribute('data-points')),
    count: Number(await page.locator(sel.count).textContent()),
  };
}

/** `dir` copied into the origin-private file system and picked through Choose folder… (its handle). */
async function chooseCopy(page, dir) {
  await openGallery(page, target.url);
  await copyToOpfs(page, dir, NAME);
  await pickerAnswers(page, NAME);
  await chooseFolder(page);
}

/** The folder `start` opened through Choose folder… (a handle on its origin-private copy), as START left it. */
async function openStart(page, errors, start) {
  await chooseCopy(page, start);
  await waitReady(page, errors);
  assert.deepEqual(await shown(page), { points: snapshots(versions[START - 1]), count: snapshots(versions[START - 1]) });
}

test(`${NAME}: the Live switch follows the folder as Flink's commits land, and the chart grows with it`, { timeout: 180000 }, async () => {
  const { page, errors } = await newPage(browser);
  const start = tableUpTo(START);
  try {
    await screenshotOnFailure(page, 'live', async () => {
      await openStart(page, errors, start);
      // A person's choice survives each update: the jobs tab stays open.
      await page.locator('[data-testid="tab-jobs"]').click();
      await page.locator('[data-testid="live-every"]').selectOption('2');
      const sw = page.locator('[data-testid="live-switch"]');
      assert.equal(await sw.isEnabled(), true);
      await sw.click();
      await page.locator('[data-testid="live-badge"]').waitFor({ timeout: TIMEOUT_MS });
      for (const upTo of STEPS) {
        for (const f of versions.slice(0, upTo)) {
          if (version(f) > START) await writeToOpfs(page, `${NAME}/metadata/${f}`, path.join(DIR, 'metadata', f));
        }
        const want = snapshots(versions[upTo - 1]);
        await page.waitForFunction((n) => document.querySelector('[data-testid="snapshot-count"]')?.textContent === String(n), want, { timeout: TIMEOUT_MS });
        await page.locator('[data-testid="tab-growth"]').click();
        await page.waitForFunction((n) => document.querySelector('canvas[data-testid="growth-chart"]')?.dataset.points === String(n), want, { timeout: TIMEOUT_MS });
        assert.deepEqual(await shown(page), { points: want, count: want }, `after ${versions[upTo - 1]}`);
        await page.locator('[data-testid="tab-jobs"]').click();
      }
      assert.equal(await page.locator('[data-testid="tab-jobs"]').getAttribute('aria-selected'), 'true');
      // The metadata file shown is the newest, with the folder's versions to go back to.
      assert.equal(await page.locator('[data-testid="metadata-picker"]').inputValue(), `${NAME}/metadata/${versions.at(-1)}`);
      // Every commit since the switch went on is one event; the two resumed jobs and the replay too.
      const events = await page.locator('[data-testid="live-events"] li').evaluateAll((els) => els.map((e) => ({ kind: e.dataset.kind, text: e.textContent, alarm: e.classList.contains('alarm') })));
      const commits = events.filter((e) => e.kind === 'commit');
      assert.equal(commits.length, snapshots(versions.at(-1)) - snapshots(versions[START - 1]));
      const jobs = events.filter((e) => e.kind === 'new_job');
      assert.equal(jobs.length, NEW_JOBS, JSON.stringify(jobs));
      const replay = events.filter((e) => e.kind === 'finding' && e.text.includes('Savepoint replayed'));
      assert.equal(replay.length, 1);
      assert.equal(replay[0].alarm, true);
      // Newest first: the last commit heads the list of commits.
      // As text: a snapshot id passes 2^53, which a JS number rounds.
      const raw = fs.readFileSync(path.join(DIR, 'metadata', versions.at(-1)), 'utf8');
      const lastId = /"current-snapshot-id"\s*:\s*(\d+)/.exec(raw)[1];
      assert.ok(commits[0].text.includes(lastId), `${commits[0].text} names ${lastId}`);
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.locator('[data-testid="tab-growth"]').click();
      for (const [w, scheme] of [[1280, 'light'], [800, 'light'], [1280, 'dark'], [800, 'dark']]) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width: w, height: 1000 });
        // The growth chart redrawn for this width and scheme (`data-drawn`), then a frame painted.
        await page.waitForFunction(({ w, scheme }) => {
          const [dw, theme] = (document.querySelector('canvas[data-testid="growth-chart"]')?.dataset.drawn ?? '').split(' ');
          return theme === scheme && Number(dw) > w * 0.75 && Number(dw) < w;
        }, { w, scheme });
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, `live-${w}-${scheme}.png`) });
      }
      assert.deepEqual(errors.all ?? [], []);
    });
  } finally {
    fs.rmSync(start, { recursive: true, force: true });
    await page.context().close();
  }
});

/** Sets the folder's version-hint.text to `n`, as Iceberg's HadoopTableOperations does after each commit. */
async function writeHint(page, n) {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'icescope-hint-')), 'version-hint.text');
  fs.writeFileSync(f, String(n));
  await writeToOpfs(page, `${NAME}/metadata/version-hint.text`, f);
  fs.rmSync(path.dirname(f), { recursive: true, force: true });
}

test(`${NAME} as a Hadoop table (version-hint.text): opened and followed by the hint, metadata/ listed once, after the first chart`, { timeout: 180000 }, async () => {
  const { page, errors } = await newPage(browser);
  const start = tableUpTo(START);
  fs.writeFileSync(path.join(start, 'metadata', 'version-hint.text'), String(START));
  try {
    await screenshotOnFailure(page, 'live-hint', async () => {
      // Every listing of a folder's names (the handle's keys()), with its time on the page's clock.
      await page.addInitScript(() => {
        const keys = FileSystemDirectoryHandle.prototype.keys;
        window.__listed = [];
        FileSystemDirectoryHandle.prototype.keys = function (...a) {
          window.__listed.push({ name: this.name, at: performance.now() });
          return keys.apply(this, a);
        };
      });
      await openStart(page, errors, start);
      // metadata/ is listed once the first chart is drawn, for the picker's versions.
      const picker = page.locator('[data-testid="metadata-picker"]');
      await page.waitForFunction((n) => document.querySelector('[data-testid="metadata-picker"]')?.options.length === n, START, { timeout: TIMEOUT_MS });
      const firstChart = await page.evaluate(() => performance.getEntriesByName('icescope:first-chart')[0]?.startTime);
      const listed = await page.evaluate(() => window.__listed.filter((l) => l.name === 'metadata'));
      assert.equal(listed.length, 1, JSON.stringify(listed));
      assert.ok(listed[0].at > firstChart, `listed at ${listed[0].at} ms, first chart at ${firstChart} ms`);
      assert.equal(await picker.inputValue(), `${NAME}/metadata/${versions[START - 1]}`);
      await page.locator('[data-testid="live-every"]').selectOption('2');
      await page.locator('[data-testid="live-switch"]').click();
      await page.locator('[data-testid="live-badge"]').waitFor({ timeout: TIMEOUT_MS });
      // A person's place survives each look: the walk open on an older snapshot's manifest list,
      // scrolled to, stays where it is and on that snapshot.
      await page.locator('[data-testid="walk"] summary').click();
      await page.locator('[data-testid="walk-snapshot"]').selectOption({ index: 2 });
      await page.locator('[data-testid="walk-next"]').click();
      await page.locator('[data-testid="walk-manifest"]').first().waitFor({ timeout: TIMEOUT_MS });
      const place = () => page.evaluate(() => {
        const w = document.querySelector('[data-testid="walk"]');
        const s = w.querySelector('[data-testid="walk-snapshot"]');
        return { open: w.open, top: w.getBoundingClientRect().top, scrolled: window.scrollY, snapshot: s.selectedOptions[0]?.textContent, level: w.querySelector('[data-testid="walk-level"]').dataset.level };
      });
      await page.evaluate(() => document.querySelector('[data-testid="walk"]').scrollIntoView());
      const before = await place();
      assert.equal(before.open, true);
      for (const [i, upTo] of STEPS.entries()) {
        for (const f of versions.slice(0, upTo)) {
          if (version(f) > START) await writeToOpfs(page, `${NAME}/metadata/${f}`, path.join(DIR, 'metadata', f));
        }
        // The hint is best-effort in Iceberg: at the second step it stays behind, and the versions
        // after it are found by name.
        if (i !== 1) await writeHint(page, upTo);
        const want = snapshots(versions[upTo - 1]);
        await page.waitForFunction((n) => document.querySelector('[data-testid="snapshot-count"]')?.textContent === String(n), want, { timeout: TIMEOUT_MS });
        await page.waitForFunction((n) => document.querySelector('canvas[data-testid="growth-chart"]')?.dataset.points === String(n), want, { timeout: TIMEOUT_MS });
        assert.deepEqual(await shown(page), { points: want, count: want }, `after ${versions[upTo - 1]}`);
      }
      // Where it was on the screen to the pixel: the page scrolls by whole pixels, its layout does not.
      // The looks add findings and events above it (the resumed job, the replay).
      const after = await place();
      assert.ok(Math.abs(after.top - before.top) <= 1, `the walk's top moved from ${before.top} to ${after.top} px`);
      assert.ok(after.scrolled > before.scrolled + 100, `what the looks added above the walk was scrolled over (${before.scrolled} → ${after.scrolled} px)`);
      assert.deepEqual({ ...after, top: null, scrolled: null }, { ...before, top: null, scrolled: null }, 'the walk stays open, on its snapshot');
      // No look listed metadata/ again; the picker gained each version a look opened.
      assert.equal(await page.evaluate(() => window.__listed.filter((l) => l.name === 'metadata').length), 1);
      assert.equal(await picker.inputValue(), `${NAME}/metadata/${versions.at(-1)}`);
      assert.equal(await picker.locator('option').count(), versions.length);
      assert.match(await page.locator('[data-testid="metadata-why"]').textContent(), /version-hint\.text/);
      const commits = await page.locator('[data-testid="live-events"] li[data-kind="commit"]').count();
      assert.equal(commits, snapshots(versions.at(-1)) - snapshots(versions[START - 1]));
      assert.deepEqual(errors.all ?? [], []);
    });
  } finally {
    fs.rmSync(start, { recursive: true, force: true });
    await page.context().close();
  }
});

test(`${NAME}: a hint that leads to an older file than the newest by content: the newest is opened once metadata/ is listed`, { timeout: 120000 }, async () => {
  const { page, errors } = await newPage(browser);
  // v1..v5 and v7: the hint (3) and the names after it reach v5; v7, past the gap, is the newest.
  const dir = tableOf((v) => v <= 5 || v === 7);
  fs.writeFileSync(path.join(dir, 'metadata', 'version-hint.text'), '3');
  try {
    await screenshotOnFailure(page, 'live-hint-gap', async () => {
      await chooseCopy(page, dir);
      const want = snapshots(versions[6]);
      await page.waitForFunction((n) => document.querySelector('[data-testid="snapshot-count"]')?.textContent === String(n), want, { timeout: TIMEOUT_MS });
      await waitReady(page, errors);
      assert.equal(await page.locator('[data-testid="metadata-picker"]').inputValue(), `${NAME}/metadata/${versions[6]}`);
      assert.match(await page.locator('[data-testid="metadata-why"]').textContent(), /newest of 6 metadata files by content/);
      assert.deepEqual(await shown(page), { points: want, count: want });
      assert.deepEqual(errors.all ?? [], []);
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await page.context().close();
  }
});

test(`${NAME}: a hint whose file does not read: the folder is listed and the newest file that reads is opened`, { timeout: 120000 }, async () => {
  const { page, errors } = await newPage(browser);
  // v1..v5 with v5 cut short, and the hint naming it.
  const dir = tableUpTo(5);
  const bad = path.join(dir, 'metadata', versions[4]);
  fs.writeFileSync(bad, fs.readFileSync(bad).subarray(0, 200));
  fs.writeFileSync(path.join(dir, 'metadata', 'version-hint.text'), '5');
  try {
    await screenshotOnFailure(page, 'live-hint-bad', async () => {
      await chooseCopy(page, dir);
      const want = snapshots(versions[3]);
      await page.waitForFunction((n) => document.querySelector('[data-testid="snapshot-count"]')?.textContent === String(n), want, { timeout: TIMEOUT_MS });
      await waitReady(page, errors);
      assert.equal(await page.locator('[data-testid="metadata-picker"]').inputValue(), `${NAME}/metadata/${versions[3]}`);
      assert.match(await page.locator('[data-testid="metadata-why"]').textContent(), new RegExp(`newest metadata file that reads`));
      // Not small print: the first alert above the charts, and a critical finding card naming the
      // file, how it is damaged and how many snapshots the view lacks (from the files as written).
      const missing = seq(versions[4]) - seq(versions[3]);
      const title = `The newest metadata file ${versions[4]} does not read: the table is shown as ${versions[3]} left it, ${missing} snapshot${missing === 1 ? '' : 's'} short`;
      assert.equal(await page.locator('[data-testid="alerts"] li').first().textContent(), `critical${title}`);
      const card = page.locator('[data-testid="finding"][data-kind="newest_metadata_unreadable"]');
      assert.equal(await card.count(), 1);
      assert.equal(await card.getAttribute('data-severity'), 'critical');
      const said = await card.textContent();
      assert.ok(said.includes(`${NAME}/metadata/${versions[4]}: truncated at byte 200 (the file is 200 bytes). It is the newest metadata file by content`), said);
      assert.ok(said.includes(`icescope opened ${versions[3]} instead, the newest that reads: ${missing} snapshot`), said);
      assert.ok(!said.includes('field `?`'), said);
      assert.ok((await page.locator('[data-testid="markdown"]').inputValue()).includes(`#### [CRITICAL] ${title}`));
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await page.context().close();
  }
});

test('a folder read as files (the folder input) is a copy of one moment: the Live switch says so and stays off', async () => {
  const { page, errors } = await newPage(browser);
  try {
    await openGallery(page, target.url);
    await page.locator(sel.folderInput).setInputFiles(DIR);
    await waitReady(page, errors);
    const sw = page.locator('[data-testid="live-switch"]');
    assert.equal(await sw.isDisabled(), true);
    assert.match(await page.locator('[data-testid="live-why-not"]').textContent(), /copy of one moment/);
  } finally {
    await page.context().close();
  }
});

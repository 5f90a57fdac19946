// Compare two snapshots in the app: the loader reads both and the numbers are the engines' (facts.json).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, waitReady, sel, REPO, SCREENSHOT_DIR, TIMEOUT_MS } from './lib/harness.mjs';

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

const facts = (name) => JSON.parse(fs.readFileSync(path.join(REPO, 'tests', 'fixtures', name, 'facts.json'), 'utf8'));
// Snapshot ids above 2^53 must stay text.
const ids = (name) => fs.readFileSync(path.join(REPO, 'tests', 'fixtures', name, 'facts.json'), 'utf8');

async function compare(page, from, to) {
  await page.locator('[data-testid="diff-from"]').fill(from);
  await page.locator('[data-testid="diff-to"]').fill(to);
  await page.locator('[data-testid="diff-run"]').click();
  await page.locator('[data-testid="diff"], [data-testid="diff-error"]').first().waitFor({ timeout: TIMEOUT_MS });
  const d = page.locator('[data-testid="diff"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="diff"]')?.dataset.exact === 'true', null, { timeout: TIMEOUT_MS });
  return Object.fromEntries(await Promise.all(['recordsAdded', 'recordsRemoved', 'dataFilesAdded', 'dataFilesRemoved', 'deleteFilesAdded', 'deleteFilesRemoved', 'between'].map(async (k) => [k, Number(await d.getAttribute(`data-${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`))])));
}

async function open(page, errors, name) {
  await openGallery(page, target.url);
  await page.locator(`${sel.card}[data-example="${name}"]`).click();
  await waitReady(page, errors);
}

test('savepoint-twice: from the second job\'s last commit to current, the third job\'s rows', { timeout: 120000 }, async () => {
  const f = facts('savepoint-twice');
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'diff-savepoint', async () => {
      await open(page, errors, 'savepoint-twice');
      const d = await compare(page, `job:${f.jobs[1].job_id.slice(0, 8)}`, 'current');
      assert.equal(d.recordsAdded, f.after_second_resume.rows - f.after_first_resume.rows);
      assert.equal(d.recordsRemoved, 0);
      assert.equal(d.dataFilesRemoved, 0);
      const md = await page.locator('[data-testid="diff-markdown"]').inputValue();
      assert.ok(md.includes(`\`${f.jobs[2].job_id}\``), 'the Markdown names the third job');
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.locator('[data-testid="compare"]').screenshot({ path: path.join(SCREENSHOT_DIR, 'diff-savepoint-twice.png') });
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});

test('savepoint-twice: job:<id> alone is what the job added; the current job against current is explained, and the link carries the range', { timeout: 180000 }, async () => {
  const f = facts('savepoint-twice');
  const text = ids('savepoint-twice');
  const third = f.jobs[2].job_id;
  const own = f.commits.filter((c) => c.flink_job_id === third);
  const added = own.reduce((a, c) => a + c.added_records, 0);
  assert.equal(added, 72726);
  const snapshotOf = (k) => text.match(new RegExp(`"${k}":\\s*\\{[^}]*"snapshot_id":\\s*(\\d+)`))[1];
  const first = await newPage(browser);
  let link;
  try {
    await screenshotOnFailure(first.page, 'diff-job-range', async () => {
      const { page, errors } = first;
      await open(page, errors, 'savepoint-twice');
      // The "to" side left empty: from the table just before the job's first commit to its last.
      const d = await compare(page, `job:${third.slice(0, 8)}`, '');
      assert.equal(d.recordsAdded, added, "the third job's added-records in facts.json");
      assert.equal(d.recordsRemoved, 0);
      assert.equal(d.between, own.length);
      const shown = page.locator('[data-testid="diff"]');
      assert.equal(await shown.getAttribute('data-from'), snapshotOf('after_first_resume'));
      assert.equal(await shown.getAttribute('data-to'), snapshotOf('after_second_resume'));
      link = page.url();
      assert.deepEqual(Object.fromEntries(new URLSearchParams(new URL(link).hash.slice(1))), { example: 'savepoint-twice', from: `job:${third.slice(0, 8)}` });
      // The third job is the current one: its last commit is current, and that is said.
      await page.locator('[data-testid="diff-to"]').fill('current');
      await page.locator('[data-testid="diff-run"]').click();
      await page.locator('[data-testid="diff-error"]').waitFor({ timeout: TIMEOUT_MS });
      const said = await page.locator('[data-testid="diff-error"]').textContent();
      assert.ok(said.startsWith(`both sides are snapshot ${snapshotOf('after_second_resume')}: nothing to compare. What job ${third.slice(0, 8)} added: first:`), said);
      assert.equal(await page.locator('[data-testid="diff"]').count(), 0, 'no empty comparison shown');
      // The first job created the table: its range starts from the empty table.
      const j1 = await compare(page, `first:${f.jobs[0].job_id.slice(0, 8)}`, `last:${f.jobs[0].job_id.slice(0, 8)}`);
      assert.equal(j1.recordsAdded, f.after_stop.rows);
      assert.equal(await page.locator('[data-testid="diff"]').getAttribute('data-from'), 'the empty table');
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await first.context.close();
  }
  const second = await newPage(browser);
  try {
    await screenshotOnFailure(second.page, 'diff-job-range-link', async () => {
      await second.page.goto(link, { waitUntil: 'load' });
      await waitReady(second.page, second.errors);
      await second.page.waitForFunction(() => document.querySelector('[data-testid="diff"]')?.dataset.exact === 'true', null, { timeout: TIMEOUT_MS });
      assert.equal(await second.page.locator('[data-testid="diff"]').getAttribute('data-records-added'), String(added));
      assert.equal(await second.page.locator('[data-testid="diff-to"]').inputValue(), '');
      assert.deepEqual(second.errors.all, [], 'page or console errors');
    });
  } finally {
    await second.context.close();
  }
});

test('upsert-stream: rewrite_position_delete_files replaced every delete file, as Spark reported', { timeout: 120000 }, async () => {
  const f = facts('upsert-stream');
  const text = ids('upsert-stream');
  const id = (k) => text.match(new RegExp(`"${k}": (\\d+)`))[1];
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'diff-upsert', async () => {
      await open(page, errors, 'upsert-stream');
      const d = await compare(page, id('snapshot_before'), id('snapshot_after'));
      const r = f.maintenance[0].result[0];
      assert.equal(d.deleteFilesRemoved, r.rewritten_delete_files_count);
      assert.equal(d.deleteFilesAdded, r.added_delete_files_count);
      assert.equal(d.dataFilesAdded + d.dataFilesRemoved, 0);
      assert.equal(d.between, 1);
      // A name that matches nothing is said, not guessed.
      await page.locator('[data-testid="diff-from"]').fill('checkpoint:999999');
      await page.locator('[data-testid="diff-run"]').click();
      await page.locator('[data-testid="diff-error"]').waitFor({ timeout: TIMEOUT_MS });
      assert.match(await page.locator('[data-testid="diff-error"]').textContent(), /no snapshot matches `checkpoint:999999`/);
    });
  } finally {
    await context.close();
  }
});

test('permalink: example, tab and compared snapshots round-trip into a fresh profile', { timeout: 120000 }, async () => {
  const f = facts('savepoint-twice');
  const first = await newPage(browser);
  let link;
  let expected;
  try {
    await open(first.page, first.errors, 'savepoint-twice');
    await first.page.locator('[data-testid="tab-jobs"]').click();
    expected = await compare(first.page, `job:${f.jobs[1].job_id.slice(0, 8)}`, 'current');
    link = first.page.url();
    const hash = new URLSearchParams(new URL(link).hash.slice(1));
    assert.deepEqual(Object.fromEntries(hash), { example: 'savepoint-twice', tab: 'jobs', from: `job:${f.jobs[1].job_id.slice(0, 8)}`, to: 'current' });
  } finally {
    await first.context.close();
  }
  const second = await newPage(browser);
  try {
    await screenshotOnFailure(second.page, 'permalink-example', async () => {
      await second.page.goto(link, { waitUntil: 'load' });
      await waitReady(second.page, second.errors);
      assert.equal(await second.page.locator('[data-testid="tab-jobs"]').getAttribute('aria-selected'), 'true');
      await second.page.locator('[data-testid="jobs-chart"]').waitFor();
      await second.page.waitForFunction(() => document.querySelector('[data-testid="diff"]')?.dataset.exact === 'true', null, { timeout: TIMEOUT_MS });
      assert.equal(await second.page.locator('[data-testid="diff"]').getAttribute('data-records-added'), String(expected.recordsAdded));
      assert.equal(await second.page.locator('[data-testid="diff-from"]').inputValue(), `job:${f.jobs[1].job_id.slice(0, 8)}`);
      // Back to the gallery: the link forgets the table, and the example is not reopened.
      await second.page.locator(sel.back).click();
      await second.page.locator(sel.gallery).waitFor({ state: 'visible' });
      assert.equal(new URL(second.page.url()).hash, '');
      assert.deepEqual(second.errors.all, [], 'page or console errors');
    });
  } finally {
    await second.context.close();
  }
});

test('savepoint-twice: checkpoint:7 names two jobs\' commits, so the app lists both; qualified, the comparison says it runs backwards', { timeout: 120000 }, async () => {
  const f = facts('savepoint-twice');
  // Jobs 2 and 3 both resumed from the savepoint at checkpoint 4 and both committed checkpoint 7.
  const [second, third] = [f.jobs[1].job_id, f.jobs[2].job_id];
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'diff-ambiguous', async () => {
      await open(page, errors, 'savepoint-twice');
      await page.locator('[data-testid="diff-from"]').fill('checkpoint:7');
      await page.locator('[data-testid="diff-run"]').click();
      await page.locator('[data-testid="diff-error"]').waitFor({ timeout: TIMEOUT_MS });
      const msg = await page.locator('[data-testid="diff-error"]').textContent();
      assert.match(msg, /2 jobs committed checkpoint 7/);
      assert.ok(msg.includes(`checkpoint:7@${second}`) && msg.includes(`checkpoint:7@${third}`), msg);
      // The third job's checkpoint 7 came after the second job's: from the third to the second runs backwards.
      const d = await compare(page, `checkpoint:7@${third.slice(0, 8)}`, `checkpoint:7@${second.slice(0, 8)}`);
      assert.ok(d.between > 0);
      await page.locator('[data-testid="diff-backwards"]').waitFor({ timeout: TIMEOUT_MS });
      assert.match(await page.locator('[data-testid="diff-backwards"]').textContent(), /^Backwards: the second snapshot was committed before the first/);
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.locator('[data-testid="compare"]').screenshot({ path: path.join(SCREENSHOT_DIR, 'diff-backwards.png') });
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});

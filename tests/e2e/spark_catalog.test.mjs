// The Spark catalog name typed for the printed statements is the reader's: it stays when another
// metadata version is picked, travels in the link (`spark_catalog`), and comes back on reload. A
// link's name that could end or extend a statement is not used, and the page says so.
// On the lab's savepoint-twice (facts.json: the rollback target is after_first_resume's snapshot).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, waitReady, sel, REPO, TIMEOUT_MS } from './lib/harness.mjs';

const DIR = path.join(REPO, 'tests', 'fixtures', 'savepoint-twice');
const facts = JSON.parse(fs.readFileSync(path.join(DIR, 'facts.json'), 'utf8'));
// Snapshot ids past 2^53: read as text.
const raw = fs.readFileSync(path.join(DIR, 'facts.json'), 'utf8');
const rollbackTo = raw.match(/"after_first_resume":\s*\{[^}]*"snapshot_id":\s*(\d+)/)[1];
const rollback = (catalog) => `CALL ${catalog}.system.rollback_to_snapshot(table => '${facts.table}', snapshot_id => ${rollbackTo});`;
// v16: the table after the third job's fifth commit, replay and all (15 snapshots).
const OLDER = 'v16.metadata.json';
const olderSnapshots = JSON.parse(fs.readFileSync(path.join(DIR, 'metadata', OLDER), 'utf8')).snapshots.length;

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

const statements = (page) => page.locator('[data-testid="statement"]').allTextContents();
const hash = (page) => Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1)));

/** Every statement names `catalog` (and there are some). */
async function allIn(page, catalog) {
  await page.waitForFunction(
    (c) => {
      const all = [...document.querySelectorAll('[data-testid="statement"]')].map((e) => e.textContent);
      return all.length > 0 && all.every((s) => s.startsWith(`CALL ${c}.system.`) || s.startsWith(`ALTER TABLE ${c}.`));
    },
    catalog,
    { timeout: TIMEOUT_MS },
  );
  return statements(page);
}

test('the catalog name typed stays through another version, travels in the link and comes back on reload', { timeout: 240000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  let link;
  try {
    await screenshotOnFailure(page, 'spark-catalog-version', async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(DIR);
      await waitReady(page, errors);
      assert.ok((await allIn(page, '<catalog>')).includes(rollback('<catalog>')), 'the placeholder until a name is typed');
      await page.locator('[data-testid="catalog-name"]').fill('lab');
      assert.ok((await allIn(page, 'lab')).includes(rollback('lab')));
      assert.equal(hash(page).spark_catalog, 'lab');
      // Time travel: the table view is built again for the older version; the name stays.
      await page.locator('[data-testid="metadata-picker"]').selectOption(`savepoint-twice/metadata/${OLDER}`);
      await page.waitForFunction((n) => document.querySelector('[data-testid="snapshot-count"]')?.textContent === n, String(olderSnapshots), { timeout: 60000 });
      await waitReady(page, errors);
      assert.equal(await page.locator('[data-testid="catalog-name"]').inputValue(), 'lab');
      assert.ok((await allIn(page, 'lab')).includes(rollback('lab')), 'the older version has the replay too');
      assert.ok((await page.locator('[data-testid="markdown"]').inputValue()).includes(rollback('lab')));
      assert.equal(hash(page).spark_catalog, 'lab');
      // Reload: a picked folder is not linked, the name is; the example opened next uses it.
      await page.reload({ waitUntil: 'load' });
      await page.locator(sel.gallery).waitFor({ state: 'visible' });
      assert.deepEqual(hash(page), { spark_catalog: 'lab' });
      await page.locator(`${sel.card}[data-example="savepoint-twice"]`).click();
      await waitReady(page, errors);
      assert.equal(await page.locator('[data-testid="catalog-name"]').inputValue(), 'lab');
      assert.ok((await allIn(page, 'lab')).includes(rollback('lab')));
      assert.deepEqual(hash(page), { example: 'savepoint-twice', spark_catalog: 'lab' });
      // A name that needs quoting travels quoted.
      await page.locator('[data-testid="catalog-name"]').fill('my cat');
      await allIn(page, '`my cat`');
      assert.equal(hash(page).spark_catalog, '`my cat`');
      link = page.url();
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
  // The link in a fresh profile: the example opens with the name.
  const second = await newPage(browser);
  try {
    await screenshotOnFailure(second.page, 'spark-catalog-link', async () => {
      await second.page.goto(link, { waitUntil: 'load' });
      await waitReady(second.page, second.errors);
      assert.equal(await second.page.locator('[data-testid="catalog-name"]').inputValue(), '`my cat`');
      assert.ok((await allIn(second.page, '`my cat`')).includes(rollback('`my cat`')));
      assert.equal(await second.page.locator('[data-testid="catalog-ignored"]').count(), 0);
      // Back to the gallery: the table is forgotten, the reader's catalog name is not.
      await second.page.locator(sel.back).click();
      await second.page.locator(sel.gallery).waitFor({ state: 'visible' });
      assert.deepEqual(hash(second.page), { spark_catalog: '`my cat`' });
      assert.deepEqual(second.errors.all, [], 'page or console errors');
    });
  } finally {
    await second.context.close();
  }
});

test('a link whose catalog name could end or extend a statement is not used, and the page says so', { timeout: 180000 }, async () => {
  for (const hostile of ["lab.system.x(); DROP TABLE t; --", '`a`; DROP TABLE t; --`', 'lab\nCALL x', "lab'"]) {
    const { context, page, errors } = await newPage(browser);
    try {
      await screenshotOnFailure(page, 'spark-catalog-hostile', async () => {
        const q = new URLSearchParams({ example: 'savepoint-twice', spark_catalog: hostile });
        await page.goto(`${target.url}#${q}`, { waitUntil: 'load' });
        await waitReady(page, errors);
        assert.equal(await page.locator('[data-testid="catalog-name"]').inputValue(), '<catalog>', hostile);
        assert.match(await page.locator('[data-testid="catalog-ignored"]').textContent(), /^The link's Spark catalog name was not used/);
        const all = await allIn(page, '<catalog>');
        assert.ok(all.includes(rollback('<catalog>')), hostile);
        assert.ok(all.every((s) => !s.includes('DROP') && !s.includes('\n') && s.indexOf(';') === s.length - 1), JSON.stringify(all));
        // Not carried on: a link copied from here no longer holds it.
        assert.equal(hash(page).spark_catalog, undefined);
        // Typing a name clears the note.
        await page.locator('[data-testid="catalog-name"]').fill('lab');
        await page.locator('[data-testid="catalog-ignored"]').waitFor({ state: 'detached' });
        assert.deepEqual(errors.all, [], 'page or console errors');
      });
    } finally {
      await context.close();
    }
  }
});

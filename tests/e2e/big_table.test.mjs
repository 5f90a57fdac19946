// A day-scale table in the browser: 3,000 fast-append commits written by the Iceberg Java API in a
// Flink sink's shape (tests/bench/gen, made by tests/setup.sh). The growth chart is drawn from
// metadata.json before the manifests are read, the tab and catalog name a person chose survive the
// loading, and the numbers are the writer's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, inPage, sel, SCREENSHOT_DIR } from './lib/harness.mjs';

const TABLE = process.env.ICESCOPE_BIG_TABLE || '';
let facts;
let target;
let browser;

before(async () => {
  assert.ok(TABLE && fs.existsSync(path.join(TABLE, 'facts.json')),
    `ICESCOPE_BIG_TABLE must name the 3,000-commit workload (tests/setup.sh makes it); got ${JSON.stringify(TABLE)}`);
  const raw = fs.readFileSync(path.join(TABLE, 'facts.json'), 'utf8');
  facts = JSON.parse(raw);
  // Ids above 2^53 do not survive JSON.parse: keep the writer's digits.
  facts.current_snapshot_id = raw.match(/"current_snapshot_id"\s*:\s*(\d+)/)[1];
  target = await appTarget();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await target?.close();
});

test('3,000 commits: the chart comes from metadata.json before the manifests are read; the chosen tab and catalog name survive loading', { timeout: 300000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  context.setDefaultTimeout(240000);
  try {
    await screenshotOnFailure(page, 'big-table', async () => {
      await openGallery(page, target.url);
      // Watch, from inside the page, what the progress said when the growth chart first had points.
      await inPage(page, () => {
        window.__firstChart = null;
        new MutationObserver(() => {
          const c = document.querySelector('canvas[data-testid="growth-chart"]');
          const p = document.querySelector('[data-testid="progress"]');
          if (!window.__firstChart && c && Number(c.getAttribute('data-points')) > 0) {
            window.__firstChart = {
              points: Number(c.getAttribute('data-points')),
              done: p ? Number(p.getAttribute('data-files-done')) : null,
              queued: p ? Number(p.getAttribute('data-files-queued')) : null,
              loading: document.querySelector('[data-testid="table-view"]')?.getAttribute('data-state'),
            };
          }
          // From then on, while the rest loads (however fast this machine reads it): choose a tab
          // and type a catalog name as soon as each is there, as a person would, and note the
          // state each was made in.
          const state = () => document.querySelector('[data-testid="table-view"]')?.getAttribute('data-state');
          const tab = document.querySelector('[data-testid="tab-jobs"]');
          if (window.__firstChart && !window.__chosenWhile && tab) {
            window.__chosenWhile = state();
            tab.click();
          }
          const name = document.querySelector('[data-testid="catalog-name"]');
          if (window.__firstChart && !window.__typedWhile && name) {
            window.__typedWhile = state();
            name.value = 'prod';
            name.dispatchEvent(new Event('input', { bubbles: true }));
          }
        }).observe(document.body, { subtree: true, childList: true, attributes: true });
      });
      await page.locator(sel.folderInput).setInputFiles(TABLE);
      await page.waitForFunction(() => window.__firstChart, null, { timeout: 120000 });
      await page.waitForFunction(() => window.__chosenWhile && window.__typedWhile, null, { timeout: 120000 });
      assert.equal(await inPage(page, () => window.__chosenWhile), 'loading', 'the tab was chosen while the table loaded');
      assert.equal(await inPage(page, () => window.__typedWhile), 'loading', 'the catalog name was typed while the table loaded');
      await page.locator('[data-testid="table-view"][data-state="ready"]').waitFor({ state: 'attached' });
      const first = await inPage(page, () => window.__firstChart);
      assert.ok(first, 'the growth chart never had points');
      assert.equal(first.points, facts.commits, 'the first chart already has every snapshot');
      assert.equal(first.loading, 'loading', 'the first chart was drawn while the table was still loading');
      assert.ok(first.done !== null && first.done < first.queued,
        `the chart was drawn before the files were read (${first.done} of ${first.queued} read then)`);

      const view = await inPage(page, () => ({
        activeTab: document.querySelector('.tabs .tab.active')?.getAttribute('data-testid'),
        jobsChart: !!document.querySelector('canvas[data-testid="jobs-chart"]'),
        catalog: document.querySelector('[data-testid="catalog-name"]')?.value,
        statements: [...document.querySelectorAll('[data-testid="statement"]')].map((e) => e.textContent),
        count: document.querySelector('[data-testid="snapshot-count"]')?.textContent,
        sources: document.querySelector('[data-testid="count-sources"]')?.textContent,
        current: (() => {
          const r = document.querySelector('tr[data-testid="snapshot-row"]');
          return r && { id: r.getAttribute('data-snapshot-id'), dataFiles: r.getAttribute('data-data-files'), records: r.getAttribute('data-records'),
            manifests: r.getAttribute('data-manifests'), from: r.getAttribute('data-counts-from') };
        })(),
        rows: document.querySelectorAll('tr[data-testid="snapshot-row"]').length,
        marks: ['icescope:files-chosen', 'icescope:metadata-read', 'icescope:first-chart', 'icescope:all-charts']
          .map((n) => performance.getEntriesByName(n)[0]?.startTime ?? null),
      }));
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'big-table-3000.png'), fullPage: false });
      assert.equal(view.activeTab, 'tab-jobs', 'the tab chosen while loading is still the one shown');
      assert.ok(view.jobsChart, 'the jobs chart is drawn');
      assert.equal(view.catalog, 'prod', 'the catalog name typed while loading is kept');
      assert.ok(view.statements.length > 0 && view.statements.every((s) => s.startsWith('CALL prod.') || s.startsWith('ALTER TABLE prod.')), `statements: ${view.statements}`);
      assert.equal(view.count, String(facts.commits));
      // The newest row is the current snapshot, counted from its manifests: the writer's numbers.
      assert.equal(view.current.id, String(facts.current_snapshot_id));
      assert.equal(view.current.from, 'manifests');
      assert.equal(view.current.dataFiles, String(facts.data_files));
      assert.equal(view.current.records, String(facts.records));
      assert.equal(view.current.manifests, String(facts.current_snapshot.manifests));
      assert.equal(view.rows, 200, 'a page of rows, not 3,000');
      assert.match(view.sources, /counted from manifests/);
      assert.match(view.sources, /as the snapshot summaries state/);
      const [chosen, meta, firstChart, all] = view.marks;
      assert.ok(chosen !== null && meta !== null && firstChart !== null && all !== null, `performance marks: ${view.marks}`);
      assert.ok(chosen <= meta && meta <= firstChart && firstChart <= all, `marks in order: ${view.marks}`);
      assert.deepEqual(errors.pageErrors, [], 'page errors');
      assert.deepEqual(errors.panics(), [], 'wasm panic');
    });
  } finally {
    await context.close();
  }
});

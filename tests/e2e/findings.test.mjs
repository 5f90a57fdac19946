// Findings and charts on the lab's real-engine fixtures, in the browser: the numbers come from each
// fixture's facts.json (Flink's REST API and Spark queries, gathered by tests/lab), never typed here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, waitReady, sel, REPO, SCREENSHOT_DIR, screenshotOnFailure } from './lib/harness.mjs';

const FIXTURES = path.join(REPO, 'tests', 'fixtures');
const facts = (name) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name, 'facts.json'), 'utf8'), (k, v) => v);
// Snapshot ids exceed 2^53: read them from the raw text.
const rawFacts = (name) => fs.readFileSync(path.join(FIXTURES, name, 'facts.json'), 'utf8');

let target;
let browser;

before(async () => {
  target = await appTarget();
  browser = await launchBrowser();
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
});

after(async () => {
  await browser?.close();
  await target?.close();
});

async function open(page, errors, name) {
  await openGallery(page, target.url);
  await page.locator(`${sel.card}[data-example="${name}"]`).click();
  await waitReady(page, errors);
}

async function findings(page) {
  return page.locator('[data-testid="finding"]').evaluateAll((els) =>
    els.map((e) => ({ kind: e.dataset.kind, severity: e.dataset.severity, text: e.textContent, statement: e.querySelector('[data-testid="statement"]')?.textContent ?? null })),
  );
}

test('savepoint-twice: one critical replay finding with the rollback target from facts, copied into the Markdown', { timeout: 120000 }, async () => {
  const name = 'savepoint-twice';
  const f = facts(name);
  const target_id = rawFacts(name).match(/"after_first_resume":\s*\{[^}]*"snapshot_id":\s*(\d+)/)[1];
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, `findings-${name}`, async () => {
      await open(page, errors, name);
      const all = await findings(page);
      const replays = all.filter((x) => x.kind === 'savepoint_replayed');
      assert.equal(replays.length, 1, JSON.stringify(all.map((x) => x.kind)));
      assert.equal(replays[0].severity, 'critical');
      assert.ok(replays[0].text.includes(f.jobs[2].job_id.slice(0, 8)), 'names the third job');
      assert.equal(replays[0].statement, `CALL <catalog>.system.rollback_to_snapshot(table => '${f.table}', snapshot_id => ${target_id});`);
      assert.equal(all.filter((x) => x.kind === 'job_resumed').length, 1, 'the first resume is reported as normal');
      // The alert strip above the charts names it too.
      assert.match(await page.locator('[data-testid="alerts"]').textContent(), /Savepoint replayed/);
      // The catalog name the user types goes into every statement and the Markdown.
      await page.locator('[data-testid="catalog-name"]').fill('lab');
      await page.waitForFunction(() => document.querySelector('[data-testid="statement"]').textContent.startsWith('CALL lab.'));
      const md = await page.locator('[data-testid="markdown"]').inputValue();
      assert.ok(md.includes(`CALL lab.system.rollback_to_snapshot(table => '${f.table}', snapshot_id => ${target_id});`), md.slice(0, 400));
      for (const j of f.jobs) assert.ok(md.includes(j.job_id), `Markdown lists job ${j.job_id}`);
      await page.locator('[data-testid="findings"]').screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-findings.png`) });
      assert.deepEqual(errors.all, []);
    });
  } finally {
    await context.close();
  }
});

// The partitions chart's cap on bars, as its source says.
const MAX_BARS = Number(/pub const MAX_BARS: usize = (\d+);/.exec(fs.readFileSync(path.join(REPO, 'app', 'src', 'report', 'draw', 'partitions.rs'), 'utf8'))[1]);

test('every fixture: each chart tab draws, and the job timeline has one bar per flink.job-id Flink reported', { timeout: 300000 }, async () => {
  const names = fs.readdirSync(FIXTURES).filter((n) => fs.existsSync(path.join(FIXTURES, n, 'facts.json')));
  assert.ok(names.length >= 5, `fixtures: ${names}`);
  for (const name of names) {
    const f = facts(name);
    const { context, page, errors } = await newPage(browser);
    try {
      await screenshotOnFailure(page, `charts-${name}`, async () => {
        await open(page, errors, name);
        const jobIds = new Set(Object.keys(f.final_table?.flink_jobs_in_snapshot_log ?? {}));
        for (const [tab, chart] of [['jobs', 'jobs-chart'], ['partitions', 'partitions-chart'], ['deletes', 'deletes-chart'], ['projection', 'projection-chart'], ['growth', 'growth-chart']]) {
          await page.locator(`[data-testid="tab-${tab}"]`).click();
          const canvas = page.locator(`canvas[data-testid="${chart}"]`);
          await canvas.waitFor();
          await page.waitForFunction((c) => Number(document.querySelector(`canvas[data-testid="${c}"]`)?.dataset.points) >= 0, chart);
          const points = Number(await canvas.getAttribute('data-points'));
          if (tab === 'jobs') assert.equal(points, jobIds.size, `${name}: bars vs Flink job ids in Spark's snapshots table`);
          // One point per snapshot Spark's `snapshots` table lists; one bar per partition holding
          // data files in Spark's `files` table, up to the chart's cap (read from its source).
          if (tab === 'growth' || tab === 'deletes') assert.equal(points, f.final_table.snapshots.length, `${name}: ${tab} points vs Spark's snapshots`);
          if (tab === 'partitions') {
            const parts = new Set(f.final_table.files_by_partition.filter((x) => x.content === 'data').map((x) => JSON.stringify(x.partition)));
            assert.equal(points, Math.min(parts.size, MAX_BARS), `${name}: partition bars vs Spark's files by partition`);
          }
          // An unbroken stream with its metadata log: snapshots, manifests, data and delete files, metadata.json.
          if (tab === 'projection' && name === 'append-stream') assert.equal(points, 5, `${name}: projection rows`);
          await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${tab}.png`) });
        }
        assert.deepEqual(errors.all, [], `${name}: page errors`);
      });
    } finally {
      await context.close();
    }
  }
});

// Before you resume, in the browser: the lab's savepoint-resume table (job A savepointed S1, B
// resumed from it and took checkpoint 10 and S2, C resumed from S1 again) and the savepoint
// folders Flink wrote (tests/savepoints/savepoint-resume). Every verdict the panel shows equals
// what `icescope savepoint … --format json` prints for the same files and table version, and the
// numbers the lab's engines recorded (facts.json: Spark's duplicates after C, the commits' rows).
import { copyToOpfs, pickerAnswers, chooseFolder } from './lib/opfs.mjs';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseJsonBig } from './lib/iceberg.mjs';
import { appTarget, cliPath, launchBrowser, newPage, openGallery, waitReady, dropFiles, screenshotOnFailure, sel, REPO, OUT_DIR, SCREENSHOT_DIR } from './lib/harness.mjs';

const TABLE = path.join(REPO, 'tests', 'fixtures', 'savepoint-resume');
const SAVEPOINTS = path.join(REPO, 'tests', 'savepoints', 'savepoint-resume');
// Snapshot ids exceed 2^53: read as BigInt where they do.
const facts = parseJsonBig(fs.readFileSync(path.join(TABLE, 'facts.json'), 'utf8'));
const flink = JSON.parse(fs.readFileSync(path.join(SAVEPOINTS, 'flink.json'), 'utf8'));
const [A, B] = [facts.job_labels.A, facts.job_labels.B];
const beforeC = facts.resumes[1].table_before.metadata_file;
const byCheckpoint = (label) => flink.kept.find((k) => k.label === label);

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

/** `icescope savepoint` on the same folders and table version: its rows, newest first. */
function cli(metadata, savepoints = SAVEPOINTS) {
  const args = ['savepoint', savepoints, '--table', TABLE, '--format', 'json'];
  if (metadata) args.push('--metadata', metadata);
  return parseJsonBig(execFileSync(cliPath(), args, { encoding: 'utf8', cwd: REPO })).savepoints;
}

/** What the panel shows, row by row, from its DOM contract. */
const panelRows = (page) =>
  page.locator('[data-testid="savepoint-row"]').evaluateAll((els) =>
    els.map((e) => ({
      kind: e.dataset.kind,
      checkpoint: e.dataset.checkpoint,
      path: e.dataset.path,
      rows: e.dataset.rowsAfter,
      writes: e.dataset.resumeWrites,
      job: e.dataset.jobId,
      resumed: e.dataset.jobsResumed,
      rollback: e.dataset.rollbackTarget,
      statement: e.querySelector('[data-testid="savepoint-statement"]')?.textContent ?? null,
      question: e.querySelector('[data-testid="savepoint-statement-question"]')?.textContent ?? null,
      takenAs: e.querySelector('[data-testid="savepoint-taken-as"]')?.textContent ?? '',
    })),
  );

/** The panel's rows against the CLI's: same order (newest first), same verdicts. */
function sameAsCli(rows, expected) {
  assert.equal(rows.length, expected.length, 'one row per savepoint');
  rows.forEach((r, i) => {
    const e = expected[i];
    const label = e.savepoint.path.split('/').at(-2);
    assert.ok(r.path.endsWith(`/${label}/_metadata`), `${r.path} vs ${e.savepoint.path}`);
    assert.equal(r.kind, e.verdict.kind, label);
    assert.equal(r.checkpoint, String(e.savepoint.checkpoint_id), label);
    assert.equal(r.rows, e.verdict.rows_committed_after == null ? '' : String(e.verdict.rows_committed_after), label);
    assert.equal(r.writes, e.verdict.resume_writes?.rows == null ? '' : String(e.verdict.resume_writes.rows), label);
    // A rollback offered on a card says which question it answers.
    assert.equal(r.question !== null, r.statement !== null, label);
    assert.equal(r.job, e.committer.job_id, label);
    assert.equal(r.resumed, e.verdict.jobs_already_resumed.join(','), label);
    assert.equal(r.rollback, e.verdict.rollback_target_snapshot_id == null ? '' : String(e.verdict.rollback_target_snapshot_id), label);
    // What Flink's checkpoint properties say it was, as the CLI says it.
    assert.equal(r.takenAs, e.savepoint.taken_as, label);
    assert.ok(r.takenAs.length > 0, label);
  });
}

const rowOf = (rows, label) => rows.find((r) => r.path.endsWith(`/${label}/_metadata`));

async function pickVersion(page, errors, value, snapshots) {
  await page.locator('[data-testid="metadata-picker"]').selectOption(value);
  await page.waitForFunction((n) => document.querySelector('[data-testid="snapshot-count"]')?.textContent === n, String(snapshots), { timeout: 60000 });
  await waitReady(page, errors);
}

const snapshotsIn = (file) => JSON.parse(fs.readFileSync(path.join(TABLE, 'metadata', file), 'utf8')).snapshots.length;

async function shots(page, name) {
  const panel = page.locator('[data-testid="resume-panel"]');
  for (const [width, scheme] of [[1280, 'light'], [800, 'light'], [1280, 'dark'], [800, 'dark']]) {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await panel.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${width}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('savepoint folders picked in the panel, judged against the table just before C resumed', { timeout: 180000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'resume-picked', async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(TABLE);
      await waitReady(page, errors);
      await pickVersion(page, errors, `savepoint-resume/metadata/${beforeC}`, snapshotsIn(beforeC));
      await page.locator('[data-testid="savepoint-input"]').setInputFiles(SAVEPOINTS);
      await page.locator('[data-testid="resume-panel"][data-savepoints="3"]').waitFor();
      const rows = await panelRows(page);
      sameAsCli(rows, cli(beforeC));
      // S1 replays exactly the rows B wrote after it, which Spark counted twice once C had resumed.
      const s1 = rowOf(rows, 'S1');
      const bRows = facts.commits_before_expire.filter((c) => c.flink_job_id === B).reduce((a, c) => a + Number(c.added_records), 0);
      assert.equal(s1.kind, 'replays');
      assert.equal(Number(s1.rows), facts.after_c.duplicates);
      assert.equal(Number(s1.rows), bRows);
      assert.equal(s1.job, byCheckpoint('S1').job_id);
      assert.equal(s1.job, A);
      assert.equal(s1.resumed, B, 'B resumed from S1 already');
      const aLast = facts.commits_before_expire.filter((c) => c.flink_job_id === A).at(-1).snapshot_id;
      assert.equal(s1.rollback, String(aLast), "the rollback target is A's last commit");
      // S2 is the one to resume from; B's retained checkpoint 10 replays B's own checkpoint 11.
      assert.equal(rowOf(rows, 'S2').kind, 'safe');
      const chk = rowOf(rows, 'chk-10');
      assert.equal(chk.kind, 'replays');
      assert.equal(Number(chk.rows), Number(facts.commits_before_expire.find((c) => c.flink_job_id === B && Number(c.max_committed_checkpoint_id) === 11).added_records));
      assert.equal(chk.job, byCheckpoint('chk-10').job_id);
      // Newest first, by the checkpoint ids Flink's REST API recorded for the three it kept.
      assert.deepEqual(rows.map((r) => Number(r.checkpoint)), flink.kept.map((k) => Number(k.checkpoint_id)).sort((a, b) => b - a), 'newest first');
      // The statement names the catalog typed in the findings panel, rendered again, not patched.
      await page.locator('[data-testid="catalog-name"]').fill('lab');
      const call = `CALL lab.system.rollback_to_snapshot(table => '${facts.table}', snapshot_id => ${aLast});`;
      await page.waitForFunction(
        (c) => [...document.querySelectorAll('[data-testid="savepoint-statement"]')].some((e) => e.textContent === c),
        call,
      );
      // The ticket's Markdown carries the section, with the same statement.
      const md = await page.locator('[data-testid="markdown"]').inputValue();
      assert.ok(md.includes('### Before you resume'), md.slice(-1500));
      // Markdown escapes the underscore of a path from the files.
      assert.ok(md.includes(`| savepoint-resume/S1/\\_metadata | 6 | ${A.slice(0, 8)}… | replays | 2,269 |`), md.slice(-1500));
      assert.ok(md.includes(call), md.slice(-1500));
      assert.ok(md.includes(`Against the table read from \`savepoint-resume/metadata/${beforeC}\``), md.slice(-1500));
      await shots(page, 'resume-before-c');
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});

test('savepoint folders dropped with the table fill the panel without a second pick, and follow the version picked', { timeout: 180000 }, async () => {
  // One folder holding the table and a sibling savepoints/ folder, as a person would pick them.
  const root = path.join(OUT_DIR, 'resume-with-table');
  fs.rmSync(root, { recursive: true, force: true });
  fs.cpSync(TABLE, path.join(root, 'savepoint-resume'), { recursive: true });
  fs.cpSync(SAVEPOINTS, path.join(root, 'savepoints'), { recursive: true });
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'resume-with-table', async () => {
      await openGallery(page, target.url);
      await page.locator(sel.folderInput).setInputFiles(root);
      await waitReady(page, errors);
      await page.locator('[data-testid="resume-panel"][data-savepoints="3"]').waitFor();
      // The newest version: expire_snapshots left no snapshot of S2's job.
      let rows = await panelRows(page);
      sameAsCli(rows, cli(null));
      assert.equal(rowOf(rows, 'S2').kind, 'restore_point_expired');
      await shots(page, 'resume-newest');
      // Time travel to just before C: the same savepoints, judged again.
      await pickVersion(page, errors, `resume-with-table/savepoint-resume/metadata/${beforeC}`, snapshotsIn(beforeC));
      await page.waitForFunction(() => document.querySelector('[data-testid="savepoint-row"]')?.dataset.kind === 'safe');
      rows = await panelRows(page);
      sameAsCli(rows, cli(beforeC));
      assert.equal(Number(rowOf(rows, 'S1').rows), facts.after_c.duplicates);
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

for (const [layout, pick] of [['inside the table folder', 'savepoint-resume'], ['beside it, in the folder above', 'resume-parent']]) {
  test(`Choose folder… as a handle: savepoints ${layout} fill the panel with the CLI's verdicts`, { timeout: 180000 }, async () => {
    const { context, page, errors } = await newPage(browser);
    try {
      await screenshotOnFailure(page, `resume-handle-${pick}`, async () => {
        await openGallery(page, target.url);
        if (pick === 'savepoint-resume') {
          await copyToOpfs(page, TABLE, 'savepoint-resume');
          await copyToOpfs(page, SAVEPOINTS, 'savepoint-resume/savepoints');
        } else {
          await copyToOpfs(page, TABLE, 'resume-parent/savepoint-resume');
          await copyToOpfs(page, SAVEPOINTS, 'resume-parent/savepoints');
        }
        await pickerAnswers(page, pick);
        await chooseFolder(page);
        await waitReady(page, errors);
        await page.locator('[data-testid="resume-panel"][data-savepoints="3"]').waitFor();
        sameAsCli(await panelRows(page), cli(null));
        assert.deepEqual(errors.all, [], 'page or console errors');
      });
    } finally {
      await context.close();
    }
  });
}

test('a _metadata dropped on the panel of the gallery table is judged there, and opens no table', { timeout: 120000 }, async () => {
  const s2 = path.join(SAVEPOINTS, 'S2', '_metadata');
  const { context, page, errors } = await newPage(browser);
  try {
    await screenshotOnFailure(page, 'resume-dropped', async () => {
      await openGallery(page, target.url);
      await page.locator(`${sel.card}[data-example="savepoint-resume"]`).click();
      await waitReady(page, errors);
      const r = await dropFiles(page, [{ name: '_metadata', bytes: fs.readFileSync(s2) }], '[data-testid="resume-panel"]');
      assert.ok(r.overPrevented && r.dropPrevented, 'the panel takes the drop');
      await page.locator('[data-testid="resume-panel"][data-savepoints="1"]').waitFor();
      const rows = await panelRows(page);
      const expected = cli(null, s2);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].path, '_metadata');
      assert.equal(rows[0].kind, expected[0].verdict.kind);
      assert.equal(rows[0].kind, 'restore_point_expired', "expire_snapshots left no snapshot of B's");
      assert.equal(rows[0].checkpoint, String(byCheckpoint('S2').checkpoint_id));
      assert.equal(rows[0].job, byCheckpoint('S2').job_id);
      assert.equal(await page.locator(sel.loadError).count(), 0, 'the page drop zone did not take it as a table');
      assert.deepEqual(errors.all, [], 'page or console errors');
    });
  } finally {
    await context.close();
  }
});

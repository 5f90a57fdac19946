// Strings from a stranger's table stay text in the page: hostile tables from tests/hostile/strings
// (job ids, locations, operations, file and manifest names carrying HTML, scripts, links, control
// characters) are picked as folders; nothing they hold becomes an element, runs, or links anywhere,
// and the value shows as the text it is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, sel, settled, waitReady, REPO } from './lib/harness.mjs';

// Every case of the family, each held to its own expect.json.
const CASES = fs.readdirSync(path.join(REPO, 'tests', 'hostile', 'strings')).filter((d) => fs.existsSync(path.join(REPO, 'tests', 'hostile', 'strings', d, 'expect.json'))).sort();

/** The hostile value a case puts where the page shows it (job id, location, operation), read from
 * the case's own newest metadata file; null where the case's string lives elsewhere. */
function hostileValue(dir, name) {
  const meta = path.join(dir, 'metadata');
  const newest = fs.readdirSync(meta).filter((f) => f.endsWith('.metadata.json')).sort((a, b) => parseInt(a.slice(1)) - parseInt(b.slice(1))).pop();
  const m = JSON.parse(fs.readFileSync(path.join(meta, newest), 'utf8'));
  const current = (m.snapshots || []).find((x) => String(x['snapshot-id']) === String(m['current-snapshot-id'])) || {};
  if (name.startsWith('job-id-')) return current.summary?.['flink.job-id'] ?? null;
  if (name.startsWith('location-')) return m.location;
  if (name.startsWith('operation-')) return current.summary?.operation ?? null;
  return null;
}

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

for (const name of CASES) {
  test(`hostile strings stay text: ${name}`, { timeout: 120000 }, async () => {
    const dir = path.join(REPO, 'tests', 'hostile', 'strings', name);
    const expect = JSON.parse(fs.readFileSync(path.join(dir, 'expect.json'), 'utf8'));
    const { page, errors } = await newPage(browser);
    await page.addInitScript(() => {
      window.__alerts = 0;
      window.alert = () => { window.__alerts += 1; };
      window.__added = [];
      new MutationObserver((ms) => ms.forEach((m) => m.addedNodes.forEach((n) => {
        if (n.nodeType === 1 && /^(SCRIPT|IMG|IFRAME|OBJECT|EMBED)$/.test(n.nodeName)) window.__added.push(n.outerHTML.slice(0, 120));
      }))).observe(document, { subtree: true, childList: true });
    });
    await screenshotOnFailure(page, `hostile-${name}`, async () => {
      await openGallery(page, target.url);
      await page.evaluate(() => { window.__added = []; }); // the app's own loader script is not the table's
      await page.locator(sel.folderInput).setInputFiles(dir);
      // Every case opens (expect.json: outcome "ok"), with the snapshots and gaps fastavro worked out.
      assert.equal(expect.outcome, 'ok', `${name}: a case the e2e does not know how to hold`);
      await waitReady(page, errors);
      await settled(page);
      assert.equal(await page.locator('[data-testid="snapshot-count"]').textContent(), String(expect.snapshots), 'snapshots');
      assert.equal(await page.locator(sel.loadError).count(), expect.gaps.length, `gaps: ${await page.locator(sel.loadError).allTextContents()}`);
      assert.deepEqual(errors.all, [], 'page errors');
      const seen = await page.evaluate(() => ({
        alerts: window.__alerts,
        added: window.__added,
        // The app's own links stay on its origin; none may lead elsewhere or run script.
        links: [...document.querySelectorAll('a[href]')].map((a) => a.href).filter((h) => !h.startsWith(location.origin + '/') && !/^(blob:|data:)/.test(h)),
        handlers: [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].filter((a) => a.name.startsWith('on')).map((a) => `${e.nodeName} ${a.name}`)),
        text: document.body.textContent + [...document.querySelectorAll("[title]")].map((e) => e.title).join(" "),
      }));
      assert.equal(seen.alerts, 0, 'a script from the table ran');
      assert.deepEqual(seen.added, [], 'the table created elements');
      assert.deepEqual(seen.links, [], 'the table made links');
      assert.deepEqual(seen.handlers, [], 'the table set event handlers');
      // The value is shown as the text it is, where it holds no control character (those the
      // page shows made visible, as tests/hostile.rs holds the CLI's text to).
      const value = hostileValue(dir, name);
      if (value !== null && !/[\x00-\x1f\x7f]/.test(value)) assert.ok(seen.text.includes(value), `${name}: ${JSON.stringify(value)} is not shown as text`);
      assert.equal(expect.case, name);
    });
  });
}

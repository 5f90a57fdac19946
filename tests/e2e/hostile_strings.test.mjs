// Strings from a stranger's table stay text in the page: hostile tables from tests/hostile/strings
// (job ids, locations, operations, file and manifest names carrying HTML, scripts, links, control
// characters) are picked as folders; nothing they hold becomes an element, runs, or links anywhere,
// and the value shows as the text it is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, sel, REPO } from './lib/harness.mjs';

const CASES = ['job-id-script', 'location-html-and-link', 'location-newline-forged-row-script', 'missing-manifest-path-hostile', 'missing-manifest-url', 'summary-keys-hostile', 'metadata-file-name-hostile', 'codec-name-hostile', 'operation-u202e'];

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
    const { page } = await newPage(browser);
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
      // Either the table view finished, or the load error is shown: both are pages of strings.
      await page.locator(`${sel.ready}, ${sel.loadError}`).first().waitFor({ state: 'visible', timeout: 60000 });
      await page.waitForTimeout(500);
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
      if (name === 'job-id-script') assert.ok(seen.text.includes('<script>alert(1)</script>'), 'the job id is shown as the text it is');
      if (name === 'location-html-and-link') assert.ok(seen.text.includes('<img src=x onerror=alert(1)>'), 'the location is shown as text');
      assert.ok(expect.case === name);
    });
  });
}

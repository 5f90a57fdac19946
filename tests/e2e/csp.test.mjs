// The page's Content-Security-Policy: no inline script runs but Trunk's loader (allowed by its hash,
// written at build time), and opening every kind of view raises no violation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, waitReady, sel, REPO } from './lib/harness.mjs';

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

test('the built policy allows one inline script, by hash, and no unsafe-inline script', () => {
  const html = fs.readFileSync(path.join(REPO, 'dist', 'index.html'), 'utf8');
  const policy = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1];
  assert.ok(policy, 'dist/index.html has a Content-Security-Policy');
  const script = policy.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src'));
  assert.ok(!script.includes("'unsafe-inline'") && !script.includes("'unsafe-eval'"), script);
  assert.equal((script.match(/'sha256-[A-Za-z0-9+/]{43}='/g) || []).length, 1, script);
  assert.equal((html.match(/<script\b/g) || []).length, 1, 'Trunk injects exactly one script');
});

test('an example opens with no CSP violation, and an injected inline script does not run', { timeout: 120000 }, async () => {
  const { page, errors } = await newPage(browser);
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await screenshotOnFailure(page, 'csp', async () => {
    await openGallery(page, target.url);
    await page.locator(sel.card).first().click();
    await waitReady(page, errors);
    for (const tab of ['tab-jobs', 'tab-partitions', 'tab-deletes', 'tab-projection', 'tab-growth']) {
      await page.locator(`[data-testid="${tab}"]`).click();
    }
    assert.deepEqual(await page.evaluate(() => window.__violations), [], 'the app itself needs nothing the policy forbids');
    const ran = await page.evaluate(async () => {
      window.__ran = false;
      const s = document.createElement('script');
      s.textContent = 'window.__ran = true';
      // The policy's answer is its violation event: waited for, not a time.
      const refused = new Promise((r) => document.addEventListener('securitypolicyviolation', (e) => e.effectiveDirective.startsWith('script-src') && r(), { once: false }));
      document.body.appendChild(s);
      await refused;
      return { ran: window.__ran, violations: window.__violations };
    });
    assert.equal(ran.ran, false, 'an inline script injected into the page ran');
    assert.ok(ran.violations.some((v) => v.startsWith('script-src')), JSON.stringify(ran.violations));
  });
});

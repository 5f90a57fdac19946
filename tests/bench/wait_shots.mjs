// Screenshots of the page while a day's current manifests are still being read: the partitions
// chart and the read status say what waits for them (800 and 1,280 px, light and dark).
//   node tests/bench/wait_shots.mjs TABLE_DIR [DELAY_MS=20]
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { appTarget, launchBrowser, newPage, SCREENSHOT_DIR } from '../e2e/lib/harness.mjs';
import { fillLocation } from './open_location.mjs';

const [tableDir, delay = '20'] = process.argv.slice(2);
const store = spawn('tests/.venv/bin/python', ['tests/bench/network_day.py', tableDir, delay], { stdio: ['pipe', 'pipe', 'inherit'] });
const f = JSON.parse(await new Promise((r) => readline.createInterface({ input: store.stdout }).once('line', r)));
const app = await appTarget();
const browser = await launchBrowser();
try {
  for (const width of [800, 1280]) {
    for (const theme of ['light', 'dark']) {
      const { page, context } = await newPage(browser);
      await page.setViewportSize({ width, height: 1000 });
      await page.emulateMedia({ colorScheme: theme });
      await fillLocation(page, app.url, f);
      await page.locator('[data-testid="location-open"]').click();
      await page.locator('[data-testid="files-wait"]').waitFor({ state: 'visible', timeout: 120000 });
      await page.locator('[data-testid="tab-partitions"]').click();
      await page.waitForTimeout(4000);
      await page.locator('[data-testid="files-wait"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `files-wait-${width}-${theme}.png`) });
      console.log(width, theme, await page.locator('[data-testid="files-wait"]').textContent());
      await context.close();
    }
  }
} finally {
  await browser.close();
  await app.close();
  store.stdin.end();
}

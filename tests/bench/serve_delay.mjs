// The app through `icescope serve` against tests/bench/catalog_delay.py's catalog: seconds from the
// click on the table to the table view's data-state=ready, and the files the page reports read.
//   node tests/bench/serve_delay.mjs BIN FACTS.json DIST
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { launchBrowser, newPage } from '../e2e/lib/harness.mjs';

const [bin, factsFile, dist] = process.argv.slice(2);
const f = JSON.parse(fs.readFileSync(factsFile, 'utf8'));
const env = { ...process.env, ICESCOPE_CREDENTIAL: `${f.key}:${f.secret}`, AWS_ACCESS_KEY_ID: f.key, AWS_SECRET_ACCESS_KEY: f.secret };
const child = spawn(bin, ['serve', '--dist', dist, '--catalog', f.catalog_uri, '--warehouse', f.warehouse, '--scope', f.scope,
  '--s3-endpoint', f.s3_endpoint, '--s3-region', f.region, '--s3-path-style-access'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
const url = await new Promise((resolve) => child.stdout.on('data', (d) => {
  out += d;
  const m = out.match(/http:\/\/127\.0\.0\.1:\d+\/#relay=[0-9a-f]{64}/);
  if (m) resolve(m[0]);
}));
const browser = await launchBrowser();
try {
  const { page } = await newPage(browser);
  let relayed = 0;
  page.on('request', (r) => { if (r.url().includes('/relay/file?')) relayed += 1; });
  await page.goto(url, { waitUntil: 'load' });
  const button = page.locator(`[data-testid="catalog-table"][data-table="${f.table}"]`);
  await button.waitFor({ state: 'attached', timeout: 60000 });
  const t0 = Date.now();
  await button.click();
  await page.locator('[data-testid="table-view"][data-state="ready"]').waitFor({ state: 'attached', timeout: 600000 });
  console.log(JSON.stringify({ seconds_to_ready: (Date.now() - t0) / 1000, relay_file_requests: relayed }));
} finally {
  await browser.close();
  child.kill('SIGTERM');
}

// What the diagnostic scripts (profile_pick.mjs, memory_pick.mjs) share: the lab's playwright-core,
// the app server, headless Chromium as the benchmark launches it, and `--key value` options.
import path from 'node:path';
import { createRequire } from 'node:module';
import { REPO, startServer } from '../e2e/serve.mjs';

const require = createRequire(path.join(REPO, 'tests', 'e2e', 'package.json'));
const { chromium } = require('playwright-core');

export { REPO, startServer };

export const launch = () =>
  chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });

/// The command line; `opt(key, default)` takes `key value` out of `args`.
export function commandLine() {
  const args = process.argv.slice(2);
  const opt = (k, d) => (args.includes(k) ? args.splice(args.indexOf(k), 2)[1] : d);
  return { args, opt, dist: opt('--dist', path.join(REPO, 'dist')) };
}

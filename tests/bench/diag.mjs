// What the diagnostic scripts (profile_pick.mjs, memory_pick.mjs, live_browser_bench.mjs --profile) share: the lab's playwright-core,
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

/** A CDP Profiler profile as lines: `--inclusive` functions matching `pattern` with their callees,
 * the sampled total, the time by kind, and the `top` functions by self time. */
export function summarise(profile, { top = 40, pattern = '' } = {}) {
  const out = [];
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url ? path.basename(f.url) : ''}`;
    self.set(name, (self.get(name) || 0) + (dt[i] || 0) / 1000);
  });
  if (pattern) {
    const own = new Map();
    profile.samples.forEach((id, i) => own.set(id, (own.get(id) || 0) + (dt[i] || 0) / 1000));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
    const incl = new Map();
    for (const [id, ms] of own) {
      const seen = new Set();
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const name = (byId.get(at).callFrame.functionName || '').replace(/::h[0-9a-f]{16}$/, '');
        if (name.includes(pattern) && !seen.has(name)) {
          seen.add(name);
          incl.set(name, (incl.get(name) || 0) + ms);
        }
      }
    }
    out.push(`inclusive, functions matching ${pattern}:`);
    for (const [k, v] of [...incl.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`${v.toFixed(0).padStart(7)} ms  ${k}`);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  out.push(`sampled ${(total / 1000).toFixed(2)} s`);
  const group = (k) => (k.includes('_bg.wasm') ? 'wasm' : k.startsWith('(') ? k.split(' ')[0] : k.includes('__wbg_arrayBuffer') ? 'File.arrayBuffer' : 'js + dom');
  const groups = new Map();
  for (const [k, v] of self) groups.set(group(k), (groups.get(group(k)) || 0) + v);
  out.push('by kind: ' + [...groups.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(', '));
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`${v.toFixed(0).padStart(7)} ms  ${k}`);
  return out;
}

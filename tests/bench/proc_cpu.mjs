// CPU and memory of the Chromium processes a bench started (its descendants), read from /proc:
// shared by browser_bench.mjs and live_browser_bench.mjs.
import fs from 'node:fs';

const TICK = 100; // clock ticks per second on Linux

/** Our descendants: [{ pid, ppid, cpu (s), renderer }]. */
export function descendants() {
  const t = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      t.set(Number(d), { ppid: Number(rest[1]), cpu: (Number(rest[11]) + Number(rest[12])) / TICK, renderer: fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('--type=renderer') });
    } catch {
      // gone
    }
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, p] of t) if (!mine.has(pid) && mine.has(p.ppid)) { mine.add(pid); grew = true; }
  }
  mine.delete(process.pid);
  return [...mine].map((pid) => ({ pid, ...t.get(pid) }));
}

/** CPU seconds of all our descendants. */
export const cpu = () => descendants().reduce((s, p) => s + p.cpu, 0);

/** CPU seconds of every Chromium thread, summed by the thread's name (the page's main thread is
 * CrRendererMain, a Web Worker's DedicatedWorker thread; the browser process's threads are others). */
export function threads() {
  const by = {};
  for (const p of descendants()) {
    let tids = [];
    try { tids = fs.readdirSync(`/proc/${p.pid}/task`); } catch { continue; }
    for (const tid of tids) {
      try {
        const stat = fs.readFileSync(`/proc/${p.pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '');
        const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const key = `${p.renderer ? 'renderer' : 'other'}:${name}`;
        by[key] = (by[key] ?? 0) + (Number(rest[11]) + Number(rest[12])) / TICK;
      } catch {
        // gone
      }
    }
  }
  return by;
}

/** Seconds each thread name used between two `threads()` readings, the busiest first (≥ 5 ms). */
export const threadsSince = (before, after = threads()) =>
  Object.fromEntries(Object.entries(after).map(([k, v]) => [k, +(v - (before[k] ?? 0)).toFixed(3)]).filter(([, v]) => v >= 0.005).sort((x, y) => y[1] - x[1]));

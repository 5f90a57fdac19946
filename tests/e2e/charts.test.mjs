// Charts that tell the story at ticket size and on a projector (issue 28): the saved SVG read back
// in Chromium (real font metrics: text sizes, text boxes, line directions, the replay's two lanes),
// the canvas following its box, the device pixel ratio, the theme and projector mode, no
// horizontal scroll at 800 px, Copy image, and screenshots of every chart at 800/1,280/1,920 px,
// light and dark, into tests/out/screenshots/charts-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appTarget, launchBrowser, newPage, openGallery, screenshotOnFailure, waitReady, loadExamples, inspectPng, sel, settled, REPO, SCREENSHOT_DIR, OUT_DIR, TIMEOUT_MS } from './lib/harness.mjs';

let target;
let browser;
let examples;

before(async () => {
  target = await appTarget();
  browser = await launchBrowser();
  examples = await loadExamples(target.url);
});

after(async () => {
  await browser?.close();
  await target?.close();
});

const TABS = ['growth', 'jobs', 'partitions', 'deletes', 'projection'];

async function open(page, errors, name) {
  await openGallery(page, target.url);
  await page.locator(`${sel.card}[data-example="${name}"]`).click();
  await waitReady(page, errors);
}

async function showTab(page, tab) {
  await page.locator(`[data-testid="tab-${tab}"]`).click();
  const canvas = page.locator(`canvas[data-testid="${tab}-chart"]`);
  await canvas.waitFor();
  await page.waitForFunction((t) => Number(document.querySelector(`canvas[data-testid="${t}-chart"]`)?.dataset.points) >= 0, tab);
  return canvas;
}

async function saveSvg(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid="save-svg"]').click()]);
  return fs.readFileSync(await download.path(), 'utf8');
}

/** The SVG laid out in the page at its own size: every text's box, size and the polylines' x. */
async function measureSvg(page, svg) {
  return page.evaluate((markup) => {
    const host = document.createElement('div');
    host.style.cssText = 'position:absolute;left:0;top:0;width:800px;';
    host.innerHTML = markup;
    document.body.appendChild(host);
    const root = host.querySelector('svg');
    const origin = root.getBoundingClientRect();
    const texts = [...root.querySelectorAll('text')].map((t) => {
      const r = t.getBoundingClientRect();
      return { text: t.textContent.trim(), size: parseFloat(getComputedStyle(t).fontSize), x0: r.left - origin.left, y0: r.top - origin.top, x1: r.right - origin.left, y1: r.bottom - origin.top };
    });
    const lines = [...root.querySelectorAll('polyline')].map((p) => [...p.points].map((pt) => pt.x));
    const rects = [...root.querySelectorAll('rect')].map((r) => ({ stroke: r.getAttribute('stroke'), fill: r.getAttribute('fill'), x0: +r.getAttribute('x'), y0: +r.getAttribute('y'), x1: +r.getAttribute('x') + +r.getAttribute('width'), y1: +r.getAttribute('y') + +r.getAttribute('height') }));
    host.remove();
    return { width: +root.getAttribute('width'), height: +root.getAttribute('height'), texts, lines, rects };
  }, svg);
}

const intersect = (a, b, give = 1) => a.x0 < b.x1 - give && b.x0 < a.x1 - give && a.y0 < b.y1 - give && b.y0 < a.y1 - give;

test('the saved picture of every chart reads at 800 px: text ≥ 12 px, no text on another, no line backwards, inside the picture', { timeout: 600000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  const problems = [];
  let checked = 0;
  try {
    for (const ex of examples) {
      await open(page, errors, ex.name);
      for (const tab of TABS) {
        await showTab(page, tab);
        const svg = await saveSvg(page);
        const m = await measureSvg(page, svg);
        assert.equal(m.width, 800, `${ex.name} ${tab}: the picture is 800 px wide`);
        for (const t of m.texts) {
          if (t.size < 12) problems.push(`${ex.name} ${tab}: ${t.size}px "${t.text}"`);
          if (t.x0 < -1 || t.x1 > m.width + 1 || t.y0 < -1 || t.y1 > m.height + 1) problems.push(`${ex.name} ${tab}: "${t.text}" leaves the picture (${Math.round(t.x0)}–${Math.round(t.x1)})`);
        }
        for (let i = 0; i < m.texts.length; i++) {
          for (let j = i + 1; j < m.texts.length; j++) {
            if (intersect(m.texts[i], m.texts[j], 1.5)) problems.push(`${ex.name} ${tab}: "${m.texts[i].text}" on "${m.texts[j].text}"`);
          }
        }
        for (const xs of m.lines) {
          if (xs.some((x, i) => i > 0 && x < xs[i - 1])) problems.push(`${ex.name} ${tab}: a line runs backwards`);
        }
        checked++;
      }
    }
    assert.ok(checked >= 5 * 10, `${checked} pictures`);
    assert.deepEqual(problems, [], problems.join('\n'));
    assert.deepEqual(errors.all, [], 'page or console errors');
  } finally {
    await context.close();
  }
});

// savepoint-twice: job B (the first resume) and the checkpoints both resumed jobs committed (end of
// input aside), from savepoint A's + 1 on, as the lab's facts record them.
const twice = JSON.parse(fs.readFileSync(path.join(REPO, 'tests', 'fixtures', 'savepoint-twice', 'facts.json'), 'utf8'));
const cps = (j) => twice.commits.filter((c) => c.flink_job_id === twice.jobs[j].job_id).map((c) => c.max_committed_checkpoint_id).filter((c) => c < 9e18);
const replayed = cps(2).filter((c) => cps(1).includes(c));

test(`savepoint-twice: both jobs over checkpoints ${replayed[0]}–${replayed.at(-1)} are drawn, apart, and the replay is said`, { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await open(page, errors, 'savepoint-twice');
    for (const tab of ['growth', 'deletes']) {
      await showTab(page, tab);
      const m = await measureSvg(page, await saveSvg(page));
      // The lanes' outlines, in the second and third job colours (palette::JOB_STRONG).
      const b = m.rects.filter((r) => r.stroke === '#C46010');
      const c = m.rects.filter((r) => r.stroke === '#288246');
      assert.equal(b.length, 1, `${tab}: job B's lane`);
      assert.equal(c.length, 1, `${tab}: job C's lane`);
      assert.ok(!intersect(b[0], c[0], 0), `${tab}: the lanes cover each other`);
      assert.equal(replayed[0], twice.savepoint.checkpoint_id + 1, 'the replay starts after savepoint A');
      for (const id of replayed.map(String)) {
        const on = (bar) => m.texts.some((t) => t.text === id && t.x0 >= bar.x0 - 2 && t.x1 <= bar.x1 + 2 && t.y0 >= bar.y0 - 6 && t.y1 <= bar.y1 + 6);
        assert.ok(on(b[0]) && on(c[0]), `${tab}: checkpoint ${id} on both lanes`);
      }
      const jobB = twice.jobs[1].job_id.slice(0, 8);
      assert.ok(m.texts.some((t) => t.text.includes(`replays checkpoints ${replayed[0]}–${replayed.at(-1)} of job ${jobB}`)), `${tab}: the replay is not said`);
      if (tab === 'growth') assert.ok(m.texts.some((t) => t.text.startsWith('Savepoint replayed')), `${tab}: the finding is the picture's title`);
    }
    assert.deepEqual(errors.all, [], 'page or console errors');
  } finally {
    await context.close();
  }
});

test('the canvas follows its box and the pixel ratio, redraws on resize; dark is dark; projector enlarges the chart; no sideways scroll at 800 px', { timeout: 300000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 2, acceptDownloads: true });
  context.setDefaultTimeout(TIMEOUT_MS);
  const page = await context.newPage();
  const errors = { all: [] };
  page.on('pageerror', (e) => errors.all.push(String(e)));
  try {
    await screenshotOnFailure(page, 'charts-fit', async () => {
      await open(page, errors, 'savepoint-twice');
      const geometry = () => page.evaluate(() => {
        const c = document.querySelector('canvas[data-testid="growth-chart"]');
        const box = c.parentElement.getBoundingClientRect();
        const css = c.getBoundingClientRect();
        const ctx = c.getContext('2d');
        const px = ctx.getImageData(2, 2, 1, 1).data;
        return { boxW: box.width, cssW: css.width, cssH: css.height, w: c.width, h: c.height, dpr: devicePixelRatio, theme: c.dataset.theme, scale: Number(c.dataset.textScale), ground: [px[0], px[1], px[2]], scrollW: document.documentElement.scrollWidth, innerW: innerWidth };
      });
      // What the canvas last drew (`data-drawn`: width, theme, text scale), waited for after each change.
      const drawn = (pred) => page.waitForFunction(pred, null, { timeout: TIMEOUT_MS });
      let g = await geometry();
      assert.equal(g.dpr, 2);
      assert.ok(Math.abs(g.cssW - (g.boxW - 2 - 2 * 6.4)) < 3, `canvas ${g.cssW} px in a box of ${g.boxW}`);
      assert.equal(g.w, Math.round(g.cssW * 2), 'drawn at the device pixel ratio');
      assert.equal(g.h, Math.round(g.cssH * 2));
      const wide = g.cssW;
      await page.setViewportSize({ width: 800, height: 900 });
      await drawn(() => Number(document.querySelector('canvas[data-testid="growth-chart"]').dataset.drawn?.split(' ')[0]) < 780);
      g = await geometry();
      assert.ok(g.cssW < wide - 300 && g.cssW > 700, `after resizing to 800 px the canvas is ${g.cssW} px`);
      assert.ok(g.scrollW <= g.innerW, `page ${g.scrollW} px wide in an ${g.innerW} px window`);
      const light = g;
      assert.deepEqual(light.ground, [255, 255, 255], 'light ground');
      // Dark: the toggle goes auto → dark.
      await page.locator('[data-testid="theme"]').click();
      await drawn(() => document.querySelector('canvas[data-testid="growth-chart"]').dataset.drawn?.split(' ')[1] === 'dark');
      g = await geometry();
      assert.equal(g.theme, 'dark');
      assert.ok(g.ground.every((v) => v < 60), `dark chart ground ${g.ground}`);
      // Projector: larger chart text (the scale) and so a taller drawing; still no sideways scroll.
      await page.locator('[data-testid="projector"]').click();
      await drawn(() => Number(document.querySelector('canvas[data-testid="growth-chart"]').dataset.drawn?.split(' ')[2]) > 1);
      g = await geometry();
      assert.ok(g.scale >= 1.3, `text scale ${g.scale}`);
      assert.ok(g.cssH > light.cssH * 1.1, `projector chart ${g.cssH} px tall vs ${light.cssH}`);
      assert.ok(g.scrollW <= g.innerW, `projector: page ${g.scrollW} px wide in an ${g.innerW} px window`);
      await page.locator('[data-testid="projector"]').click();
      await page.locator('[data-testid="theme"]').click(); // light
      await drawn(() => document.querySelector('canvas[data-testid="growth-chart"]').dataset.drawn?.split(' ')[1] === 'light');
      assert.equal((await geometry()).theme, 'light');
    });
    assert.deepEqual(errors.all, [], 'page errors');
  } finally {
    await context.close();
  }
});

test('Copy image puts the 800 px picture on the clipboard as a PNG', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(target.url).origin });
    await open(page, errors, 'late-data');
    await showTab(page, 'partitions');
    await page.locator('[data-testid="copy-image"]').click();
    await page.locator('[data-testid="copied"]:not([hidden]), [data-testid="load-error"]').first().waitFor();
    assert.deepEqual(await page.locator(sel.loadError).allTextContents(), [], 'copying reported an error');
    const got = await page.evaluate(async () => {
      const items = await navigator.clipboard.read();
      const blob = await items[0].getType('image/png');
      const bytes = new Uint8Array(await blob.arrayBuffer());
      return { types: items[0].types, bytes: [...bytes.slice(0, 32)] };
    });
    assert.ok(got.types.includes('image/png'), got.types.join());
    const head = Buffer.from(got.bytes);
    assert.equal(head.readUInt32BE(16), 1600, 'twice 800 px wide');
    assert.deepEqual(errors.all, [], 'page or console errors');
  } finally {
    await context.close();
  }
});

test('print: no controls, severity badges keep their colour, headings keep with what follows', { timeout: 120000 }, async () => {
  const { context, page, errors } = await newPage(browser);
  try {
    await open(page, errors, 'savepoint-twice');
    await page.emulateMedia({ media: 'print' });
    for (const s of ['select', '[data-testid="export"]', '[data-testid="copy-image"]', '.chart-actions']) {
      assert.equal(await page.locator(s).first().isVisible().catch(() => false), false, `${s} is printed`);
    }
    const badge = await page.evaluate(() => {
      const b = document.querySelector('.critical .badge');
      const s = getComputedStyle(b);
      return { bg: s.backgroundColor, adjust: s.printColorAdjust || s.webkitPrintColorAdjust };
    });
    assert.equal(badge.adjust, 'exact', 'the badge is printed in colour');
    assert.equal(badge.bg, 'rgb(180, 35, 24)');
    const after = await page.evaluate(() => getComputedStyle(document.querySelector('.findings-head h3') || document.querySelector('h3')).breakAfter);
    assert.equal(after, 'avoid');
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    fs.mkdirSync(OUT_DIR, { recursive: true });
    fs.writeFileSync(path.join(OUT_DIR, 'charts-print.pdf'), pdf);
    assert.deepEqual(errors.all, [], 'page or console errors');
  } finally {
    await context.close();
  }
});

test('screenshots: every chart of every example at 800, 1,280 and 1,920 px, light and dark, and the saved PNG', { timeout: 900000 }, async () => {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const picked = (process.env.ICESCOPE_CHART_SHOTS || 'savepoint-twice,concurrent-writers,late-data,upsert-stream,v3-deletion-vectors,pyiceberg-delete-overwrite').split(',');
  const { context, page, errors } = await newPage(browser);
  try {
    for (const ex of examples.filter((e) => picked.includes(e.name))) {
      for (const [w, theme] of [[800, 'light'], [1280, 'light'], [1920, 'light'], [800, 'dark'], [1920, 'dark']]) {
        await page.setViewportSize({ width: w, height: 1000 });
        await page.emulateMedia({ colorScheme: theme });
        await open(page, errors, ex.name);
        const over = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
        assert.ok(over <= 0, `${ex.name} at ${w}: ${over} px of sideways scroll`);
        for (const tab of TABS) {
          await showTab(page, tab);
          await settled(page);
          await page.locator('.chart-box').screenshot({ path: path.join(SCREENSHOT_DIR, `charts-${ex.name}-${tab}-${w}-${theme}.png`) });
        }
      }
      // Projector on, at a laptop's and a projector's width.
      await page.emulateMedia({ colorScheme: 'light' });
      await page.locator('[data-testid="projector"]').click();
      for (const w of [1280, 1920]) {
        await page.setViewportSize({ width: w, height: 1000 });
        for (const tab of ['growth', 'jobs', 'partitions']) {
          await showTab(page, tab);
          await settled(page);
          await page.locator('.chart-box').screenshot({ path: path.join(SCREENSHOT_DIR, `charts-${ex.name}-${tab}-${w}-projector.png`) });
        }
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `${ex.name} projector at ${w}: sideways scroll`);
      }
      await page.locator('[data-testid="projector"]').click();
      for (const tab of ['growth', 'partitions', 'jobs']) {
        await showTab(page, tab);
        const [download] = await Promise.all([page.waitForEvent('download'), page.locator(sel.savePng).click()]);
        const bytes = fs.readFileSync(await download.path());
        const png = inspectPng(bytes);
        assert.equal(png.width, 1600, `${ex.name} ${tab}: the saved PNG is 800 px at 2×`);
        fs.writeFileSync(path.join(SCREENSHOT_DIR, `charts-${ex.name}-${tab}-saved.png`), bytes);
      }
    }
    assert.deepEqual(errors.all, [], 'page or console errors');
  } finally {
    await context.close();
  }
});

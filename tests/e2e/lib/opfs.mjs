// A folder into the page's origin-private file system, and showDirectoryPicker answering it: how
// the tests drive "Choose folder…" where Chromium offers the File System Access API (its dialog
// cannot be driven).
import fs from 'node:fs';
import path from 'node:path';

function filesUnder(dir, prefix = '') {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name), `${prefix}${e.name}/`) : [[`${prefix}${e.name}`, path.join(dir, e.name)]]);
}

/** Writes the file `file` at `rel` under the origin-private root (folders made as needed). */
export async function writeToOpfs(page, rel, file) {
  await page.evaluate(async ({ rel, b64 }) => {
    let dir = await navigator.storage.getDirectory();
    const parts = rel.split('/');
    for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p, { create: true });
    const w = await (await dir.getFileHandle(parts.at(-1), { create: true })).createWritable();
    await w.write(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
    await w.close();
  }, { rel, b64: fs.readFileSync(file).toString('base64') });
}

/** Copies `src` to `dest` (a path under the origin-private root, e.g. `t` or `t/savepoints`). */
export async function copyToOpfs(page, src, dest) {
  for (const [rel, abs] of filesUnder(src)) {
    await writeToOpfs(page, `${dest}/${rel}`, abs);
  }
}

/** The next showDirectoryPicker() answers the origin-private folder `name`. */
export async function pickerAnswers(page, name) {
  await page.evaluate((name) => {
    window.showDirectoryPicker = async () => (await navigator.storage.getDirectory()).getDirectoryHandle(name);
  }, name);
}

/** Clicks "Choose folder…" (the label that holds the folder input). */
export const chooseFolder = (page) => page.locator('label:has([data-testid="folder-input"])').click();

// The app's location form filled as a person fills it: the object store's endpoint, region and keys,
// path style, and the table's metadata location (the benchmark scripts' one copy).
import { catalogSel as cs } from '../e2e/lib/harness.mjs';

/** `f`: network_day.py's facts line. Leaves the page ready for the click on Open. */
export async function fillLocation(page, url, f) {
  await page.goto(url, { waitUntil: 'load' });
  await page.locator(cs.panel).waitFor({ state: 'attached' });
  if (!(await page.locator(cs.panel).evaluate((d) => d.open))) await page.locator(cs.summary).click();
  await page.locator(cs.s3Endpoint).fill(f.s3_endpoint);
  await page.locator(cs.s3Region).fill(f.region);
  await page.locator(cs.s3AccessKeyId).fill(f.key);
  await page.locator(cs.s3SecretAccessKey).fill(f.secret);
  await page.locator(cs.s3PathStyle).setChecked(true);
  await page.locator('[data-testid="location"]').fill(f.metadata_location);
}

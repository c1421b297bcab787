// Writes the README's screenshots (screenshots/*.png) from the live app: `APP_SCREENSHOTS=1 ./test-live.sh`
// under sdk/live-service.sh, or `node dist/test/live/screenshots.js` with ENGRAM_BASE_URL and ENGRAM_API_KEY set.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Engram } from '@engram-memory/sdk';
import { APP_DIR } from '../../src/deps.js';
import { seedMemory } from '../seed.js';
import { liveEnv, openBrowser, slideToLastInstantBefore, startApp } from './harness.js';

const run = crypto.randomUUID().slice(0, 8);
const out = join(APP_DIR, 'screenshots');
mkdirSync(out, { recursive: true });
const engram = new Engram({ baseUrl: liveEnv().ENGRAM_BASE_URL, apiKey: liveEnv().ENGRAM_API_KEY });

const owner = `demo-${run}`;
await engram.owner(owner).documents.createMany([
  { title: 'Commute', content: 'Ada rides a green bicycle to work along the canal every morning, rain or shine.', tags: ['habits'] },
  { title: 'Trip to Lisbon', content: 'In May Ada travelled to Lisbon for a conference on distributed systems and stayed near the river.', tags: ['travel'] },
  { title: 'Tea', content: 'Ada prefers green tea to coffee and keeps a tin of sencha at her desk.', tags: ['food'] },
  { title: 'Team offsite', content: 'The team offsite is planned for October in the mountains; Bob books the cabins.', tags: ['work', 'planning'] },
]);
const memoryOwner = `ada-${run}`;
const seeded = await seedMemory(engram.owner(memoryOwner));

const app = await startApp({ APP_OWNER: owner });
const browser = await openBrowser(app.url, { width: 1280, height: 900 });
const { page } = browser;
try {
  await page.goto(app.url);
  await page.locator('#doc-count[data-count="4"]').waitFor();
  await page.getByLabel('Search the documents').fill('bicycle by the canal');
  await page.getByLabel('Search the documents').press('Enter');
  await page.locator('#search-results li.hit').first().waitFor();
  await page.getByLabel('Your question').fill('How does Ada get to work?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await page.locator('#chat-answer .notice').waitFor();
  await page.screenshot({ path: join(out, 'documents.png'), fullPage: true });

  await page.goto(`${app.url}/memory?owner=${encodeURIComponent(memoryOwner)}`);
  await page.locator('#memory-panels[data-shown-as-of="now"]').waitFor();
  // The last instant before the favourite colour changed: the old value, and the edge later retracted.
  await slideToLastInstantBefore(page, seeded.blue.observed_at);
  // Choose Ada in the drawing, as a click would, to show a node's details beside it.
  await page.evaluate(() => (window as unknown as { memoryGraph: { $: (s: string) => { emit: (e: string) => void } } }).memoryGraph.$('#ada').emit('tap'));
  await page.screenshot({ path: join(out, 'memory-before.png'), fullPage: true });
  await page.getByRole('button', { name: 'Now' }).click();
  await page.locator('#memory-panels[data-shown-as-of="now"]').waitFor();
  await page.screenshot({ path: join(out, 'memory-now.png'), fullPage: true });
  console.log(`screenshots written to ${out}`);
} finally {
  await browser.close();
  await app.close();
}

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Engram } from '@engram-memory/sdk';
import type { Page } from 'playwright-core';
import { seedMemory, type SeededMemory } from '../seed.js';
import { type BrowserSession, liveEnv, openBrowser, type RunningApp, slideToLastInstantBefore, startApp } from './harness.js';

const run = crypto.randomUUID().slice(0, 8);
const TIMEOUT = 15_000;

describe('the page in Debian\'s Chromium, offline but for the app', () => {
  let app: RunningApp;
  let browser: BrowserSession;
  let page: Page;

  before(async () => {
    app = await startApp({ APP_OWNER: `app-browser-${run}` });
    browser = await openBrowser(app.url);
    page = browser.page;
    page.setDefaultTimeout(TIMEOUT);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const count = () => page.locator('#doc-count');
  const item = (title: string) => page.locator('#doc-list li.doc', { has: page.getByRole('heading', { name: title }) });

  test('adds a document and sees it listed and counted', async () => {
    await page.goto(app.url);
    await page.locator('#doc-count[data-count="0"]').waitFor();
    assert.equal(await page.locator('#owner-name').textContent(), `app-browser-${run}`);
    await page.getByLabel('Title').fill('Wombat burrows');
    await page.getByLabel('Content').fill('Wombats dig long burrows with their strong claws and produce cube-shaped droppings.');
    await page.getByLabel('Tags').fill('animals, australia');
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByText('Added “Wombat burrows”.').waitFor();
    await item('Wombat burrows').waitFor();
    assert.deepEqual(await item('Wombat burrows').locator('.tag').allTextContents(), ['animals', 'australia']);
    await page.locator('#doc-count[data-count="1"]').waitFor();
    assert.equal(await count().textContent(), '1 document');
  });

  test('finds it by search, with a score and the query words marked in the passage', async () => {
    await page.getByLabel('Search the documents').fill('cube droppings');
    await page.getByLabel('Search the documents').press('Enter');
    const hit = page.locator('#search-results li.hit').first();
    await hit.waitFor();
    assert.equal(await hit.locator('strong').first().textContent(), 'Wombat burrows');
    assert.match((await hit.locator('.score').textContent()) ?? '', /score \d+\.\d/);
    assert.deepEqual(await hit.locator('mark').allTextContents(), ['cube', 'droppings']);
  });

  test('soft-deletes it (gone from the list, the count and search) and restores it', async () => {
    await item('Wombat burrows').getByRole('button', { name: 'Delete “Wombat burrows”' }).click();
    await page.getByText('“Wombat burrows” deleted').waitFor();
    await item('Wombat burrows').waitFor({ state: 'detached' });
    await page.locator('#doc-count[data-count="0"]').waitFor();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Nothing found for “cube droppings”.').waitFor();

    await page.getByLabel('Show deleted documents').check();
    const deleted = page.locator('#doc-list li.doc[data-state="deleted"]', { has: page.getByRole('heading', { name: 'Wombat burrows' }) });
    await deleted.waitFor();
    assert.equal(await deleted.locator('.badge-deleted').textContent(), 'deleted');
    await deleted.getByRole('button', { name: 'Restore “Wombat burrows”' }).click();
    await page.getByText('“Wombat burrows” restored.').waitFor();
    await page.locator('#doc-list li.doc[data-state="active"]', { has: page.getByRole('heading', { name: 'Wombat burrows' }) }).waitFor();
    await page.locator('#doc-count[data-count="1"]').waitFor();
  });

  test('asks the chat without a language-model key: the explanation, and the passages it found', async () => {
    await page.getByLabel('Your question').fill('How do wombats dig?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const notice = page.locator('#chat-answer .notice[data-code="llm_not_configured"]');
    await notice.waitFor();
    assert.match((await notice.textContent()) ?? '', /No answer: no language model is configured.*LLM_API_KEY/s);
    const source = page.locator('#chat-answer li.hit').first();
    assert.equal(await source.locator('strong').first().textContent(), 'Wombat burrows');
    assert.equal(await source.locator('.cite').textContent(), '[1]');
  });

  test('the Memory page: before the supersession the old value and the later-retracted edge, now the new value and no edge', async () => {
    const owner = `app-browser-memory-${run}`;
    const seeded: SeededMemory = await seedMemory(new Engram({ baseUrl: liveEnv().ENGRAM_BASE_URL, apiKey: liveEnv().ENGRAM_API_KEY }).owner(owner));
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Memory' }).click();
    await page.getByLabel('Owner id').fill(owner);
    await page.getByLabel('Owner id').press('Enter');
    const panels = page.locator('#memory-panels');
    await page.locator('#memory-panels[data-shown-as-of="now"]').waitFor();
    assert.equal(await page.getByLabel('Start node').inputValue(), 'ada');

    const known = (predicate: string) => page.locator(`#known-facts li[data-predicate="${predicate}"]`).evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.value));
    const drawnEdges = () => page.evaluate(() => (window as unknown as { memoryGraph: { edges: () => { map: (f: (e: { id: () => string }) => string) => string[] } } }).memoryGraph.edges().map((e) => e.id()));
    const listedEdge = page.locator(`#graph-edges li[data-relationship-id="${seeded.retracted.relationship_id}"]`);

    assert.deepEqual(await known('favorite_color'), ['blue']);
    assert.ok(!(await drawnEdges()).includes(seeded.retracted.relationship_id));
    assert.equal(await listedEdge.count(), 0);

    // With the keyboard, from the first instant forward to the last one before the supersession.
    const shown = await slideToLastInstantBefore(page, seeded.blue.observed_at);
    assert.equal(await page.locator('#instant time').getAttribute('datetime'), shown);

    assert.deepEqual(await known('favorite_color'), ['green']);
    assert.ok((await drawnEdges()).includes(seeded.retracted.relationship_id), 'the edge retracted later is drawn');
    assert.equal(await listedEdge.getAttribute('data-retracted-later'), 'true');
    assert.match((await listedEdge.textContent()) ?? '', /Ada → works_at → Acme/);
    assert.equal(await page.locator(`#timeline li[data-fact-id="${seeded.green.fact_id}"]`).getAttribute('data-state'), 'known');
    assert.equal(await page.locator(`#timeline li[data-fact-id="${seeded.blue.fact_id}"]`).count(), 0, 'the new value is not known yet');

    await page.getByRole('button', { name: 'Now' }).click();
    await page.locator('#memory-panels[data-shown-as-of="now"]').waitFor();
    assert.deepEqual(await known('favorite_color'), ['blue']);
    assert.ok(!(await drawnEdges()).includes(seeded.retracted.relationship_id), 'the retracted edge is gone');
    assert.ok((await drawnEdges()).includes(seeded.current.relationship_id));
    assert.equal(await listedEdge.count(), 0);
    assert.equal(await page.locator(`#timeline li[data-fact-id="${seeded.green.fact_id}"]`).getAttribute('data-state'), 'superseded');
    assert.ok(await panels.isVisible());
  });

  test('the page sent no request anywhere but the app, and no script failed', () => {
    assert.deepEqual(browser.blocked, []);
    assert.deepEqual(browser.errors, []);
  });
});

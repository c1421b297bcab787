import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderApiReference } from '../../scripts/build-api-reference.mjs';

const htmlUrl = new URL('../../docs/api-reference.html', import.meta.url);
const document = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, unknown>> };

/** The static API reference (docs/api-reference.html) in Debian's Chromium, offline. */
describe('the API reference page', () => {
  let browser: Browser;
  beforeAll(async () => {
    const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
    browser = await chromium.launch({ executablePath }).catch((error: unknown) => {
      throw new Error(`Chromium is needed for this test (apt-get install chromium, or set CHROMIUM_PATH): ${String(error)}`);
    });
  });
  afterAll(() => browser?.close());

  it('is what docs/openapi.json renders to (run `npm run docs:reference` after `npm run openapi`)', () => {
    expect(readFileSync(htmlUrl, 'utf8') === renderApiReference()).toBe(true);
  });

  it('shows every route of the document, from the file alone, without a request to the network', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(htmlUrl.pathname).href);
    await page.waitForSelector('.opblock-summary-path');
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
    );
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(shown.sort()).toEqual(documented.sort());
    expect(await page.textContent('.title')).toContain('Engram');
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });
});

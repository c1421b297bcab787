#!/usr/bin/env node
// Renders docs/openapi.json into docs/api-reference.html: one static file, with Swagger UI's script and
// styles (from the swagger-ui-dist npm package) and the document inlined, so the page needs no server,
// no CDN and no network. `--screenshot` also saves docs/api-reference.png through Chromium
// (CHROMIUM_PATH, default /usr/bin/chromium: Debian's package). Run after `npm run openapi`.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
const { version } = JSON.parse(readFileSync(join(dist, 'package.json'), 'utf8'));

/** Text safe inside a <script> or <style> element: no closing tag or comment opener can end it early. */
const inline = (text) => text.replace(/<\/(script|style)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');

export function renderApiReference() {
  const spec = readFileSync(join(root, 'docs', 'openapi.json'), 'utf8');
  const css = readFileSync(join(dist, 'swagger-ui.css'), 'utf8');
  const bundle = readFileSync(join(dist, 'swagger-ui-bundle.js'), 'utf8');
  // JSON.stringify of the parsed document escapes nothing HTML cares about; `<` is escaped by hand.
  const specJs = JSON.stringify(JSON.parse(spec)).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="scripts/build-api-reference.mjs with swagger-ui-dist ${version}">
<title>Engram API reference</title>
<style>${inline(css)}</style>
<style>body { margin: 0; } .swagger-ui .topbar { display: none; }</style>
</head>
<body>
<div id="api-reference"></div>
<script>${inline(bundle)}</script>
<script id="openapi-document" type="application/json">${specJs}</script>
<script>
  // Read-only: the page is static and offline, so "Try it out" is off.
  window.ui = SwaggerUIBundle({
    spec: JSON.parse(document.getElementById('openapi-document').textContent),
    dom_id: '#api-reference',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    supportedSubmitMethods: [],
  });
</script>
</body>
</html>
`;
}

async function screenshot(htmlPath, pngPath) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(htmlPath).href);
    await page.waitForSelector('.opblock-summary-path');
    await page.screenshot({ path: pngPath });
  } finally {
    await browser.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const htmlPath = join(root, 'docs', 'api-reference.html');
  writeFileSync(htmlPath, renderApiReference());
  process.stdout.write(`wrote ${htmlPath}\n`);
  if (process.argv.includes('--screenshot')) {
    const pngPath = join(root, 'docs', 'api-reference.png');
    await screenshot(htmlPath, pngPath);
    process.stdout.write(`wrote ${pngPath}\n`);
  }
}

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { USER_AGENT, VERSION } from '@engram-memory/sdk';

const packageDir = new URL('../../../', import.meta.url);
const manifest = JSON.parse(await readFile(new URL('package.json', packageDir), 'utf8')) as Record<string, unknown>;

test('the package is ready to publish: scoped name, version, MIT, ESM, types, no runtime dependencies', () => {
  assert.equal(manifest.name, '@engram-memory/sdk');
  assert.equal(manifest.version, VERSION);
  assert.equal(USER_AGENT, `engram-sdk-typescript/${VERSION}`);
  assert.equal(manifest.license, 'MIT');
  assert.equal(manifest.type, 'module');
  assert.equal(manifest.dependencies, undefined);
  assert.deepEqual(Object.keys(manifest.exports as object), ['.', './node', './package.json']);
});

test('the main entry and everything it imports are free of node: imports (browsers load it)', async () => {
  const seen = new Set<string>();
  const visit = async (url: URL): Promise<void> => {
    if (seen.has(url.href)) return;
    seen.add(url.href);
    const source = await readFile(url, 'utf8');
    for (const [, specifier] of source.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]/g)) {
      assert.ok(specifier && !specifier.startsWith('node:') && !/^(fs|path|stream|crypto|buffer|http)$/.test(specifier), `${url.pathname} imports ${specifier}`);
      if (specifier.startsWith('.')) await visit(new URL(specifier, url));
    }
  };
  await visit(new URL('dist/index.js', packageDir));
  assert.ok(seen.size > 5, 'the walk followed the imports of the entry');
});

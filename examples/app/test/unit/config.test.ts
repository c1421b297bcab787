import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { APP_DIR } from '../../src/deps.js';

test('defaults: Engram on 127.0.0.1:8080, owner demo, 127.0.0.1:3000, OpenAI base URL, no model key', () => {
  const config = loadConfig({ ENGRAM_API_KEY: 'k' });
  assert.deepEqual(config, {
    engram: { baseUrl: 'http://127.0.0.1:8080', apiKey: 'k' },
    owner: 'demo',
    port: 3000,
    host: '127.0.0.1',
    llm: { apiKey: null, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
  });
});

test('LLM_API_KEY wins over OPENAI_API_KEY, which is used alone; base URLs lose their trailing slash', () => {
  assert.equal(loadConfig({ ENGRAM_API_KEY: 'k', LLM_API_KEY: 'a', OPENAI_API_KEY: 'b' }).llm.apiKey, 'a');
  assert.equal(loadConfig({ ENGRAM_API_KEY: 'k', OPENAI_API_KEY: 'b' }).llm.apiKey, 'b');
  assert.equal(loadConfig({ ENGRAM_API_KEY: 'k', LLM_BASE_URL: 'http://127.0.0.1:9/v1/' }).llm.baseUrl, 'http://127.0.0.1:9/v1');
});

test('a missing key says where a local Engram keeps its dev key', () => {
  for (const env of [{}, { ENGRAM_API_KEY: '' }]) {
    assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && /ENGRAM_API_KEY is not set/.test(error.message) && /data\/dev-api-key/.test(error.message));
  }
});

test('wrong values are named, all at once', () => {
  assert.throws(
    () => loadConfig({ ENGRAM_API_KEY: 'k', PORT: 'eighty', ENGRAM_BASE_URL: 'ftp://x', APP_OWNER: 'o'.repeat(257) }),
    (error: unknown) => error instanceof ConfigError && /PORT/.test(error.message) && /ENGRAM_BASE_URL must be an http\(s\) URL/.test(error.message) && /APP_OWNER/.test(error.message),
  );
});

test('npm start without a key exits 1 with the message, and prints no stack', () => {
  const env = { ...process.env, ENGRAM_API_KEY: '', PATH: process.env.PATH ?? '' };
  const result = spawnSync(process.execPath, [join(APP_DIR, 'dist/src/main.js')], { env, encoding: 'utf8', timeout: 10_000 });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^ENGRAM_API_KEY is not set/);
  assert.doesNotMatch(result.stderr, /\bat .*\.js:\d+/);
});

/**
 * Safe defaults, over stdio: the per-call owner and the erasure exist only when the host enables them,
 * a missing configuration stops the server with a message, and the API key never reaches an output.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { Engram } from '@engram-memory/sdk';
import { call, connectStdio, engram, live, MAIN, ok, ownerId, serverEnv, textOf } from './harness.js';

describe('the owner argument', () => {
  test('is absent by default, and a call that passes one is refused', async () => {
    const owner = ownerId('fixed');
    const conn = await connectStdio({ ENGRAM_OWNER: owner });
    try {
      const { tools } = await conn.client.listTools();
      assert.deepEqual(tools.filter((t) => 'owner' in (t.inputSchema.properties ?? {})).map((t) => t.name), []);
      const other = ownerId('intruder');
      const refused = await call(conn.client, 'remember_fact', { predicate: 'p', value: 1, owner: other });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /Unrecognized key.*"owner"/);
      assert.equal((await engram.owner(other).facts.list()).count, 0);
    } finally {
      await conn.close();
    }
  });

  test('with ENGRAM_MCP_ALLOW_OWNER_ARG=true, every tool offers it, defaulting to ENGRAM_OWNER', async () => {
    const owner = ownerId('default');
    const other = ownerId('named');
    const conn = await connectStdio({ ENGRAM_OWNER: owner, ENGRAM_MCP_ALLOW_OWNER_ARG: 'true' });
    try {
      const { tools } = await conn.client.listTools();
      for (const tool of tools) {
        assert.ok('owner' in (tool.inputSchema.properties ?? {}), `${tool.name} offers owner`);
        assert.ok(!(tool.inputSchema.required ?? []).includes('owner'), `${tool.name}: owner is optional`);
      }
      ok(await call(conn.client, 'remember_fact', { predicate: 'p', value: 'named', owner: other }));
      ok(await call(conn.client, 'remember_fact', { predicate: 'p', value: 'default' }));
      assert.deepEqual((await engram.owner(other).facts.list()).facts.map((f) => f.value), ['named']);
      assert.deepEqual((await engram.owner(owner).facts.list()).facts.map((f) => f.value), ['default']);
    } finally {
      await conn.close();
    }
  });

  test('with the argument allowed and no ENGRAM_OWNER, each call must name one', async () => {
    const conn = await connectStdio({ ENGRAM_MCP_ALLOW_OWNER_ARG: 'true' });
    try {
      const { tools } = await conn.client.listTools();
      assert.ok(tools.every((t) => (t.inputSchema.required ?? []).includes('owner')));
      const refused = await call(conn.client, 'recall_facts', {});
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /at owner/);
    } finally {
      await conn.close();
    }
  });
});

describe('erase_owner', () => {
  test('is not offered unless ENGRAM_MCP_ALLOW_ERASE=true', async () => {
    const conn = await connectStdio({ ENGRAM_OWNER: ownerId('no-erase') });
    try {
      const { tools } = await conn.client.listTools();
      assert.ok(!tools.some((t) => t.name === 'erase_owner'));
      const refused = await call(conn.client, 'erase_owner', { confirm_owner: 'x' });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /Tool erase_owner not found/);
    } finally {
      await conn.close();
    }
  });

  test('when enabled: destructive, refuses a confirmation that is not the owner, erases with it', async () => {
    const owner = ownerId('erase');
    const conn = await connectStdio({ ENGRAM_OWNER: owner, ENGRAM_MCP_ALLOW_ERASE: 'true' });
    try {
      const tool = (await conn.client.listTools()).tools.find((t) => t.name === 'erase_owner');
      assert.deepEqual([tool?.annotations?.readOnlyHint, tool?.annotations?.destructiveHint], [false, true]);
      ok(await call(conn.client, 'remember_fact', { predicate: 'p', value: 1 }));
      const refused = await call(conn.client, 'erase_owner', { confirm_owner: 'someone-else' });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /confirm_owner must repeat the owner id.*nothing was erased/);
      assert.equal((await engram.owner(owner).facts.list()).count, 1);
      const receipt = ok<{ receipt_id: string; state: string }>(await call(conn.client, 'erase_owner', { confirm_owner: owner }));
      assert.match(receipt.state, /^(pending|running|complete)$/);
      assert.equal((await engram.owner(owner).facts.list()).count, 0);
    } finally {
      await conn.close();
    }
  });
});

describe('the partition', () => {
  test('ENGRAM_PARTITION scopes every call; a multi-tenant key without it gets the API\'s 400 as a tool error', async () => {
    const owner = ownerId('partitioned');
    const scoped = await connectStdio({ ENGRAM_OWNER: owner, ENGRAM_API_KEY: live.multiKey, ENGRAM_PARTITION: 'eu' });
    const unscoped = await connectStdio({ ENGRAM_OWNER: owner, ENGRAM_API_KEY: live.multiKey });
    try {
      ok(await call(scoped.client, 'remember_fact', { predicate: 'region', value: 'eu' }));
      const multi = new Engram({ baseUrl: live.baseUrl, apiKey: live.multiKey });
      assert.deepEqual((await multi.owner(owner, { partition: 'eu' }).facts.list()).facts.map((f) => f.value), ['eu']);
      const refused = await call(unscoped.client, 'recall_facts', {});
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /^Engram API error 400 invalid_input: .*partition/);
    } finally {
      await scoped.close();
      await unscoped.close();
    }
  });
});

describe('configuration and secrets', () => {
  test('a missing ENGRAM_API_KEY or ENGRAM_OWNER stops the server at start with a message naming it', () => {
    const noKey = spawnSync(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ENGRAM_OWNER: 'o' }, encoding: 'utf8', timeout: 10_000 });
    assert.equal(noKey.status, 2);
    assert.match(noKey.stderr, /ENGRAM_API_KEY: is required/);
    const noOwner = spawnSync(process.execPath, [MAIN], { env: serverEnv(), encoding: 'utf8', timeout: 10_000 });
    assert.equal(noOwner.status, 2);
    assert.match(noOwner.stderr, /ENGRAM_OWNER is required over stdio/);
    assert.ok(!noOwner.stderr.includes(live.apiKey));
    const badSwitch = spawnSync(process.execPath, [MAIN], { env: serverEnv({ ENGRAM_OWNER: 'o', ENGRAM_MCP_ALLOW_ERASE: 'yes' }), encoding: 'utf8', timeout: 10_000 });
    assert.equal(badSwitch.status, 2);
    assert.match(badSwitch.stderr, /ENGRAM_MCP_ALLOW_ERASE: must be true or false/);
  });

  test('a key the service refuses gives a 401 tool error, and the key appears in no output', async () => {
    const wrongKey = `sk_wrong_${'x'.repeat(24)}`;
    const conn = await connectStdio({ ENGRAM_OWNER: ownerId('wrong-key'), ENGRAM_API_KEY: wrongKey });
    try {
      const results = [await call(conn.client, 'recall_facts', {}), await call(conn.client, 'add_memory', { content: 'x' })];
      for (const result of results) {
        assert.equal(result.isError, true);
        assert.match(textOf(result), /^Engram API error 401 unauthorized/);
        assert.ok(!JSON.stringify(result).includes(wrongKey));
      }
      assert.ok(!conn.stderr().includes(wrongKey));
    } finally {
      await conn.close();
    }
  });
});

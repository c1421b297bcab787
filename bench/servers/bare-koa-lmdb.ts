/**
 * The storage floor for write benchmarks: the bare Koa handler plus what asserting a fact writes, done
 * with raw lmdb-js: two records put together (the new fact, and the one it supersedes with its
 * `invalid_from` set), one durable commit awaited, with the same LMDB settings as the service
 * (STORE_SYNC, shared msgpack structures). Prints its URL as the first stdout line.
 */
import coBody from 'co-body';
import Koa from 'koa';
import { open } from 'lmdb';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const env = open({ path: join(mkdtempSync(join(tmpdir(), 'bare-lmdb-')), 'bare.mdb'), maxDbs: 4, noMetaSync: process.env.STORE_SYNC === 'data' });
const records = env.openDB<unknown, (string | number)[]>({ name: 'records', sharedStructuresKey: Symbol.for('structures') });
let n = 0;

const app = new Koa();
app.use(async (ctx) => {
  const body = (await coBody.json(ctx.req, { limit: '1mb', strict: true })) as Record<string, unknown>;
  const i = n++;
  const owner = `owner-${i % 100}`;
  records.put(['bench', '', owner, 'fact', i - 100], { ...body, i: i - 100, invalid_from: Date.now() });
  await records.put(['bench', '', owner, 'fact', i], { ...body, i, observed_at: Date.now(), invalid_from: null });
  ctx.status = 201;
  ctx.body = { ok: true, echo: body };
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});

/**
 * The storage floor for write benchmarks: the bare Koa handler plus one lmdb-js batched transaction of
 * nine puts per request (what a fact that supersedes another writes: record and five index entries for
 * the new fact, record and two index changes for the old one), with the same LMDB settings as the
 * service (STORE_SYNC, shared msgpack structures). Prints its URL as the first stdout line.
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
const index = env.openDB<true, (string | number)[]>({ name: 'index' });
let n = 0;

const app = new Koa();
app.use(async (ctx) => {
  const body = (await coBody.json(ctx.req, { limit: '1mb', strict: true })) as Record<string, unknown>;
  const i = n++;
  const owner = `owner-${i % 100}`;
  await env.transaction(() => {
    records.put(['bench', '', owner, 'fact', i], { ...body, i, observed_at: Date.now() });
    for (const kind of ['f_obs', 'f_sp', 'f_pred', 'f_act', 'f_spa']) index.put(['bench', '', owner, kind, Date.now(), i], true);
    records.put(['bench', '', owner, 'fact', i - 1], { ...body, i, invalid_from: Date.now() });
    index.remove(['bench', '', owner, 'f_act', i - 1]);
    index.remove(['bench', '', owner, 'f_spa', i - 1]);
  });
  ctx.status = 201;
  ctx.body = { ok: true, echo: body };
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});

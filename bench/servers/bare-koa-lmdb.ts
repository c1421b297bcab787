/**
 * The storage floor for write benchmarks: the bare Koa handler plus what asserting a fact writes, done
 * with raw lmdb-js: two records put together (the new fact, and the one it supersedes with its
 * `invalid_from` set), one durable commit awaited, with the same LMDB settings as the service
 * (STORE_SYNC, shared msgpack structures). Prints its URL as the first stdout line.
 *
 * That is the floor issue 16 measures against, kept as it was. Since then the service stores a fact's
 * later state in a small record of its own (src/store/graph.ts: superseding re-seals nothing), keyed right
 * after its fact's record. FLOOR_RECORDS=service puts what the service puts now, with raw lmdb-js: the new
 * fact as a value of its sealed size under a fact id, and the superseded fact's state record after it.
 */
import coBody from 'co-body';
import Koa from 'koa';
import { open } from 'lmdb';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const env = open({ path: join(mkdtempSync(join(tmpdir(), 'bare-lmdb-')), 'bare.mdb'), maxDbs: 4, noMetaSync: process.env.STORE_SYNC === 'data' });
const records = env.openDB<unknown, (string | number)[]>({ name: 'records', sharedStructuresKey: Symbol.for('structures') });
let n = 0;
const serviceRecords = process.env.FLOOR_RECORDS === 'service';
/** A sealed fact of the benchmark's body: 304 bytes (version, nonce, msgpack, tag), random as ciphertext is. */
const sealedFact = randomBytes(304);
const factId = (i: number) => `fact_${String(i).padStart(26, '0')}`;

const app = new Koa();
app.use(async (ctx) => {
  const body = (await coBody.json(ctx.req, { limit: '1mb', strict: true })) as Record<string, unknown>;
  const i = n++;
  const owner = `owner-${i % 100}`;
  if (serviceRecords) {
    records.put(['bench', '', owner, 'fact', factId(i - 100), 'st'], { invalid_from: Date.now(), updated_at: Date.now() });
    await records.put(['bench', '', owner, 'fact', factId(i)], sealedFact);
  } else {
    records.put(['bench', '', owner, 'fact', i - 100], { ...body, i: i - 100, invalid_from: Date.now() });
    await records.put(['bench', '', owner, 'fact', i], { ...body, i, observed_at: Date.now(), invalid_from: null });
  }
  ctx.status = 201;
  ctx.body = { ok: true, echo: body };
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});

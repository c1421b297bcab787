/**
 * The raw baseline for bench/owners.ts: a bare Node HTTP handler over a raw lmdb-js environment holding
 * OWNERS small owners (an entity and three facts each, msgpack, no encryption), answering
 * `GET /?owner=N` with that owner's records read by one range read, as JSON. What a cold read of a small
 * owner costs when nothing but LMDB and HTTP stands between the client and the records. With DATA set it
 * reuses (or fills, the first time) that environment, so a restart reads what the first start wrote.
 * Prints its URL as the first stdout line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { open } from 'lmdb';

const owners = Number(process.env.OWNERS ?? 1000);
const env = open({ path: process.env.DATA!, maxDbs: 4 });
const records = env.openDB<unknown, (string | number)[]>({ name: 'records', sharedStructuresKey: Symbol.for('structures') });

if (records.get(['filled']) === undefined) {
  const at = Date.now();
  for (let from = 0; from < owners; from += 10_000) {
    await records.transaction(() => {
      for (let i = from; i < Math.min(owners, from + 10_000); i++) {
        const owner = `o${i}`;
        void records.put(['bench', '', owner, 'entity', 'e'], { entity_type: 'person', display_name: `Person ${i}`, created_at: at });
        for (let f = 0; f < 3; f++) {
          void records.put(['bench', '', owner, 'fact', f], { predicate: `p${f}`, value: `value ${i} ${f}`, cardinality: 'single', observed_at: at, invalid_from: null });
        }
      }
    });
  }
  await records.put(['filled'], true);
}

const server = createServer((req, res) => {
  const owner = `o${new URL(req.url ?? '/', 'http://x').searchParams.get('owner') ?? ''}`;
  const facts = [...records.getRange({ start: ['bench', '', owner, 'fact', 0], end: ['bench', '', owner, 'fact', 1000] }).map(({ value }) => value)];
  const entity = records.get(['bench', '', owner, 'entity', 'e']);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ entity, facts, count: facts.length }));
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => void env.close().then(() => process.exit(0))));

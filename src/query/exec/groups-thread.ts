/**
 * The query engine's helper thread: gathers the later half of a large Mode B aggregation
 * (`parallel-groups.ts`) from the same LMDB environment, which lmdb-js shares between the threads of a
 * process, and says which index generation its snapshot holds.
 */
import { open } from 'lmdb';
import { parentPort, workerData } from 'node:worker_threads';
import { openIndexDb } from '../storage/layout.js';
import { IndexReader } from '../storage/reader.js';
import { columnarPartial } from './columnar-groups.js';
import type { HalfReply, HalfRequest } from './parallel-groups.js';

const port = parentPort;
if (!port) throw new Error('src/query/exec/groups-thread.ts runs as a worker thread only');

// The options that decide how entries read (the environment itself is the service's, already open).
const env = open({ path: (workerData as { path: string }).path, maxDbs: 64, compression: false });
const db = openIndexDb({ env });

port.on('message', ({ id, t, docs, query, maxGroups }: HalfRequest) => {
  let reply: HalfReply;
  try {
    // A snapshot taken now, not one kept from an earlier request of the same turn.
    env.resetReadTxn();
    const reader = new IndexReader(db);
    const generation = reader.generation(t);
    reply = { id, generation, partial: columnarPartial(reader, t, docs, query, maxGroups) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});

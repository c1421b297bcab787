/**
 * The node's vector worker thread: every large owner's hnswlib index lives here, so that inserts, searches
 * and checkpoints of a big index never run on the service's event loop. Requests are answered as they
 * arrive; inserts run in time slices between them, one owner after another, so one owner's long build
 * delays another owner's search by at most a slice.
 */
import { setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { OwnerGraph } from './owner-graph.js';
import type { GraphEvent, WorkerReply, WorkerRequest } from './protocol.js';

/** Longest run of inserts before requests are looked at again (an insert into 100k passages takes ~3 ms). */
const SLICE_MS = 8;
/** How often owners idle since a change are checked for a time-based checkpoint. */
const CHECKPOINT_TICK_MS = 1000;

const port = parentPort;
if (!port) throw new Error('src/vector/hnsw/worker.ts runs as a worker thread only');

/**
 * The thread's nice value (Linux keeps one per thread): on a machine with as many busy threads as cores,
 * a build or an ingest backlog here would otherwise take its full share of a core from the event loop.
 * Measured with bench:search at 30,000 passages: another owner's probe p99 during the big owner's ingest
 * went from 4.2x to 1.1x the small-owner baseline, and the big owner's search latency did not change.
 */
const NICE = 10;

try {
  setPriority(NICE);
} catch {
  // Not permitted here: the worker runs at the service's own priority.
}

const graphs = new Map<number, OwnerGraph>();
let turn: number[] = [];
let scheduled = false;

const send = (reply: WorkerReply) => port.postMessage(reply);
const emit = (event: GraphEvent) => send(event);

port.on('message', (request: WorkerRequest) => {
  try {
    handle(request);
  } catch (error) {
    if ('id' in request) send({ id: request.id, error: error instanceof Error ? error.message : String(error) });
    else emit({ event: 'error', owner: request.owner, what: request.type, message: String(error) });
  }
  schedule();
});

setInterval(() => {
  const now = performance.now();
  for (const graph of graphs.values()) graph.maybeCheckpoint(now);
}, CHECKPOINT_TICK_MS).unref();

function handle(request: WorkerRequest): void {
  const graph = request.type === 'open' ? undefined : graphs.get(request.owner);
  switch (request.type) {
    case 'open':
      graphs.set(request.owner, new OwnerGraph(request, (event) => (emit(event), schedule())));
      return;
    case 'buffers':
      return graph?.setBuffers(request.buffers);
    case 'publish':
      return graph?.publish(request.upTo);
    case 'delete':
      return graph?.remove(request.labels);
    case 'revive':
      return graph?.revive(request.labels);
    case 'search':
      return send({ id: request.id, value: need(graph, request.owner).search(request) });
    case 'settled':
      return void need(graph, request.owner).settled().then(() => send({ id: request.id, value: null }));
    case 'close':
      graphs.delete(request.owner);
      if (!graph) return send({ id: request.id, value: null });
      return void graph.close(request.persist).then(
        () => send({ id: request.id, value: null }),
        (error: unknown) => send({ id: request.id, error: String(error) }),
      );
  }
}

function need(graph: OwnerGraph | undefined, owner: number): OwnerGraph {
  if (!graph) throw new Error(`no vector index is open for owner ${owner}`);
  return graph;
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  // A macrotask: requests that arrived meanwhile are answered before the next slice.
  setImmediate(step);
}

/** One slice of inserts for the next owner in turn that has labels waiting. */
function step(): void {
  scheduled = false;
  if (turn.length === 0) turn = [...graphs.keys()];
  while (turn.length > 0) {
    const owner = turn.shift()!;
    const graph = graphs.get(owner);
    if (!graph?.pending) continue;
    try {
      graph.work(performance.now() + SLICE_MS);
    } catch (error) {
      emit({ event: 'error', owner, what: 'add to vector index', message: String(error) });
    }
    break;
  }
  if ([...graphs.values()].some((g) => g.pending)) schedule();
}

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface HnswParams {
  m: number;
  efConstruction: number;
}

/** The graph every owner's index is built with (docs/search.md: recall@10 0.974 at ef 400 on 100k passages). */
export const HNSW_DEFAULTS: HnswParams = { m: 32, efConstruction: 200 };

/**
 * Builds an hnswlib-node index off the event loop (a 100k build takes about a minute) and writes it to
 * `file`. The worker runs plain JavaScript given as source, so it works the same under tsx, vitest and the
 * compiled build.
 */
export function buildHnswFile(args: {
  file: string;
  dims: number;
  labels: Int32Array;
  vectors: Float32Array;
  params: HnswParams;
}): Promise<void> {
  const modulePath = createRequire(import.meta.url).resolve('hnswlib-node');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { ...args, modulePath },
    transferList: [args.labels.buffer as ArrayBuffer, args.vectors.buffer as ArrayBuffer],
  });
  return new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`hnsw build worker exited with ${code}`))));
  });
}

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { HierarchicalNSW } = require(workerData.modulePath);
const { file, dims, labels, vectors, params } = workerData;
const index = new HierarchicalNSW('ip', dims);
index.initIndex({ maxElements: Math.max(16, labels.length), m: params.m, efConstruction: params.efConstruction, randomSeed: 100 });
const point = new Array(dims);
for (let i = 0; i < labels.length; i++) {
  for (let d = 0; d < dims; d++) point[d] = vectors[i * dims + d];
  index.addPoint(point, labels[i]);
}
index.writeIndexSync(file);
parentPort.postMessage('done');
`;

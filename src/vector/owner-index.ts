import { canRead } from '../domain/access.js';
import { bestPerDocument, type PassageHit } from '../domain/search.js';
import type { Modality } from '../domain/documents.js';
import type { PoolStats } from '../domain/fusion.js';
import { distanceTo, exactSearch, sampledSimilarity } from './exact.js';
import type { CheckpointPolicy, GraphEvent, HnswParams, Neighbours } from './hnsw/protocol.js';
import type { RemoteGraph, VectorWorker } from './hnsw/vector-worker.js';
import { flagsOf, LabelFlag, LabelTable, labelPredicate, modalityCode, type LabelFilter } from './label-table.js';

export interface VectorIndexOptions extends HnswParams {
  dims: number;
  embedderId: string;
  /** At or below this many candidate passages, search is exact (chosen by bench/search.ts). */
  exactMax: number;
  /** hnswlib search breadth. */
  ef: number;
  /** Index file path without extension; `.hnsw` and `.json` are written beside it. */
  filePath: string;
  /** The node's vector worker, where an index above `exactMax` passages lives. */
  worker: VectorWorker;
  checkpoint: CheckpointPolicy;
  onError(error: unknown, what: string): void;
  /** Told what the worker did with the owner's file (loaded from a checkpoint, built anew, checkpointed). */
  onEvent?(event: GraphEvent): void;
}

/** What a filter needs to know of a document. */
export interface IndexedDoc {
  modality: Modality;
  readers: string[] | null;
  deleted: boolean;
  labels: number[];
}

export interface SearchFilter {
  principal: string;
  modality?: Modality | undefined;
  maxDistance?: number | undefined;
}

/** Above this many passages, the pool's similarity stats are estimated from an even sample of this size. */
const STATS_SAMPLE = 4096;

/**
 * One owner's passages: every vector and a flags byte per label in shared memory (src/vector/label-table.ts)
 * and, above `exactMax` passages, an hnswlib index in the node's vector worker, which reads those buffers:
 * nothing proportional to the owner's size runs on the event loop but one pass of the fill. The worker adds
 * labels in the background and searches the ones it has not added yet exactly, so a write is searchable
 * once `putDoc` returns. Soft deletes, modality and readers are flags (so a restore is instant); a hard
 * delete clears the label and marks it deleted in hnswlib. Labels are never reused, so a checkpoint file
 * is brought up to date by adding the labels above its `covers` mark.
 */
export class OwnerVectorIndex {
  private readonly table: LabelTable;
  private readonly docOf: Array<string | undefined> = [];
  private readonly docs = new Map<string, IndexedDoc>();
  private readonly restrictedDocs = new Map<string, IndexedDoc>();
  private live = 0;
  private visible = 0;
  private restricted = 0;
  private readonly visibleByModality: Record<Modality, number> = { text: 0, image: 0, audio: 0 };
  private remote: RemoteGraph | null = null;
  private closed = false;
  /**
   * The owner's stored passages left out of this index because another embedder made them (set when it is
   * filled, src/vector/indexes.ts): searching them beside this embedder's vectors would compare two spaces.
   */
  foreign: { passages: number; embedders: string[] } | null = null;
  /** Where the worker's index came from: the `covers` mark of the checkpoint it loaded, or null (built anew). */
  loadedFrom: number | null | undefined;

  constructor(private readonly options: VectorIndexOptions) {
    this.table = new LabelTable(options.dims);
  }

  get size(): number {
    return this.live;
  }

  /** Whether searches go through hnswlib in the worker (else exact, here). */
  get approximate(): boolean {
    return this.remote !== null;
  }

  /**
   * Bytes this index holds in memory, roughly: the shared buffers as allocated, ~24 B per label slot, ~600 B
   * per document (its filter facts and labels; measured with 50,000 documents), and per hnswlib element in
   * the worker its vector, its level-0 links and ~560 B more (measured: 2,355 B per element at 384
   * dimensions and M=32).
   */
  get residentBytes(): number {
    const { dims, m } = this.options;
    const hnsw = this.remote ? this.live * (dims * 4 + 8 * m + 564) : 0;
    return this.table.byteLength + this.docOf.length * 24 + this.docs.size * 600 + hnsw;
  }

  /** Resolves once the worker has added every label written so far (and loaded its file). */
  async settled(): Promise<void> {
    await this.remote?.settled();
  }

  /** Adds or replaces a document's passages and filter facts. */
  putDoc(docId: string, doc: Omit<IndexedDoc, 'labels'>, passages?: Array<{ label: number; vector: Float32Array }>): void {
    const previous = this.docs.get(docId);
    if (previous) this.count(previous, -1);
    const labels = passages ? passages.map((p) => p.label) : (previous?.labels ?? []);
    const next: IndexedDoc = { ...doc, labels };
    const below = this.docOf.length;
    // A label below the ones the worker has seen that gains a vector (another embedder's passage re-embedded).
    const revived: number[] = [];
    for (const { label, vector } of passages ?? []) if (this.addVector(label, docId, vector) && label < below) revived.push(label);
    const flags = flagsOf(next);
    for (const label of labels) if (this.docOf[label] !== undefined) this.table.flags[label] = flags;
    this.docs.set(docId, next);
    this.restrictedDocs.delete(docId);
    if (next.readers !== null) this.restrictedDocs.set(docId, next);
    this.count(next, +1);
    if (revived.length) this.remote?.revive(revived);
    if (passages?.length) this.remote?.publish(this.docOf.length);
  }

  /** Removes a document for good (hard delete). */
  removeDoc(docId: string): void {
    const doc = this.docs.get(docId);
    if (!doc) return;
    this.count(doc, -1);
    this.docs.delete(docId);
    this.restrictedDocs.delete(docId);
    const gone = doc.labels.filter((label) => this.docOf[label] !== undefined);
    for (const label of gone) {
      this.docOf[label] = undefined;
      this.table.flags[label] = 0;
      this.live--;
    }
    this.remote?.remove(gone);
  }

  /** The best passage of each matching document, best first, at most `k`. */
  async search(query: Float32Array, k: number, filter: SearchFilter): Promise<PassageHit[]> {
    return (await this.find(query, k, filter, undefined)).hits;
  }

  /**
   * `search`, and the mean and spread of the query's cosine similarity over the owner's passages (every one
   * up to STATS_SAMPLE, an even sample of that many above it: a z-score needs the spread, not every
   * value), in one trip to the worker for a large owner (hybrid ranking needs both).
   */
  async searchWithStats(query: Float32Array, k: number, filter: SearchFilter): Promise<{ hits: PassageHit[]; stats: PoolStats }> {
    const { hits, stats } = await this.find(query, k, filter, Math.max(1, Math.floor(this.live / STATS_SAMPLE)));
    return { hits, stats: stats! };
  }

  private async find(query: Float32Array, k: number, filter: SearchFilter, statsStride: number | undefined): Promise<{ hits: PassageHit[]; stats?: PoolStats }> {
    const candidates = filter.modality ? this.visibleByModality[filter.modality] : this.visible;
    let wanted = candidates === 0 || k <= 0 ? 0 : Math.min(candidates, k * 2);
    if (wanted === 0 && statsStride === undefined) return { hits: [] };
    let stats: PoolStats | undefined;
    for (;;) {
      const found = await this.searchPassages(query, wanted, candidates, filter, stats ? undefined : statsStride);
      stats ??= found.stats;
      const { passages } = found;
      const hits = bestPerDocument(passages, k, filter.maxDistance);
      const exhausted = passages.length < wanted || wanted >= candidates;
      const farEnough = filter.maxDistance !== undefined && (passages.at(-1)?.distance ?? 0) > filter.maxDistance;
      if (hits.length >= k || exhausted || farEnough) return { hits, ...(stats ? { stats } : {}) };
      wanted = Math.min(candidates, wanted * 4);
    }
  }

  /** Whether a readable, live document with the filter's modality (the lexical index asks, src/search). */
  allowsDoc(docId: string, filter: SearchFilter): boolean {
    const doc = this.docs.get(docId);
    return !!doc && !doc.deleted && (!filter.modality || doc.modality === filter.modality) && canRead(doc.readers, filter.principal);
  }

  /** The cosine distance of one passage to the query; undefined when this index holds no vector for it. */
  distanceOf(label: number, query: Float32Array): number | undefined {
    return this.docOf[label] === undefined ? undefined : distanceTo(this.table.vectors, this.options.dims, label, query);
  }

  /**
   * Writes what changed since the worker's last checkpoint and drops the worker's index (eviction, shutdown);
   * with `persist` false nothing is written (the owner is being erased: its file is removed next).
   */
  async close(persist = true): Promise<void> {
    this.closed = true;
    const remote = this.remote;
    this.remote = null;
    try {
      await remote?.close(persist);
    } catch (error) {
      this.options.onError(error, 'persist vector index');
    }
  }

  /**
   * Opens the owner's index in the vector worker once the owner is large enough: it loads the checkpoint
   * file and adds the labels above its mark, or builds one from every label, in the background. A file is
   * reused only while the owner has as many foreign passages as when it was written: re-embedding turns
   * foreign labels below its mark into this embedder's, and the file lacks them. Called after
   * writes and after a bulk load (never in the middle of one, so the worker sees whole documents).
   */
  maybeBuild(): void {
    if (this.remote || this.closed || this.live <= this.options.exactMax) return;
    const { worker, filePath, embedderId, dims, m, efConstruction, ef, checkpoint } = this.options;
    this.remote = worker.open(
      { filePath, meta: { embedderId, dims, foreign: this.foreign?.passages ?? 0 }, params: { m, efConstruction }, ef, buffers: this.table.buffers, upTo: this.docOf.length, checkpoint },
      {
        event: (event) => {
          if (event.event === 'opened') this.loadedFrom = event.covers;
          if (event.event === 'error') this.options.onError(new Error(event.message), event.what);
          this.options.onEvent?.(event);
        },
        lost: (reason) => {
          this.options.onError(new Error(reason), 'vector worker');
          this.remote = null;
          this.maybeBuild();
        },
      },
    );
  }

  private async searchPassages(
    query: Float32Array,
    wanted: number,
    candidates: number,
    filter: SearchFilter,
    statsStride: number | undefined,
  ): Promise<{ passages: PassageHit[]; stats?: PoolStats }> {
    const labelFilter = this.labelFilter(filter);
    if (!this.remote) {
      const allow = labelPredicate(this.table.flags, labelFilter);
      const hits = wanted > 0 ? exactSearch(this.table.vectors, this.options.dims, labelsBelow(this.docOf.length, allow), query, wanted) : [];
      const passages = hits.map((h) => ({ ...h, docId: this.docOf[h.label]! }));
      if (statsStride === undefined) return { passages };
      return { passages, stats: sampledSimilarity(this.table.vectors, this.table.flags, this.options.dims, this.docOf.length, statsStride, query) };
    }
    const filtered = candidates !== this.live || this.restricted !== 0;
    const exact = candidates <= this.options.exactMax;
    const found = await this.remote.search({ query, wanted, upTo: this.docOf.length, filter: labelFilter, filtered, exact, ...(statsStride === undefined ? {} : { statsStride }) });
    return { passages: this.hitsOf(found), ...(found.stats ? { stats: found.stats } : {}) };
  }

  /** Neighbours whose document still exists here (a hard delete may have landed while the worker searched). */
  private hitsOf(found: Neighbours): PassageHit[] {
    const hits: PassageHit[] = [];
    found.labels.forEach((label, i) => {
      const docId = this.docOf[label];
      if (docId !== undefined) hits.push({ label, docId, distance: found.distances[i]! });
    });
    return hits;
  }

  /** The filter as flags: the modality's code, and the restricted labels this principal may read. */
  private labelFilter(filter: SearchFilter): LabelFilter {
    let readable: number[] | null = null;
    if (this.restricted > 0) {
      readable = [];
      for (const doc of this.restrictedDocs.values()) if (!doc.deleted && canRead(doc.readers, filter.principal)) readable.push(...doc.labels);
    }
    return { modality: filter.modality ? modalityCode(filter.modality) : -1, readable: readable && Int32Array.from(readable) };
  }

  /** Stores a label's vector; true when the label was not live before. */
  private addVector(label: number, docId: string, vector: Float32Array): boolean {
    const { dims } = this.options;
    if (vector.length !== dims) return false;
    if (this.table.ensure(label)) this.remote?.buffers(this.table.buffers);
    this.table.vectors.set(vector, label * dims);
    const fresh = this.docOf[label] === undefined;
    if (fresh) this.live++;
    while (this.docOf.length <= label) this.docOf.push(undefined);
    this.docOf[label] = docId;
    this.table.flags[label] = LabelFlag.live;
    return fresh;
  }

  private count(doc: IndexedDoc, sign: 1 | -1): void {
    if (doc.deleted) return;
    const n = sign * doc.labels.length;
    this.visible += n;
    this.visibleByModality[doc.modality] += n;
    if (doc.readers !== null) this.restricted += n;
  }
}

function* labelsBelow(upTo: number, allow: (label: number) => boolean): Generator<number> {
  for (let label = 0; label < upTo; label++) if (allow(label)) yield label;
}

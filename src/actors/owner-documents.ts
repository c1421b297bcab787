import type { DocumentLimits, MediaRoute } from '../config.js';
import { canRead } from '../domain/access.js';
import { indexedText, newDocument, restored, softDeleted, type NewDocument } from '../domain/document-records.js';
import type { StoredDocument } from '../domain/documents.js';
import type { EmbedderOrigin } from '../domain/reembed.js';
import type { Scope } from '../domain/scope.js';
import { notFound } from '../errors.js';
import { searchIndexes, type SearchMode, type SearchRequest } from '../search/modes.js';
import type { DocumentStore, EmbeddedText } from '../store/documents.js';
import { embedTexts, indexable } from './document-embedding.js';
import type { Embedder } from '../vector/embedder.js';
import type { OwnerIndexes, VectorIndexes } from '../vector/indexes.js';
import type { OwnerVectorIndex } from '../vector/owner-index.js';

/** What every owner's documents part is built from (one of each per node). */
export interface OwnerDocumentsDeps {
  docs: DocumentStore;
  embedder: Embedder;
  indexes: VectorIndexes;
  /** Set when the node's semantic model failed to load (the hashing fallback runs): why. Searches are then lexical. */
  semanticUnavailable?: string | undefined;
  /**
   * Told when an owner's indexes open and the vector index leaves passages out because another embedder
   * made them (`foreign`), so the node can start re-embedding them (src/temporal/reembed.ts). Absent: nothing starts.
   */
  onForeignPassages?: (scope: Scope) => void;
}


/** Runs the captioning/transcription workflow for staged media and resolves once its text is indexed. */
export interface MediaCaptioner {
  /** Throws AppError 502 when the provider failed after retries, 503 when the job system is down. */
  caption(input: { scope: Scope; docId: string; route: string }): Promise<void>;
}

/** What the document, media and search routes need besides the owners' documents parts. */
export interface DocumentServices {
  docs: DocumentStore;
  embedder: Embedder;
  /** Whose passages are the node's own (what an export names the embedder of a passage stored without one). */
  origin: EmbedderOrigin;
  limits: DocumentLimits;
  mediaRoutes: MediaRoute[];
  /** Absent where no job system is wired; media without caller text then answers 503. */
  captioner?: MediaCaptioner | undefined;
}

/** How the owner's actor runs this part's writes. */
export interface DocumentWrites {
  /** Runs `decide` in the owner's order inside one LMDB write transaction, with the commit instant. */
  transaction<T>(decide: (now: number) => T): Promise<T>;
  /** Counts `work` as the owner's own until it ends, so the actor is neither dropped nor duplicated meanwhile. */
  hold<T>(work: Promise<T>): Promise<T>;
}

/** A search hit before it is shaped for HTTP; `distance` is null only when no vector of the query's space exists. */
export interface DocumentHit {
  doc: StoredDocument;
  distance: number | null;
  score: number;
  passage: string;
}

/** The hits of one search, with the mode that answered and why it is not the one asked, when it is not. */
export interface DocumentSearchResult {
  hits: DocumentHit[];
  mode: SearchMode;
  reason?: string;
}

/**
 * The documents part of an owner's actor, with the owner's vector and lexical indexes, which it owns: opened from LMDB
 * on first search (or hard delete), closed (its changed file written back) when the actor is evicted or the node stops.
 * Writes embed first (outside the transaction, so one owner's uploads embed in parallel), then commit the
 * document, its passages and every write hook in one transaction, and only then touch the indexes when they
 * are open, so a 201 is searchable and a failed write leaves the index untouched. Searches read the index directly.
 */
export class OwnerDocuments {
  private index: Promise<OwnerIndexes> | undefined;
  private loaded: OwnerIndexes | undefined;
  /** Passages committed while the indexes were closed (see `indexDoc`). */
  private unindexed = 0;

  constructor(
    private readonly scope: Scope,
    private readonly writes: DocumentWrites,
    private readonly deps: OwnerDocumentsDeps,
    /** Told whenever the bytes held change (the registry's budget re-charges the actor). */
    private readonly resized: () => void,
  ) {}

  get residentBytes(): number {
    return (this.loaded?.vector.residentBytes ?? 0) + (this.loaded?.lexical.residentBytes ?? 0);
  }

  /** Stores a new document (and its original bytes, for media; the store seals them). */
  insert(input: NewDocument, bytes?: Uint8Array): Promise<StoredDocument> {
    return this.held(async () => {
      const embedded = await this.embed(indexedText(input));
      const { doc, labels } = await this.writes.transaction((now) => {
        const doc = newDocument(input, now);
        return { doc, labels: this.deps.docs.insert(this.scope, doc, embedded, bytes) };
      });
      await this.indexDoc(doc, indexable(labels, embedded));
      return doc;
    });
  }

  /**
   * Stores several documents all or nothing (`POST /v1/documents/batch`): every passage of every document is
   * embedded in one call, which the model serves in token-capped batches, then one transaction commits them.
   */
  insertMany(inputs: NewDocument[]): Promise<StoredDocument[]> {
    return this.held(async () => {
      const embedded = await embedTexts(this.deps.embedder, inputs.map(indexedText));
      const written = await this.writes.transaction((now) =>
        inputs.map((input, i) => {
          const doc = newDocument(input, now);
          return { doc, labels: this.deps.docs.insert(this.scope, doc, embedded[i]!) };
        }),
      );
      for (const [i, { doc, labels }] of written.entries()) await this.indexDoc(doc, indexable(labels, embedded[i]!));
      return written.map(({ doc }) => doc);
    });
  }

  softDelete(docId: string, principal: string): Promise<StoredDocument> {
    return this.change(docId, principal, softDeleted);
  }

  restore(docId: string, principal: string): Promise<StoredDocument> {
    return this.change(docId, principal, restored);
  }

  hardDelete(docId: string, principal: string): Promise<void> {
    return this.held(async () => {
      const labels = await this.writes.transaction(() => this.deps.docs.hardDelete(this.scope, this.readable(docId, principal)));
      const { vector, lexical } = await this.indexes();
      for (const label of labels) lexical.remove(label);
      vector.removeDoc(docId);
    });
  }

  /** Keeps media whose caption or transcript a workflow will derive; it is not a document yet. */
  async stagePending(input: NewDocument, bytes: Uint8Array): Promise<void> {
    await this.writes.transaction((now) => this.deps.docs.putPending(this.scope, { doc: newDocument(input, now), bytes }));
  }

  /** Turns staged media into a document with its derived text (idempotent: a retry finds it done). */
  completePending(docId: string, derivedText: string, derivedBy: string): Promise<StoredDocument> {
    return this.held(async () => {
      const pending = this.deps.docs.getPending(this.scope, docId);
      if (!pending) {
        const done = this.deps.docs.get(this.scope, docId);
        if (done) return done;
        throw notFound(`pending media ${docId}`);
      }
      const embedded = await this.embed(derivedText);
      const result = await this.writes.transaction((now) => {
        const staged = this.deps.docs.getPending(this.scope, docId);
        if (!staged) return null;
        const doc: StoredDocument = { ...staged.doc, derived_text: derivedText, derived_by: derivedBy, created_at: now, updated_at: now };
        const labels = this.deps.docs.insert(this.scope, doc, embedded, staged.bytes);
        this.deps.docs.removePending(this.scope, docId);
        return { doc, labels };
      });
      if (!result) return this.completePending(docId, derivedText, derivedBy);
      await this.indexDoc(result.doc, indexable(result.labels, embedded));
      return result.doc;
    });
  }

  async discardPending(docId: string): Promise<void> {
    await this.writes.transaction(() => this.deps.docs.removePending(this.scope, docId));
  }

  /** The best `k` documents for a query, each with its best passage, in the mode asked when it can serve. */
  async search(request: SearchRequest): Promise<DocumentSearchResult> {
    // An owner that never stored a passage has nothing to find: no index is opened for it.
    if (!this.index && !this.deps.docs.hasPassages(this.scope)) return { hits: [], mode: request.mode };
    const { embedder, semanticUnavailable } = this.deps;
    const outcome = await searchIndexes(await this.indexes(), request, { embedderId: embedder.id, semanticUnavailable });
    const hits = outcome.hits.flatMap((hit) => {
      const doc = this.deps.docs.get(this.scope, hit.docId);
      const passage = this.deps.docs.passage(this.scope, hit.label);
      if (!doc || doc.deleted_at !== null || !canRead(doc.readers, request.filter.principal)) return [];
      return [{ doc, distance: hit.distance, score: hit.score, passage: passage?.text ?? '' }];
    });
    return { ...outcome, hits };
  }

  /** The owner's vector index (opened with the lexical one on first use). */
  async vectorIndex(): Promise<OwnerVectorIndex> {
    return (await this.indexes()).vector;
  }

  /**
   * The owner's indexes, opened on first use. Callers awaiting one opening share it and resume in
   * the order they asked, so writes are applied to the opened indexes in their commit order.
   */
  indexes(): Promise<OwnerIndexes> {
    return this.index ?? this.track(this.deps.indexes.open(this.scope));
  }

  /**
   * Replaces the open indexes (none open: nothing to do) by ones filled anew from LMDB, without a restart:
   * once the owner's passages are re-embedded, the new vector index holds them all. The old one is closed
   * first, so its file is written before the new one looks at it. Writes committing meanwhile reach the
   * new indexes as they reach ones being opened.
   */
  async reloadIndexes(): Promise<void> {
    const previous = this.index;
    if (!previous) return;
    await this.track(
      previous.catch(() => undefined).then((old) => {
        old?.vector.close();
        return this.deps.indexes.open(this.scope);
      }),
    );
  }

  /** Resolves once the index (when open) has finished any load or build under way. */
  async settled(): Promise<void> {
    await (await this.index?.catch(() => undefined))?.vector.settled();
  }

  /**
   * Closes the index, writing its changed file back (unless `persist` is false: the owner is being
   * erased), and forgets it (the actor was evicted, or shutdown).
   */
  async unload(persist = true): Promise<void> {
    const opening = this.index;
    this.index = undefined;
    this.loaded = undefined;
    this.unindexed = 0;
    await (await opening?.catch(() => undefined))?.vector.close(persist);
  }

  private change(docId: string, principal: string, next: (doc: StoredDocument, now: number) => StoredDocument): Promise<StoredDocument> {
    return this.held(async () => {
      const doc = await this.writes.transaction((now) => {
        const previous = this.readable(docId, principal);
        const changed = next(previous, now);
        if (changed !== previous) this.deps.docs.update(this.scope, previous, changed);
        return changed;
      });
      await this.indexDoc(doc);
      return doc;
    });
  }

  /** The document when it exists in scope and the principal may read it; otherwise it does not exist. */
  private readable(docId: string, principal: string): StoredDocument {
    const doc = this.deps.docs.get(this.scope, docId);
    if (!doc || !canRead(doc.readers, principal)) throw notFound(`document ${docId}`);
    return doc;
  }

  /**
   * Applies a committed write to the owner's indexes when they are open (or opening: they then take it once
   * filled). Closed indexes stay closed (whenever they open, they are filled from LMDB, which holds the write
   * already) until the passages written meanwhile could take the vector index past exact search: an owner
   * ingesting that much gets its hnswlib index built, and checkpointed, as it grows. A new owner's first
   * document used to open them, reading back what it had just written, for an owner seldom searched while
   * it is resident (issue 16).
   */
  private async indexDoc(doc: StoredDocument, passages?: Array<{ label: number; vector: Float32Array; text: string }>): Promise<void> {
    if (!this.index) {
      this.unindexed += passages?.length ?? 0;
      if (this.unindexed <= this.deps.indexes.exactMax) return;
    }
    const indexes = await this.indexes();
    for (const { label, text } of passages ?? []) indexes.lexical.add(label, doc.doc_id, text);
    indexes.vector.putDoc(doc.doc_id, { modality: doc.modality, readers: doc.readers, deleted: doc.deleted_at !== null }, passages);
    indexes.vector.maybeBuild();
    if (this.loaded === indexes) this.indexed(indexes);
  }

  /** Makes `opening` the owner's indexes; once open they are weighed, and foreign passages reported. */
  private track(opening: Promise<OwnerIndexes>): Promise<OwnerIndexes> {
    this.index = opening;
    this.writes.hold(opening).then(
      (indexes) => {
        if (this.index !== opening) return;
        this.indexed(indexes);
        if (indexes.vector.foreign) this.deps.onForeignPassages?.(this.scope);
      },
      () => {
        if (this.index === opening) this.index = undefined;
      },
    );
    return opening;
  }

  /** The indexes grew (opened, written to): re-weigh the owner. */
  private indexed(indexes: OwnerIndexes): void {
    this.loaded = indexes;
    // The vector index weighs its hnswlib elements from the moment it opens in the worker (not once they are
    // all added), so no later re-weighing is needed; waiting on the worker per write would queue a waiter each.
    this.resized();
  }

  private held<T>(work: () => Promise<T>): Promise<T> {
    return this.writes.hold(work());
  }

  private async embed(text: string): Promise<EmbeddedText> {
    return (await embedTexts(this.deps.embedder, [text]))[0]!;
  }
}

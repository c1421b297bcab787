import type { DocumentWriteHook, StoredDocument } from '../domain/documents.js';
import type { Scope } from '../domain/scope.js';
import { canRead } from '../domain/access.js';
import { isSealed } from './sealed.js';
import { hasKeyUnder, KEY_MAX, keyPages, keysUnder, scopeKey, type Key, type Store } from './lmdb.js';

/** One embedded passage as stored: its document, its text and its vector (float32 bytes). */
export interface PassageRecord {
  doc_id: string;
  text: string;
  vector: Uint8Array;
  /**
   * The embedder that made `vector` (its id). Absent on passages stored before records carried it: those
   * were made by the hashing embedder or a provider, never by the local model, which came later.
   */
  embedder?: string;
}

/** What a document's text became: its passages and their vectors, and the embedder that made them. */
export interface EmbeddedText {
  passages: string[];
  vectors: Float32Array[];
  embedder: string;
}

/** Media waiting for its caption or transcript (the captioning workflow reads it by id): the record and its bytes. */
export interface PendingMedia {
  doc: StoredDocument;
  bytes: Uint8Array;
}

/**
 * Staged media as stored: sealed whole under the owner's key (then `bytes`), or in clear with the bytes
 * sealed by the tenant key (`sealed`: with encryption at rest off, and before owner keys).
 */
type StoredPending = { doc: StoredDocument; bytes: Uint8Array } | { doc: StoredDocument; sealed: Uint8Array };

/**
 * Documents in LMDB. Writers run inside `Store.transaction`, so a document, its blob, its passages, its
 * index entries and every `DocumentWriteHook` commit together.
 *
 * Under the owner's scope:
 *   records: doc/<id> → StoredDocument   blob/<id> → media bytes      dvec/<id> → passage labels
 *            psg/<label> → PassageRecord  vseq → next passage label  pending/<id> → PendingMedia
 *   index:   d_created/<created_at>/<id>  (newest first by reading backwards)
 * and, outside every scope, index [0, 'pending', staged_at, ...scope, id] for the sweep of abandoned media.
 *
 * `DocumentRecords` is the read side. It is built from the Store alone, so readers (the query engine) can
 * take it before the DocumentStore, which is built with their write hooks, exists.
 */
export class DocumentRecords {
  constructor(protected readonly store: Store) {}

  get(scope: Scope, docId: string): StoredDocument | undefined {
    return this.store.content.get<StoredDocument>([...scopeKey(scope), 'doc', docId]);
  }

  /** The records of several documents, in the order asked (undefined where one does not exist). */
  getMany(refs: ReadonlyArray<{ scope: Scope; docId: string }>): Array<StoredDocument | undefined> {
    return refs.map(({ scope, docId }) => this.get(scope, docId));
  }

  /** The scope's documents the principal may read, newest first. */
  list(scope: Scope, query: { principal: string; limit: number; offset: number; includeDeleted: boolean }): StoredDocument[] {
    const out: StoredDocument[] = [];
    let skip = query.offset;
    for (const key of keysUnder(this.store.index, [...scopeKey(scope), 'd_created'], { reverse: true })) {
      const doc = this.get(scope, String(key.at(-1)));
      if (!doc || (!query.includeDeleted && doc.deleted_at !== null) || !canRead(doc.readers, query.principal)) continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      out.push(doc);
      if (out.length >= query.limit) break;
    }
    return out;
  }

  /**
   * A page of a whole tenant's documents, in key order (partition, owner, creation), resumable: pass
   * the `cursor` a page returned to read the next (null when none is left). Skips from owner to owner
   * over their other index entries (facts, edges), so its cost follows the documents, not the tenant.
   */
  tenantDocuments(tenant: string, after: Key | null, limit: number): { docs: StoredDocument[]; cursor: Key | null } {
    const docs: StoredDocument[] = [];
    let last: Key | null = after;
    // A key that extends `after` sorts right after it: the page starts past the cursor.
    let start: Key = after ? [...after, ''] : [tenant];
    for (;;) {
      const first = firstKey(this.store.index.getKeys({ start, end: [tenant, KEY_MAX], limit: 1 }));
      if (!first) return { docs, cursor: null };
      const scope = first.slice(0, 3);
      const kind = first[3];
      if (first.length < 4 || typeof kind !== 'string' || kind < 'd_created') {
        start = [...scope, 'd_created'];
        continue;
      }
      if (kind === 'd_created') {
        const wanted = limit - docs.length;
        let read = 0;
        for (const key of this.store.index.getKeys({ start: first, end: [...scope, 'd_created', KEY_MAX], limit: wanted })) {
          const doc = this.store.content.get<StoredDocument>([...scope, 'doc', String((key as Key).at(-1))]);
          if (doc) docs.push(doc);
          last = key as Key;
          read++;
        }
        if (read === wanted) return { docs, cursor: last };
      }
      start = [...scope, KEY_MAX];
    }
  }

  /** A media document's original bytes (opened: sealed under the owner's key, or with the tenant key before). */
  getBlob(scope: Scope, docId: string): Uint8Array | undefined {
    const key = [...scopeKey(scope), 'blob', docId];
    const stored = this.store.records.get(key) as Uint8Array | undefined;
    if (stored === undefined) return undefined;
    return isSealed(stored) ? (this.store.content.open(key, stored) as Uint8Array) : this.store.blobs.open(scope.tenant, docId, stored);
  }

  passage(scope: Scope, label: number): PassageRecord | undefined {
    return this.store.content.get<PassageRecord>([...scopeKey(scope), 'psg', label]);
  }

  /** A document's passages in their order (the order of its text). */
  passagesOf(scope: Scope, docId: string): PassageRecord[] {
    const labels = (this.store.records.get([...scopeKey(scope), 'dvec', docId]) as number[] | undefined) ?? [];
    return labels.flatMap((label) => this.passage(scope, label) ?? []);
  }

  /**
   * The owner's documents (soft-deleted ones included) in id order, `size` per page, each page from a fresh
   * snapshot (`keyPages`): a reader that waits between pages (a stream to a slow client) holds none open.
   */
  async *documentPages(scope: Scope, size: number): AsyncGenerator<StoredDocument[]> {
    for await (const keys of keyPages(this.store.records, [...scopeKey(scope), 'doc'], size)) {
      yield keys.flatMap((key) => this.get(scope, String(key.at(-1))) ?? []);
    }
  }

  /** Whether the owner has any document, or media waiting for its caption. */
  hasRecords(scope: Scope): boolean {
    const s = scopeKey(scope);
    return hasKeyUnder(this.store.records, [...s, 'doc']) || hasKeyUnder(this.store.records, [...s, 'pending']);
  }
}

function firstKey(keys: Iterable<unknown>): Key | undefined {
  for (const key of keys) return key as Key;
  return undefined;
}

/** The records and their writes (layout above); every write runs the write hooks inside its transaction. */
export class DocumentStore extends DocumentRecords {
  constructor(
    store: Store,
    private readonly hooks: readonly DocumentWriteHook[],
  ) {
    super(store);
  }

  /** Inside a transaction: stores a new document with its passages and blob; returns the passage labels. */
  insert(scope: Scope, doc: StoredDocument, { passages, vectors, embedder }: EmbeddedText, bytes?: Uint8Array): number[] {
    const s = scopeKey(scope);
    const first = (this.store.records.get([...s, 'vseq']) as number | undefined) ?? 0;
    const labels = vectors.map((_, i) => first + i);
    for (const hook of this.hooks) hook.onDocumentWrite(undefined, doc);
    this.store.records.put([...s, 'vseq'], first + labels.length);
    this.store.content.put([...s, 'doc', doc.doc_id], doc);
    this.store.index.put([...s, 'd_created', doc.created_at, doc.doc_id], true);
    if (bytes) this.putBlob(scope, doc.doc_id, bytes);
    this.store.records.put([...s, 'dvec', doc.doc_id], labels);
    labels.forEach((label, i) => {
      const v = vectors[i]!;
      const record: PassageRecord = { doc_id: doc.doc_id, text: passages[i]!, vector: new Uint8Array(v.buffer, v.byteOffset, v.byteLength), embedder };
      this.store.content.put([...s, 'psg', label], record);
    });
    return labels;
  }

  /** Inside a transaction: a soft delete or a restore. */
  update(scope: Scope, previous: StoredDocument, next: StoredDocument): void {
    for (const hook of this.hooks) hook.onDocumentWrite(previous, next);
    this.store.content.put([...scopeKey(scope), 'doc', next.doc_id], next);
  }

  /** Inside a transaction: removes the document, its bytes, its passages and its index entries for good; returns the passages' labels. */
  hardDelete(scope: Scope, doc: StoredDocument): number[] {
    const s = scopeKey(scope);
    const labels = (this.store.records.get([...s, 'dvec', doc.doc_id]) as number[] | undefined) ?? [];
    for (const hook of this.hooks) hook.onDocumentWrite(doc, undefined);
    for (const label of labels) this.store.records.remove([...s, 'psg', label]);
    this.store.records.remove([...s, 'dvec', doc.doc_id]);
    this.store.records.remove([...s, 'blob', doc.doc_id]);
    this.store.records.remove([...s, 'doc', doc.doc_id]);
    this.store.index.remove([...s, 'd_created', doc.created_at, doc.doc_id]);
    return labels;
  }

  getPending(scope: Scope, docId: string): PendingMedia | undefined {
    const stored = this.store.content.get<StoredPending>([...scopeKey(scope), 'pending', docId]);
    if (!stored || 'bytes' in stored) return stored;
    return { doc: stored.doc, bytes: this.store.blobs.open(scope.tenant, docId, stored.sealed) };
  }

  putPending(scope: Scope, pending: PendingMedia): void {
    const { doc, bytes } = pending;
    const stored: StoredPending = this.store.content.encrypt ? pending : { doc, sealed: this.store.blobs.seal(scope.tenant, doc.doc_id, bytes) };
    this.store.content.put([...scopeKey(scope), 'pending', doc.doc_id], stored);
    this.store.index.put([...PENDING_BY_TIME, pending.doc.created_at, ...scopeKey(scope), pending.doc.doc_id], true);
  }

  removePending(scope: Scope, docId: string): void {
    const pending = this.getPending(scope, docId);
    if (!pending) return;
    this.store.records.remove([...scopeKey(scope), 'pending', docId]);
    this.store.index.remove([...PENDING_BY_TIME, pending.doc.created_at, ...scopeKey(scope), docId]);
  }

  /**
   * Removes media staged before `cutoff` whose captioning never finished (the process died while it was in
   * flight), so that a failed upload keeps nothing even then. Returns how many were removed.
   */
  async sweepPending(cutoff: number): Promise<number> {
    const stale: Array<{ scope: Scope; docId: string }> = [];
    for (const key of this.store.index.getKeys({ start: PENDING_BY_TIME, end: [...PENDING_BY_TIME, cutoff] })) {
      const [, , , tenant, partition, entityId, docId] = key as Key;
      stale.push({ scope: { tenant: String(tenant), partition: partition === '' ? null : String(partition), entityId: String(entityId) }, docId: String(docId) });
    }
    if (stale.length > 0) await this.store.transaction(() => stale.forEach(({ scope, docId }) => this.removePending(scope, docId)));
    return stale.length;
  }

  /** The media bytes of a document: sealed under the owner's key, or with the tenant key when encryption at rest is off. */
  private putBlob(scope: Scope, docId: string, bytes: Uint8Array): void {
    const stored = this.store.content.encrypt ? bytes : this.store.blobs.seal(scope.tenant, docId, bytes);
    this.store.content.put([...scopeKey(scope), 'blob', docId], stored);
  }

  /** Whether the owner ever stored a passage (a search of an owner without one needs no index). */
  hasPassages(scope: Scope): boolean {
    return ((this.store.records.get([...scopeKey(scope), 'vseq']) as number | undefined) ?? 0) > 0;
  }

  /**
   * Visits the owner's passages in label order. Like `scanDocuments`, it reads sequential ranges in chunks,
   * each from a fresh snapshot, and yields to the event loop between chunks, so reading a large owner does
   * not stall other requests; writes that commit meanwhile may or may not be visited.
   */
  scanPassages(scope: Scope, visit: (label: number, passage: PassageRecord) => void, chunk = SCAN_CHUNK): Promise<void> {
    return this.scan([...scopeKey(scope), 'psg'], chunk, (key, value) => visit(key.at(-1) as number, value as PassageRecord));
  }

  /** Visits the owner's documents (soft-deleted ones included) in id order, chunked as `scanPassages`. */
  scanDocuments(scope: Scope, visit: (doc: StoredDocument) => void, chunk = SCAN_CHUNK): Promise<void> {
    return this.scan([...scopeKey(scope), 'doc'], chunk, (_key, value) => visit(value as StoredDocument));
  }

  /** Visits `records` under `prefix` in chunks of `chunk`, each from a fresh snapshot, resuming after the last key. */
  private async scan(prefix: Key, chunk: number, visit: (key: Key, value: unknown) => void): Promise<void> {
    let start: Key = prefix;
    let skip: Key | null = null;
    for (;;) {
      let seen = 0;
      let last: Key | null = null;
      for (const { key: k, value } of this.store.content.range({ start, end: [...prefix, KEY_MAX], limit: chunk + 1 })) {
        if (skip && seen === 0 && k.length === skip.length && k.every((part, i) => part === skip![i])) continue;
        visit(k, value);
        last = k;
        if (++seen >= chunk) break;
      }
      if (seen < chunk || !last) return;
      start = last;
      skip = last;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/** Records read per snapshot by the scans: ~4,000 passages of 384 dimensions are ~6 MB. */
const SCAN_CHUNK = 4000;

/** Staged media by time, across scopes. A number first: tenant keys are strings, so it never meets a scope. */
const PENDING_BY_TIME: Key = [0, 'pending'];

/** Copies stored bytes into an aligned Float32Array. */
export function toFloat32(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

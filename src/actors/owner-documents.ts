import type { OwnerActor } from './owner-actor.js';
import { canRead } from '../domain/access.js';
import { indexedText, newDocument, restored, softDeleted, type NewDocument } from '../domain/document-records.js';
import type { StoredDocument } from '../domain/documents.js';
import { splitPassages } from '../domain/passages.js';
import type { Scope } from '../domain/scope.js';
import { scoreOf } from '../domain/search.js';
import { notFound } from '../errors.js';
import type { DocumentStore } from '../store/documents.js';
import type { Embedder } from '../vector/embedder.js';
import type { VectorIndexes } from '../vector/indexes.js';
import type { SearchFilter } from '../vector/owner-index.js';

export interface OwnerDocumentsDeps {
  docs: DocumentStore;
  indexes: VectorIndexes;
  embedder: Embedder;
}

/** The write entry point of the owning actor: runs `fn` in the owner's order inside one LMDB transaction. */
export type OwnerWrite = <T>(fn: (now: number) => T) => Promise<T>;

/** A search hit before it is shaped for HTTP. */
export interface DocumentHit {
  doc: StoredDocument;
  distance: number;
  score: number;
  passage: string;
}

/**
 * The document and vector part of an owner's actor. Writes embed first (outside the transaction), then
 * commit the document, its passages and every write hook in one transaction, and only then touch the
 * in-memory vector index, so a 201 is searchable and a failed write leaves the index untouched.
 */
export class OwnerDocuments {
  constructor(
    private readonly scope: Scope,
    private readonly write: OwnerWrite,
    private readonly deps: OwnerDocumentsDeps,
  ) {}

  /** Stores a new document (and its sealed original bytes, for media). */
  async insert(input: NewDocument, sealed?: Uint8Array): Promise<StoredDocument> {
    const { passages, vectors } = await this.embed(indexedText(input));
    const { doc, labels } = await this.write((now) => {
      const doc = newDocument(input, now);
      return { doc, labels: this.deps.docs.insert(this.scope, doc, vectors, passages, sealed) };
    });
    await this.indexDoc(doc, labels.map((label, i) => ({ label, vector: vectors[i]! })));
    return doc;
  }

  async softDelete(docId: string, principal: string): Promise<StoredDocument> {
    return this.change(docId, principal, softDeleted);
  }

  async restore(docId: string, principal: string): Promise<StoredDocument> {
    return this.change(docId, principal, restored);
  }

  async hardDelete(docId: string, principal: string): Promise<void> {
    await this.write(() => {
      const doc = this.readable(docId, principal);
      this.deps.docs.hardDelete(this.scope, doc);
    });
    (await this.deps.indexes.get(this.scope)).removeDoc(docId);
  }

  /** Keeps media whose caption or transcript a workflow will derive; it is not a document yet. */
  async stagePending(input: NewDocument, sealed: Uint8Array): Promise<void> {
    await this.write((now) => this.deps.docs.putPending(this.scope, { doc: newDocument(input, now), sealed }));
  }

  /** Turns staged media into a document with its derived text (idempotent: a retry finds it done). */
  async completePending(docId: string, derivedText: string, derivedBy: string): Promise<StoredDocument> {
    const pending = this.deps.docs.getPending(this.scope, docId);
    if (!pending) {
      const done = this.deps.docs.get(this.scope, docId);
      if (done) return done;
      throw notFound(`pending media ${docId}`);
    }
    const { passages, vectors } = await this.embed(derivedText);
    const result = await this.write((now) => {
      const staged = this.deps.docs.getPending(this.scope, docId);
      if (!staged) return null;
      const doc: StoredDocument = { ...staged.doc, derived_text: derivedText, derived_by: derivedBy, created_at: now, updated_at: now };
      const labels = this.deps.docs.insert(this.scope, doc, vectors, passages, staged.sealed);
      this.deps.docs.removePending(this.scope, docId);
      return { doc, labels };
    });
    if (!result) return this.completePending(docId, derivedText, derivedBy);
    await this.indexDoc(result.doc, result.labels.map((label, i) => ({ label, vector: vectors[i]! })));
    return result.doc;
  }

  async discardPending(docId: string): Promise<void> {
    await this.write(() => this.deps.docs.removePending(this.scope, docId));
  }

  /** The best `k` documents for a query vector, each with its best passage. */
  async search(query: Float32Array, k: number, filter: SearchFilter): Promise<DocumentHit[]> {
    const index = await this.deps.indexes.get(this.scope);
    return index.search(query, k, filter).flatMap((hit) => {
      const doc = this.deps.docs.get(this.scope, hit.docId);
      const passage = this.deps.docs.passage(this.scope, hit.label);
      if (!doc || doc.deleted_at !== null || !canRead(doc.readers, filter.principal)) return [];
      return [{ doc, distance: hit.distance, score: scoreOf(hit.distance), passage: passage?.text ?? '' }];
    });
  }

  private async change(docId: string, principal: string, next: (doc: StoredDocument, now: number) => StoredDocument): Promise<StoredDocument> {
    const doc = await this.write((now) => {
      const previous = this.readable(docId, principal);
      const changed = next(previous, now);
      if (changed !== previous) this.deps.docs.update(this.scope, previous, changed);
      return changed;
    });
    await this.indexDoc(doc);
    return doc;
  }

  /** The document when it exists in scope and the principal may read it; otherwise it does not exist. */
  private readable(docId: string, principal: string): StoredDocument {
    const doc = this.deps.docs.get(this.scope, docId);
    if (!doc || !canRead(doc.readers, principal)) throw notFound(`document ${docId}`);
    return doc;
  }

  private async indexDoc(doc: StoredDocument, passages?: Array<{ label: number; vector: Float32Array }>): Promise<void> {
    const index = await this.deps.indexes.get(this.scope);
    index.putDoc(doc.doc_id, { modality: doc.modality, readers: doc.readers, deleted: doc.deleted_at !== null }, passages);
    index.maybeBuild();
  }

  private async embed(text: string): Promise<{ passages: string[]; vectors: Float32Array[] }> {
    const passages = splitPassages(text).map((p) => p.text);
    return { passages, vectors: passages.length ? await this.deps.embedder.embed(passages) : [] };
  }
}

const parts = new WeakMap<OwnerActor, OwnerDocuments>();

/**
 * The document part of an owner's actor, created on first use and living as long as the actor does; its
 * writes go through the actor's mailbox, so documents and graph writes of one owner are serial.
 */
export function documentsOf(actor: OwnerActor, deps: OwnerDocumentsDeps): OwnerDocuments {
  let part = parts.get(actor);
  if (!part) {
    part = new OwnerDocuments(actor.scope, (fn) => actor.write(fn), deps);
    parts.set(actor, part);
  }
  return part;
}

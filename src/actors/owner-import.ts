import type { StoredDocument } from '../domain/documents.js';
import { indexedText } from '../domain/document-records.js';
import type { Entity } from '../domain/entities.js';
import type { Fact } from '../domain/facts.js';
import type { Relationship } from '../domain/relationships.js';
import type { Scope } from '../domain/scope.js';
import type { DocumentStore, EmbeddedText } from '../store/documents.js';
import type { GraphStore } from '../store/graph.js';
import type { Embedder } from '../vector/embedder.js';
import { embedTexts } from './document-embedding.js';
import type { DocumentWrites } from './owner-documents.js';

/** A document as an import restores it: its record, its bytes (media; the store seals them), and its passages when they can be kept. */
export interface RestoredDocument {
  doc: StoredDocument;
  bytes?: Uint8Array | undefined;
  /** The exported passages, when their vectors are this node's embedder's; null: embed the text anew. */
  embedded: EmbeddedText | null;
}

/** Records an import writes in one transaction, already validated and given the import's scope. */
export interface ImportBatch {
  entities: Entity[];
  relationships: Relationship[];
  facts: Fact[];
  documents: RestoredDocument[];
}

export interface OwnerImportDeps {
  graph: GraphStore;
  docs: DocumentStore;
  embedder: Embedder;
}

/**
 * An owner's import steps. Each batch is written in ONE transaction of the owner's actor, in order with
 * its other writes, through the stores' own writes: entities and relationships with their secondary
 * entries, fact versions as given, documents with their passages and every write hook (the field indexes).
 * Documents whose vectors another embedder made are embedded anew first, outside the transaction. Nothing
 * is added to the owner's in-memory state: `reload` drops it once the import is over, and it is rebuilt from
 * LMDB on next use (facts, lexical and vector indexes), as after a restart.
 */
export class OwnerImport {
  constructor(
    private readonly scope: Scope,
    private readonly writes: DocumentWrites,
    private readonly deps: OwnerImportDeps,
    private readonly reloadState: () => Promise<void>,
  ) {}

  /** Writes a batch; resolves once it is durable. Returns how many documents were embedded anew. */
  write(batch: ImportBatch): Promise<number> {
    return this.writes.hold(this.writeBatch(batch));
  }

  /** Drops what the actor holds of the owner (loaded facts, open indexes) so it is read again from LMDB. */
  reload(): Promise<void> {
    return this.writes.hold(this.reloadState());
  }

  private async writeBatch({ entities, relationships, facts, documents }: ImportBatch): Promise<number> {
    const { graph, docs, embedder } = this.deps;
    const stale = documents.filter((d) => d.embedded === null);
    const fresh = await embedTexts(embedder, stale.map((d) => indexedText(d.doc)));
    const embeddedAnew = new Map(stale.map((d, i) => [d, fresh[i]!]));
    await this.writes.transaction(() => {
      for (const entity of entities) graph.putEntity(this.scope, entity, undefined);
      for (const edge of relationships) graph.putRelationship(this.scope, edge);
      for (const fact of facts) graph.restoreFact(this.scope, fact);
      for (const d of documents) docs.insert(this.scope, d.doc, d.embedded ?? embeddedAnew.get(d)!, d.bytes);
    });
    return stale.length;
  }
}

import type { DocumentServices } from '../actors/owner-documents.js';
import type { ImportBatch } from '../actors/owner-import.js';
import type { Scope } from '../domain/scope.js';
import { assertUnreachable, invalidInput } from '../errors.js';
import type { AppDeps } from './context.js';
import { parseImportLine, restoredDocument } from './import-records.js';
import type { NdjsonLine } from './ndjson-lines.js';
import type { ImportLine } from './schemas/import.js';

/** What an import wrote, per type of record, and how many documents it embedded anew (another embedder's vectors). */
export interface ImportReport {
  imported: { entities: number; relationships: number; facts: number; documents: number };
  reembedded_documents: number;
}

/**
 * Records per transaction, and line bytes: a few hundred records commit in one go, and a batch of large
 * media lines is cut by its size, so that memory holds a few batches' lines however large the owner.
 */
const BATCH_RECORDS = 500;
const BATCH_BYTES = 16 * 1024 * 1024;

/**
 * Reads an export line by line and writes it into `scope` (which the caller found empty and holds) in
 * batches through the owner's actor, each batch one transaction. One batch is written while the next is
 * read and checked, never more, so memory holds two batches whatever the size of the import. Every line is
 * checked before its batch is written: its shape (zod), its ids unique in the owner, and what it names
 * (edge endpoints, fact subjects) on an earlier line. Thrown errors name the line; they are thrown once no
 * write is in flight, so the caller's roll-back sees every write that was made.
 */
export async function importOwner(deps: AppDeps, scope: Scope, lines: AsyncIterable<NdjsonLine>): Promise<ImportReport> {
  const report: ImportReport = { imported: { entities: 0, relationships: 0, facts: 0, documents: 0 }, reembedded_documents: 0 };
  let batch = new PendingBatch(report.imported, null);
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    await writing;
    const full = batch;
    batch = new PendingBatch(report.imported, full);
    writing = deps.actors.importerFor(scope).importing.write(full.records).then((reembedded) => {
      report.reembedded_documents += reembedded;
    });
  };
  try {
    for await (const { number, text } of lines) {
      add(deps, scope, batch, parseImportLine(text, number), number);
      batch.bytes += text.length + 1;
      if (batch.size >= BATCH_RECORDS || batch.bytes >= BATCH_BYTES) await flush();
    }
    if (batch.size > 0) await flush();
  } finally {
    await writing.catch(() => undefined);
  }
  await writing;
  return report;
}

/**
 * One batch being filled. Its ids, and those of the batch before it (which may still be in flight, so not
 * yet in the store), are what its lines may name and must not repeat.
 */
class PendingBatch {
  readonly records: ImportBatch = { entities: [], relationships: [], facts: [], documents: [] };
  readonly ids = new Set<string>();
  bytes = 0;
  private readonly earlier: Set<string> | null;
  constructor(
    readonly counts: ImportReport['imported'],
    previous: PendingBatch | null,
  ) {
    this.earlier = previous?.ids ?? null;
  }

  get size(): number {
    return this.ids.size;
  }

  has(key: string): boolean {
    return this.ids.has(key) || this.earlier?.has(key) === true;
  }
}

function add(deps: AppDeps, scope: Scope, batch: PendingBatch, line: ImportLine, number: number): void {
  const { graph } = deps;
  const at = (field: string) => `line ${number} record.${field}`;
  const owner = { entity_id: scope.entityId, partition: scope.partition };
  /** Refuses an id already written or already in the batch; `field` names it in the line. */
  const unique = (kind: string, field: string, id: string, stored: unknown) => {
    const key = `${kind}:${id}`;
    if (batch.has(key) || stored !== undefined) throw invalidInput(`${at(field)} ${id} appears on an earlier line`);
    batch.ids.add(key);
  };
  const entityExists = (id: string) => batch.has(`entity:${id}`) || graph.getEntity(scope, id) !== undefined;
  const edgeExists = (id: string) => batch.has(`relationship:${id}`) || graph.getRelationship(scope, id) !== undefined;
  switch (line.type) {
    case 'entity': {
      const id = line.record.memory_entity_id;
      unique('entity', 'memory_entity_id', id, graph.getEntity(scope, id));
      batch.records.entities.push({ ...line.record, ...owner });
      batch.counts.entities++;
      return;
    }
    case 'relationship': {
      const r = line.record;
      unique('relationship', 'relationship_id', r.relationship_id, graph.getRelationship(scope, r.relationship_id));
      for (const end of ['from_entity_id', 'to_entity_id'] as const) {
        if (!entityExists(r[end])) throw invalidInput(`${at(end)} names entity ${r[end]}, which no earlier line holds`);
      }
      batch.records.relationships.push({ ...r, ...owner });
      batch.counts.relationships++;
      return;
    }
    case 'fact': {
      const f = line.record;
      unique('fact', 'fact_id', f.fact_id, graph.getFact(scope, f.fact_id));
      const subject = f.subject_id ?? '';
      if ((f.subject_type === 'entity' && !entityExists(subject)) || (f.subject_type === 'relationship' && !edgeExists(subject))) {
        throw invalidInput(`${at('subject_id')} names ${f.subject_type} ${subject}, which no earlier line holds`);
      }
      batch.records.facts.push({ ...f, ...owner });
      batch.counts.facts++;
      return;
    }
    case 'document': {
      const services: DocumentServices = requireDocuments(deps);
      unique('doc', 'doc_id', line.record.doc_id, services.docs.get(scope, line.record.doc_id));
      batch.records.documents.push(restoredDocument(line.record, scope, number, services));
      batch.counts.documents++;
      return;
    }
    default:
      assertUnreachable(line);
  }
}

function requireDocuments(deps: AppDeps): DocumentServices {
  if (!deps.documents) throw invalidInput('this node stores no documents; the export holds some');
  return deps.documents;
}

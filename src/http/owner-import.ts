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
 * media lines is cut by its size so that memory stays bounded by a few lines however large the owner.
 */
const BATCH_RECORDS = 500;
const BATCH_BYTES = 16 * 1024 * 1024;

/**
 * Reads an export line by line and writes it into `scope` (which the caller found empty and holds) in
 * batches through the owner's actor, each batch one transaction, the next line read only once the batch
 * before is durable. Every line is checked before its batch is written: its shape (zod), its ids unique
 * in the owner, and what it names (edge endpoints, fact subjects) on an earlier line. Thrown errors name
 * the line; the caller rolls the scope back.
 */
export async function importOwner(deps: AppDeps, scope: Scope, lines: AsyncIterable<NdjsonLine>): Promise<ImportReport> {
  const report: ImportReport = { imported: { entities: 0, relationships: 0, facts: 0, documents: 0 }, reembedded_documents: 0 };
  let batch = emptyBatch();
  let bytes = 0;
  const flush = async () => {
    if (bytes === 0) return;
    report.reembedded_documents += await deps.actors.actorFor(scope).importing.write(batch.records);
    batch = emptyBatch();
    bytes = 0;
  };
  for await (const { number, text } of lines) {
    add(deps, scope, batch, parseImportLine(text, number), number);
    bytes += text.length + 1;
    if (batch.size >= BATCH_RECORDS || bytes >= BATCH_BYTES) await flush();
  }
  await flush();
  return report;

  function emptyBatch() {
    return new PendingBatch(report.imported);
  }
}

/** One batch being filled; its ids are what later lines of the batch may name before it is written. */
class PendingBatch {
  readonly records: ImportBatch = { entities: [], relationships: [], facts: [], documents: [] };
  readonly ids = new Set<string>();
  constructor(readonly counts: ImportReport['imported']) {}
  get size(): number {
    return this.ids.size;
  }
}

function add(deps: AppDeps, scope: Scope, batch: PendingBatch, line: ImportLine, number: number): void {
  const { graph } = deps;
  const at = (field: string) => `line ${number} record.${field}`;
  const owner = { entity_id: scope.entityId, partition: scope.partition };
  /** Refuses an id already written or already in the batch; `field` names it in the line. */
  const unique = (kind: string, field: string, id: string, stored: unknown) => {
    const key = `${kind}:${id}`;
    if (batch.ids.has(key) || stored !== undefined) throw invalidInput(`${at(field)} ${id} appears on an earlier line`);
    batch.ids.add(key);
  };
  const entityExists = (id: string) => batch.ids.has(`entity:${id}`) || graph.getEntity(scope, id) !== undefined;
  const edgeExists = (id: string) => batch.ids.has(`relationship:${id}`) || graph.getRelationship(scope, id) !== undefined;
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

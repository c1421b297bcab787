import type { Principal } from '../auth/keys.js';
import { canRead } from '../domain/access.js';
import type { Scope } from '../domain/scope.js';
import type { AppDeps } from './context.js';
import { documentLine, entityLine, factLine, relationshipLine } from './serialize-export.js';

/**
 * Documents read per page: with their passages and media bytes a page can weigh megabytes, so pages are
 * small; the stream asks for the next page only once the client has taken the one before.
 */
const DOCUMENT_PAGE = 32;

/**
 * An owner's export, line by line (src/http/serialize-export.ts): every entity, every relationship, every
 * fact version, then every document the principal may read (an admin key: every document), each type in id
 * order. Records are read page by page through the stores as the consumer pulls, so memory holds a page
 * whatever the owner's size; it is not a snapshot: a write that commits meanwhile may or may not appear.
 */
export async function* exportOwner(deps: AppDeps, scope: Scope, principal: Principal): AsyncGenerator<string> {
  for await (const page of deps.graph.entityPages(scope)) yield page.map(entityLine).join('');
  for await (const page of deps.graph.relationshipPages(scope)) yield page.map(relationshipLine).join('');
  for await (const page of deps.graph.factPages(scope)) yield page.map(factLine).join('');
  const services = deps.documents;
  if (!services) return;
  for await (const page of services.docs.documentPages(scope, DOCUMENT_PAGE)) {
    for (const doc of page) {
      if (!principal.admin && !canRead(doc.readers, principal.principal)) continue;
      const bytes = doc.modality === 'text' ? null : (services.docs.getBlob(scope, doc.doc_id) ?? null);
      yield documentLine(doc, services.docs.passagesOf(scope, doc.doc_id), bytes, services.origin);
    }
  }
}

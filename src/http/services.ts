import type { DocumentServices, OwnerDocuments } from '../actors/owner-documents.js';
import type { Scope } from '../domain/scope.js';
import { unavailable } from '../errors.js';
import type { AppDeps } from './context.js';

/** The node's document services, for the document, media and search routes; 503 where none are configured. */
export function documentServices(deps: AppDeps): DocumentServices {
  if (!deps.documents) throw unavailable('documents are not configured on this node');
  return deps.documents;
}

/** The documents part of the owner's actor (its writes and searches); 503 where no documents are configured. */
export function ownerDocuments(deps: AppDeps, scope: Scope): OwnerDocuments {
  documentServices(deps);
  return deps.actors.actorFor(scope).documents;
}

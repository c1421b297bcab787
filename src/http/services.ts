import { unavailable } from '../errors.js';
import type { AppDeps } from './context.js';
import type { DocumentServices } from './document-services.js';

/** The node's document services, for the document, media and search routes; 503 where none are configured. */
export function documentServices(deps: AppDeps): DocumentServices {
  if (!deps.documents) throw unavailable('documents are not configured on this node');
  return deps.documents;
}

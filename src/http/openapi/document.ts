import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { z } from 'zod';
import { STATUS_BY_CODE, type ErrorCode } from '../../errors.js';
import { IdempotencyKeySchema } from '../schemas/headers.js';
import { ErrorBodySchema } from '../schemas/responses.js';
import { TAGS, type ErrorStatus, type Operation } from './operation.js';
import { documentOperations } from './operations/documents.js';
import { lifecycleOperations } from './operations/lifecycle.js';
import { memoryOperations } from './operations/memory.js';
import { searchAndQueryOperations } from './operations/search-query.js';
import { serviceOperations } from './operations/service.js';

/** Every route of the service, as the document describes it. */
export const OPERATIONS: readonly Operation[] = [
  ...memoryOperations,
  ...lifecycleOperations,
  ...documentOperations,
  ...searchAndQueryOperations,
  ...serviceOperations,
];

/**
 * What every keyed route may answer whatever it does: bad input, no key, a scope another node hosts (with
 * several nodes), too fast, a fault, unavailable.
 */
const EVERY_ROUTE: ErrorStatus[] = [400, 401, 421, 429, 500, 503];
const WRITES: ErrorStatus[] = [409, 413];

const idempotencyKey = IdempotencyKeySchema.meta({
  description:
    'Makes the write safe to retry: the first 2xx answer to a key is kept 24 hours per (tenant, principal) and replayed (with `Idempotent-Replayed: true`) for the same method, path, query and body; the same key with another request, or while the first is running, is 409.',
});

const requestIdHeader = z.string().meta({ description: 'The request\'s id, also in error bodies.' });
const retryAfterHeader = z.string().meta({ description: 'Seconds to wait before retrying.' });

/** `{{name}}` for the router's `:name`. */
export function openApiPath(routerPath: string): string {
  return routerPath.replace(/:([A-Za-z_]+)/g, '{$1}');
}

/**
 * The OpenAPI 3.1 document, built from the routes' zod schemas by zod-openapi. Served at
 * `GET /v1/openapi.json` and committed as docs/openapi.json (`npm run openapi`).
 */
export function buildOpenApiDocument(version: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const op of OPERATIONS) {
    const path = openApiPath(op.path);
    paths[path] = { ...paths[path], [op.method]: operationObject(op) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Engram',
      version,
      description:
        'Memory for AI agents: a typed graph of entities and relationships, temporal facts whose history is kept, documents and media in one vector space, and exact structured queries. Every route but `GET /status` takes `Authorization: Bearer <key>`.',
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'A local service (`npm start`)' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ bearerAuth: [] }],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key of API_KEYS_FILE, or the generated dev key.' } },
    },
    paths,
  });
}

function operationObject(op: Operation): ZodOpenApiOperationObject {
  const header = op.writes ? { header: z.object({ 'Idempotency-Key': idempotencyKey.optional() }) } : {};
  const requestParams = { ...(op.query ? { query: op.query as z.ZodObject } : {}), ...(op.params ? { path: op.params } : {}), ...header };
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.public ? { security: [] } : {}),
    ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required ?? true,
            ...(op.body.description ? { description: op.body.description } : {}),
            content: { [op.body.contentType ?? 'application/json']: { schema: op.body.schema } },
          },
        }
      : {}),
    responses: responsesOf(op),
  };
}

function responsesOf(op: Operation): ZodOpenApiResponsesObject {
  const { success } = op;
  const successHeaders = op.writes ? { 'X-Request-Id': requestIdHeader, 'Idempotent-Replayed': z.literal('true').meta({ description: 'Present when the answer is a kept one, replayed for a retried request.' }) } : { 'X-Request-Id': requestIdHeader };
  const responses: ZodOpenApiResponsesObject = {
    [success.status]: {
      description: success.description,
      headers: z.object(successHeaders),
      ...(success.schema ? { content: { [success.contentType ?? 'application/json']: { schema: success.schema } } } : {}),
    },
  };
  if (op.alsoNoContent) responses[`${op.alsoNoContent.status}`] = { description: op.alsoNoContent.description, headers: z.object(successHeaders) };
  const keyed = op.scopeless ? EVERY_ROUTE.filter((status) => status !== 421) : EVERY_ROUTE;
  const statuses = op.public ? [] : [...new Set([...keyed, ...(op.writes ? WRITES : []), ...(op.errors ?? [])])].sort();
  for (const status of statuses) responses[`${status}`] = errorResponse(status);
  if (op.public) responses['503'] = { description: 'Not ready: the same body, saying which dependency is not.', content: { 'application/json': { schema: success.schema! } } };
  return responses;
}

/** One shared response per error status (components.responses.Error400, ...): zod-openapi registers it once by identity. */
const errorResponses = new Map<ErrorStatus, ReturnType<typeof newErrorResponse>>();
function errorResponse(status: ErrorStatus) {
  let response = errorResponses.get(status);
  if (!response) errorResponses.set(status, (response = newErrorResponse(status)));
  return response;
}

function newErrorResponse(status: ErrorStatus) {
  const codes = (Object.entries(STATUS_BY_CODE) as Array<[ErrorCode, number]>).filter(([, s]) => s === status).map(([code]) => `\`${code}\``);
  // 409: only an Idempotency-Key whose first request is still running says when to come back.
  const retry = status === 429 || status === 503 ? { 'Retry-After': retryAfterHeader } : status === 409 ? { 'Retry-After': retryAfterHeader.optional() } : {};
  return {
    id: `Error${status}`,
    description: `${codes.join(' or ')}: \`{ error, code, request_id }\`.`,
    headers: z.object({ 'X-Request-Id': requestIdHeader, ...retry }),
    content: { 'application/json': { schema: ErrorBodySchema } },
  };
}

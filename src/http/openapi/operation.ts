import type { z } from 'zod';

/** The statuses an error body may come with (DECISIONS.md, Errors). */
export type ErrorStatus = 400 | 401 | 404 | 409 | 413 | 421 | 422 | 429 | 500 | 502 | 503;

/**
 * One route as the OpenAPI document describes it. The schemas are the ones the route validates with
 * (src/http/schemas/), and the answers the ones its serializers are typed by (records.ts, responses.ts),
 * so the document cannot say what the code does not do. test/unit/openapi-routes.test.ts holds the
 * catalogue and the router to each other both ways.
 */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  /** The path as the router has it, `:name` for a parameter (`/v1/memory/entities/:id`). */
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  query?: z.ZodType;
  params?: z.ZodObject;
  body?: { schema: z.ZodType; contentType?: 'application/json' | 'application/x-ndjson'; description?: string; required?: boolean };
  success: { status: 200 | 201 | 202 | 204; description: string; schema?: z.ZodType; contentType?: string };
  /** Another success without a body (a hard delete's 204). */
  alsoNoContent?: { status: 204; description: string };
  /** Errors this route answers beyond those every keyed route may (400, 401, 421, 429, 500, 503). */
  errors?: ErrorStatus[];
  /** A write: it takes an `Idempotency-Key` and may answer 409 (a held owner, a reused key) and 413. */
  writes?: boolean;
  /** Answers without a key (only `GET /status`: DECISIONS.md, Public routes). */
  public?: boolean;
  /** Names no scope, so any node answers it: never 421 (src/http/middleware/placement.ts). */
  scopeless?: boolean;
}

export const TAGS = {
  memory: 'Memory graph: entities, relationships and temporal facts of one owner.',
  lifecycle: 'Owner lifecycle: forget an entity, erase an owner, export and import.',
  documents: 'Documents and media of one owner.',
  search: 'Search an owner\'s documents and media in one vector space.',
  schema: 'Declared fields, tenant-wide or per partition.',
  query: 'Exact structured queries and aggregations over declared fields.',
  service: 'The service itself.',
} as const;
export type Tag = keyof typeof TAGS;

import { z } from 'zod';
import { IndexSchema, StatusSchema } from '../../schemas/responses.js';
import type { Operation } from '../operation.js';

/** The service's own routes. */
export const serviceOperations: Operation[] = [
  {
    method: 'get',
    path: '/status',
    operationId: 'getStatus',
    tag: 'service',
    summary: 'Readiness',
    description: 'Public. 200 when every dependency is ready, else 503 with the same body saying what is not.',
    success: { status: 200, description: 'Ready.', schema: StatusSchema },
    public: true,
  },
  {
    method: 'get',
    path: '/',
    operationId: 'getIndex',
    tag: 'service',
    summary: 'Where things are',
    scopeless: true,
    success: { status: 200, description: 'Pointers to the API, the status route and the docs.', schema: IndexSchema },
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'getOpenApi',
    tag: 'service',
    summary: 'This document',
    scopeless: true,
    success: { status: 200, description: 'The OpenAPI 3.1 document of this API.', schema: z.object({ openapi: z.string() }).catchall(z.unknown()) },
  },
];

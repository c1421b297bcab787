import { createHash, type Hash } from 'node:crypto';
import type { Middleware, Next } from 'koa';
import { IDEMPOTENCY_TTL_MS, judgeRepeat } from '../domain/idempotency.js';
import type { Scope } from '../domain/scope.js';
import { AppError } from '../errors.js';
import type { KeptResponse, KeyHolder } from '../store/idempotency.js';
import type { AppContext, AppDeps, AppState } from './context.js';
import { bodyBytes, tapBodyStream } from './request-body.js';
import type { AppRouter } from './router.js';
import { IdempotencyKeySchema } from './schemas/headers.js';
import { requestedScope } from './scope.js';
import { parseHeader } from './validate.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * How a writing POST reads its body: JSON up to its limit (read once, here, and shared with `parseBody`),
 * or a stream of any size (an import), hashed as the route reads it.
 */
export type WriteBody = { jsonLimit: number | (() => number) } | 'stream';

type Deps = Pick<AppDeps, 'idempotency' | 'clock' | 'log' | 'holds'>;

/** The two declarations every POST route makes, checked by `assertPostsDeclared`. */
const writes = new WeakSet<object>();
const reads = new WeakSet<object>();

/**
 * The first middleware of a POST that writes to an owner: with an `Idempotency-Key` (DECISIONS.md, Writes
 * that may be retried) the first 2xx answer is kept for 24 hours per (tenant, principal), sealed under the
 * owner's data key, and a repeat of the same method, path, query and body gets it again with
 * `Idempotent-Replayed: true` without running the route. Another request under the key, or any while the
 * first is being answered, is 409 `conflict`. A failed answer (4xx, 5xx) keeps nothing: a retry runs again.
 */
export function idempotentWrite(deps: Deps, body: WriteBody): Middleware<AppState> {
  const records = deps.idempotency;
  // Without a key (most writes) a plain function that passes on: no async frame and no promise of its own,
  // where an async one adds both and two more turns of the microtask queue to every request.
  const middleware: Middleware<AppState> = (ctx, next) => {
    const key = parseHeader(ctx, IDEMPOTENCY_KEY_HEADER, IdempotencyKeySchema);
    return key === undefined ? next() : keyed(ctx, next, key);
  };
  const keyed = async (ctx: AppContext, next: Next, key: string): Promise<void> => {
    const holder: KeyHolder = { tenant: ctx.state.principal.tenant, principal: ctx.state.principal.principal };
    const hash = requestHash(ctx);
    if (body !== 'stream') hash.update(await bodyBytes(ctx, typeof body.jsonLimit === 'number' ? body.jsonLimit : body.jsonLimit()));
    // From here to the claim nothing awaits, so two requests under one key never both run.
    const running = records.isRunning(holder, key);
    const kept = running ? undefined : keptFor(deps, holder, key);
    // A streamed body is hashed whole only to compare it with a kept response.
    if (kept && body === 'stream') for await (const chunk of ctx.req as AsyncIterable<Uint8Array>) hash.update(chunk);
    const verdict = judgeRepeat(running, kept?.fingerprint, kept ? hash.digest('hex') : '');
    if (verdict.kind === 'conflict') {
      const headers = verdict.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(verdict.retryAfterSeconds) };
      throw new AppError('conflict', verdict.message, { headers });
    }
    if (verdict.kind === 'replay') return replay(ctx, kept!);

    records.claim(holder, key);
    try {
      let fingerprint = body === 'stream' ? undefined : hash.digest('hex');
      if (body === 'stream') tapBodyStream(ctx, (chunk) => hash.update(chunk), () => (fingerprint = hash.digest('hex')));
      const before = { ...ctx.response.headers };
      let keptWithWrite: Buffer | undefined;
      ctx.state.keepWithWrite = (status, answer) => {
        const kept = keptJson(ctx, status, answer, fingerprint);
        keptWithWrite = kept.body;
        return deps.idempotency.keeper(holder, key, ownerOf(ctx), kept, deps.clock.now(), deps.clock.now() + IDEMPOTENCY_TTL_MS);
      };
      await next();
      if (ctx.status < 200 || ctx.status >= 300) return;
      // Kept in the write's own transaction (the route asked for it): answered with the very bytes kept.
      if (keptWithWrite) {
        ctx.body = keptWithWrite;
        return;
      }
      // The write is done: an answer that cannot be kept is still the answer, and the log says so.
      await keep(deps, holder, key, ctx, before, fingerprint).catch((err: unknown) =>
        deps.log.error({ err, requestId: ctx.state.requestId }, 'the answer to an Idempotency-Key could not be kept; a retry would run again'),
      );
    } finally {
      records.release(holder, key);
    }
  };
  writes.add(middleware);
  return middleware;
}

/** The first middleware of a POST that only reads (a search, a query): `Idempotency-Key` is accepted and ignored. */
export const readOnlyPost: Middleware<AppState> = (_ctx, next) => next();
reads.add(readOnlyPost);

/** Which declaration a POST route made, for the OpenAPI document and the check below. */
export function postKind(layer: AppRouter['stack'][number]): 'write' | 'read' | undefined {
  const first = layer.stack[0];
  if (first && writes.has(first)) return 'write';
  if (first && reads.has(first)) return 'read';
  return undefined;
}

/** Every POST route starts with `idempotentWrite` or `readOnlyPost`: a new one that says neither fails the start. */
export function assertPostsDeclared(router: AppRouter): void {
  for (const layer of router.stack) {
    if (layer.methods.includes('POST') && postKind(layer) === undefined) {
      throw new Error(`POST ${String(layer.path)} must start with idempotentWrite (it writes) or readOnlyPost (it only reads): src/http/idempotency.ts`);
    }
  }
}

/**
 * What identifies the request under its key: SHA-256 over the method, the path (the `/v1` one, which a
 * deprecated alias is routed to), the query string as sent, then the raw body bytes. The head is JSON, so
 * where it ends and the body begins is never ambiguous.
 */
export function requestHash(ctx: Pick<AppContext, 'method' | 'path' | 'querystring'>): Hash {
  return createHash('sha256').update(`${JSON.stringify([ctx.method, ctx.path, ctx.querystring])}\n`);
}

/** The kept response of the key, unless its owner is held (being erased or imported): then it is as gone. */
function keptFor(deps: Deps, holder: KeyHolder, key: string): KeptResponse | undefined {
  const found = deps.idempotency.find(holder, key, deps.clock.now());
  if (!found || deps.holds?.holdOf(found.owner)) return undefined;
  return found.response;
}

function replay(ctx: AppContext, kept: KeptResponse): void {
  ctx.status = kept.status;
  for (const [name, value] of kept.headers) ctx.set(name, value);
  ctx.set(REPLAYED_HEADER, 'true');
  ctx.body = kept.status === 204 ? null : kept.body;
}

/**
 * The answer a route gives in JSON (`keepWithWrite`), as it is kept: the headers are those Koa sets for a
 * JSON body, which is what `keep` would find the route had set.
 */
function keptJson(ctx: AppContext, status: number, answer: unknown, fingerprint: string | undefined): KeptResponse {
  if (fingerprint === undefined) throw new Error('a streamed request cannot keep its answer with its write');
  return { fingerprint, status, headers: [['content-type', 'application/json; charset=utf-8']], body: Buffer.from(JSON.stringify(answer), 'utf8') };
}

/** The owner a writing POST names in its query (`entity_id`, `partition`), which the route has validated. */
function ownerOf(ctx: AppContext): Scope {
  const { entity_id, partition } = ctx.query;
  if (typeof entity_id !== 'string' || (partition !== undefined && typeof partition !== 'string')) throw new Error(`${ctx.path} names no owner`);
  return requestedScope(ctx.state.principal, { entity_id, partition });
}

/**
 * Keeps the route's answer as bytes, with the headers it set (those that differ from before it ran), under
 * the owner it wrote to; the answer sent becomes those bytes, so a replay is byte for byte the first answer.
 * Every writing POST names its owner in the query (`entity_id`, `partition`), which the route has validated.
 */
async function keep(deps: Deps, holder: KeyHolder, key: string, ctx: AppContext, before: Record<string, unknown>, fingerprint: string | undefined): Promise<void> {
  if (fingerprint === undefined) throw new Error('the route answered before reading its streamed body whole');
  const owner = ownerOf(ctx);
  const body = ctx.body;
  let bytes: Buffer;
  if (body === null || body === undefined) bytes = Buffer.alloc(0);
  else if (Buffer.isBuffer(body)) bytes = body;
  else if (typeof body === 'string') bytes = Buffer.from(body, 'utf8');
  else if (typeof (body as { pipe?: unknown }).pipe === 'function') throw new Error('a streamed answer cannot be kept');
  else bytes = Buffer.from(JSON.stringify(body), 'utf8');
  if (bytes.length > 0) ctx.body = bytes;
  const headers: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(ctx.response.headers)) {
    if (name === 'content-length' || value === undefined || before[name] === value) continue;
    headers.push([name, Array.isArray(value) ? value.join(', ') : String(value)]);
  }
  const now = deps.clock.now();
  await deps.idempotency.keep(holder, key, owner, { fingerprint, status: ctx.status, headers, body: bytes }, now, now + IDEMPOTENCY_TTL_MS);
}

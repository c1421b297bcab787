import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppContext } from '../../src/http/context.js';
import { requestLine } from '../../src/http/middleware/request-log.js';
import { createLogger } from '../../src/log.js';

/** A logger whose lines are kept, as the service's writes them to standard output. */
function captured(level = 'info') {
  const lines: string[] = [];
  return { log: createLogger(level, { write: (line: string) => void lines.push(line) }), lines };
}

interface Request {
  route?: string;
  principal?: { tenant: string; keyId: string };
  entityId?: string | string[];
  requestId?: string;
  method?: string;
}

function context(r: Request): AppContext {
  return {
    _matchedRoute: r.route,
    method: r.method ?? 'POST',
    query: r.entityId === undefined ? {} : { entity_id: r.entityId },
    state: { requestId: r.requestId ?? '9722a579-e003-4d52-ac1d-19af4b49f0cd', principal: r.principal },
  } as unknown as AppContext;
}

const digest = (id: string) => `d${id.length.toString(16).padStart(15, '0')}`;

/** What pino writes for `log.info(fields, 'request')`: the line the request log must be. */
function pinoLine(r: Request, status: number, ms: number): string {
  const { log, lines } = captured();
  log.info(
    {
      requestId: r.requestId ?? '9722a579-e003-4d52-ac1d-19af4b49f0cd',
      method: r.method ?? 'POST',
      route: r.route ?? null,
      status,
      ms: Math.round(ms * 10) / 10,
      tenant: r.principal?.tenant,
      keyId: r.principal?.keyId,
      owner: typeof r.entityId === 'string' ? digest(r.entityId) : undefined,
      aborted: status === 499 ? true : undefined,
    },
    'request',
  );
  return lines[0]!;
}

describe('the request log line', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const requests: Array<[string, Request, number, number]> = [
    ['an answered write', { route: '/v1/memory/facts', principal: { tenant: 'acme', keyId: '6f752b7237c6' }, entityId: 'user-42' }, 201, 3.14159],
    ['a refused key, no route matched', { method: 'GET' }, 401, 0.04],
    ['a client gone before its answer', { route: '/v1/documents/:doc_id', principal: { tenant: 'acme', keyId: 'abc' }, entityId: 'u' }, 499, 12],
    ['a tenant name that JSON escapes', { route: '/status', principal: { tenant: 'quote " back \\ tab \t ü \u2028', keyId: 'k' }, requestId: 'client.id:1-2_3' }, 200, 1],
    ['an owner given twice (no digest)', { route: '/v1/memory/facts', principal: { tenant: 't', keyId: 'k' }, entityId: ['a', 'b'] }, 400, 0.5],
  ];

  it.each(requests)('is the line pino writes for the same fields: %s', (_name, request, status, ms) => {
    vi.spyOn(Date, 'now').mockReturnValue(1_796_163_170_391);
    const { log, lines } = captured();
    requestLine(log, digest)(context(request), status, ms);
    expect(lines).toEqual([pinoLine(request, status, ms)]);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'request', status, time: 1_796_163_170_391, pid: process.pid });
  });

  it('keeps the escaped tenant per key, and writes each request its own line', () => {
    const { log, lines } = captured();
    const write = requestLine(log, digest);
    const principal = { tenant: 'acme', keyId: 'k1' };
    write(context({ route: '/v1/memory/facts', principal, entityId: 'a' }), 201, 1);
    write(context({ route: '/v1/memory/facts', principal: { tenant: 'other', keyId: 'k2' }, entityId: 'b' }), 201, 1);
    write(context({ route: '/v1/memory/facts', principal, entityId: 'c' }), 201, 1);
    expect(lines.map((line) => (JSON.parse(line) as { tenant: string }).tenant)).toEqual(['acme', 'other', 'acme']);
  });

  it('writes nothing when the log level is above info', () => {
    const { log, lines } = captured('warn');
    requestLine(log, digest)(context({ route: '/v1/memory/facts' }), 201, 1);
    expect(lines).toEqual([]);
  });
});

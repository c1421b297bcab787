/**
 * The checks every HTTP request passes before it reaches MCP, as the MCP specification's security guidance
 * for streamable HTTP asks: the Host and Origin headers (DNS rebinding: a web page must not reach a local
 * server through a name that resolves to 127.0.0.1), then the server's own bearer token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A refusal: the status and the message the client gets. */
export interface Refusal {
  status: 401 | 403;
  message: string;
}

export interface GuardSettings {
  token: string;
  allowedOrigins: readonly string[];
  allowedHosts: readonly string[];
}

/** The Host header's name without its port (`[::1]:8765` → `[::1]`), lower case. */
export function hostName(host: string): string {
  const bracketed = /^(\[[^\]]*\])(?::\d+)?$/.exec(host);
  if (bracketed) return (bracketed[1] as string).toLowerCase();
  return host.replace(/:\d+$/, '').toLowerCase();
}

/** True when the request carries an Origin that is on the allow-list (and so may get CORS headers). */
export function originAllowed(origin: string | undefined, settings: GuardSettings): boolean {
  return origin !== undefined && settings.allowedOrigins.includes(origin);
}

/** The Host and Origin checks; a request without Origin (a non-browser client) passes the second. */
export function checkOrigin(req: IncomingMessage, settings: GuardSettings): Refusal | null {
  const host = req.headers.host;
  if (host === undefined || !settings.allowedHosts.includes(hostName(host))) {
    return { status: 403, message: `Host ${host ?? '(none)'} is not allowed (ENGRAM_MCP_ALLOWED_HOSTS)` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, settings)) {
    return { status: 403, message: `Origin ${origin} is not allowed (ENGRAM_MCP_ALLOWED_ORIGINS)` };
  }
  return null;
}

/** The bearer token check, in constant time (digests of equal length are compared). */
export function checkToken(req: IncomingMessage, settings: GuardSettings): Refusal | null {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match === null) return { status: 401, message: 'missing bearer token: send Authorization: Bearer <ENGRAM_MCP_TOKEN>' };
  const given = createHash('sha256').update(match[1] as string).digest();
  const expected = createHash('sha256').update(settings.token).digest();
  return timingSafeEqual(given, expected) ? null : { status: 401, message: 'invalid bearer token' };
}

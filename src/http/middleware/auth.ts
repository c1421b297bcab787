import type { Middleware } from 'koa';
import type { KeyLookup } from '../../auth/keys.js';
import { AppError } from '../../errors.js';
import type { AppState } from '../context.js';

const PUBLIC_PATHS = new Set(['/status']);
const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;
/** What `GET /` without a key is told, for someone who opens the service's address to see what it is. */
const ROOT_HINT = '; this is the Engram API: GET /status is public, every route under /v1 takes a key (see README.md)';

/** Every route but `GET /status` needs `Authorization: Bearer <key>`; the key fixes the tenant. */
export function authenticate(keys: KeyLookup): Middleware<AppState> {
  // A plain function, not an async one: it throws or passes on, and koa-compose turns a throw into a rejection.
  return (ctx, next) => {
    if (PUBLIC_PATHS.has(ctx.path)) return next();
    const match = BEARER.exec(ctx.get('Authorization'));
    const principal = match?.[1] === undefined ? undefined : keys.authenticate(match[1]);
    if (!principal) {
      throw new AppError(
        'unauthorized',
        `${match ? 'the bearer key is not valid' : 'missing "Authorization: Bearer <API_KEY>" header'}${ctx.path === '/' ? ROOT_HINT : ''}`,
        { headers: { 'WWW-Authenticate': 'Bearer' } },
      );
    }
    ctx.state.principal = principal;
    return next();
  };
}

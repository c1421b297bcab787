import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { pageOf, type ListPosition } from '../domain/list-page.js';
import { invalidInput } from '../errors.js';

/** Longest cursor accepted (`cursor` in src/http/schemas/memory.ts); an issued one is under 300 characters. */
export const CURSOR_MAX_LENGTH = 512;

const MAC_BYTES = 16;
const BINDING_BYTES = 12;
const VERSION = 1;

/**
 * The list a cursor walks and what it was made with: the tenant of the key, and every query parameter but
 * `limit` (pages may change size) and `cursor`, the owner's `entity_id` and `partition` included.
 */
export interface ListBinding {
  list: 'entities' | 'relationships' | 'facts';
  tenant: string;
  filters: Record<string, string | number | boolean | undefined>;
}

/** One page of a list and the cursor of the next (null on the last page). */
export interface CursorPage<T> {
  page: T[];
  next_cursor: string | null;
}

/**
 * The `cursor` / `next_cursor` tokens of the memory lists (DECISIONS.md, Memory routes). A token is
 * `base64url(payload) "." base64url(MAC)`, the payload `[version, instant, id, binding]`: the position
 * after the last record of the page (src/domain/list-page.ts) and a keyed digest of the list, scope and
 * filters it was made for. The MAC (HMAC-SHA256 under a key derived from the node's master secret) makes a
 * token the service did not issue, or one altered, fail as a whole; the binding makes one passed with
 * other filters fail by name. Tokens carry an instant and an id the client has already seen, and no
 * filter value (a looked-up name is in the binding only as a keyed digest). They survive restarts (the
 * master secret does) and never expire: a position stays meaningful however the list changes.
 */
export class ListCursors {
  private readonly key: Buffer;

  constructor(secret: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), Buffer.from('engram-list-cursor-v1'), 32));
  }

  /**
   * Reads the page a request asks for: `read` gets the position to resume past (none on the first page)
   * and a limit one above the page size, so the page knows whether another follows.
   */
  page<T>(
    request: { binding: ListBinding; cursor: string | undefined; limit: number },
    read: (after: ListPosition | undefined, limit: number) => T[],
    position: (record: T) => ListPosition,
  ): CursorPage<T> {
    const { binding, cursor, limit } = request;
    const after = cursor === undefined ? undefined : this.open(cursor, binding);
    const { page, next } = pageOf(read(after, limit + 1), limit, position);
    return { page, next_cursor: next && this.issue(next, binding) };
  }

  issue(position: ListPosition, binding: ListBinding): string {
    const payload = Buffer.from(JSON.stringify([VERSION, position.at, position.id, this.bind(binding)]), 'utf8').toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The position a `cursor` parameter resumes from; 400 naming `cursor` when it is not one, or not for these filters. */
  open(token: string, binding: ListBinding): ListPosition {
    const [payload, mac, extra] = token.split('.');
    const given = mac === undefined ? undefined : Buffer.from(mac, 'base64url');
    if (!payload || extra !== undefined || given?.length !== MAC_BYTES || !timingSafeEqual(given, this.mac(payload))) {
      throw invalidInput('query parameter cursor is not a cursor this service issued (pass next_cursor back unchanged)');
    }
    const [version, at, id, bound] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [number, number, string, string];
    if (version !== VERSION) throw invalidInput('query parameter cursor was issued by another version of the service: list again without it');
    if (bound !== this.bind(binding)) {
      throw invalidInput(`query parameter cursor was issued for other filters: pass it with the same entity_id, partition and filters as the request that returned it (only limit may change)`);
    }
    return { at, id };
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(`cursor:${payload}`).digest().subarray(0, MAC_BYTES);
  }

  private bind({ list, tenant, filters }: ListBinding): string {
    const normalized = Object.entries(filters)
      .filter(([, value]) => value !== undefined && value !== false)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    const bound = JSON.stringify([list, tenant, normalized]);
    return createHmac('sha256', this.key).update(`binding:${bound}`).digest().subarray(0, BINDING_BYTES).toString('base64url');
  }
}

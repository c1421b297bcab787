import { createHash, randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulidx';
import type { IdPrefix } from './domain/ids.js';

/**
 * Minting ids for new records. Kept out of src/domain because it draws randomness and hashes with
 * node:crypto; the id rules themselves (pattern, prefixes) stay in domain/ids.ts.
 */

/**
 * Cryptographic randomness drawn from a refilled pool: ulidx's default asks the OS for one byte per
 * character, which showed up at ~3% of CPU when minting an id per request.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;
function pooledRandom(): number {
  if (poolAt >= pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]! / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

/** Mints `<prefix>_<ULID>`; ULIDs from one process sort by creation even within a millisecond. */
export function mintId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

/** `mgc1-` and the lowercase hex SHA-256 of the original bytes (text: of its UTF-8). */
export function contentId(bytes: Uint8Array | string): string {
  return `mgc1-${createHash('sha256').update(bytes).digest('hex')}`;
}

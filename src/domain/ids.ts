import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulidx';

/** Ids in paths and bodies (DECISIONS.md, Identifiers). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const ID_RULE = 'must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';

export function isValidId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export type IdPrefix = 'ent' | 'rel' | 'fact' | 'doc';

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

import { monotonicFactory } from 'ulidx';

/** Ids in paths and bodies (DECISIONS.md, Identifiers). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const ID_RULE = 'must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';

export function isValidId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export type IdPrefix = 'ent' | 'rel' | 'fact' | 'doc';

const nextUlid = monotonicFactory();

/** Mints `<prefix>_<ULID>`; ULIDs from one process sort by creation even within a millisecond. */
export function mintId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

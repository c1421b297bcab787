/** Ids in paths and bodies (DECISIONS.md, Identifiers). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const ID_RULE = 'must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';

export function isValidId(id: string): boolean {
  return ID_PATTERN.test(id);
}

/** The prefixes of ids the service mints itself (src/ids.ts `mintId`). */
export type IdPrefix = 'ent' | 'rel' | 'fact' | 'doc' | 'era';

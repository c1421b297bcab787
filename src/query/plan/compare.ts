/**
 * Orders of the query engine. Strings compare by Unicode code point (the order of LMDB's UTF-8 keys,
 * not JavaScript's UTF-16 order); numbers numerically.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (0xD800-0xDFFF) starts a code point above 0xFFFF, which sorts after 0xE000-0xFFFF.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export function compareScalars(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  return compareCodePoints(String(a), String(b));
}

/** Missing (null) sorts last in both directions; `dir` applies to present values only. */
export function compareWithMissingLast(a: string | number | null, b: string | number | null, dir: 'asc' | 'desc'): number {
  if (a === null) return b === null ? 0 : 1;
  if (b === null) return -1;
  const c = compareScalars(a, b);
  return dir === 'asc' ? c : -c;
}

import { compareScalars } from './compare.js';
import type { CompiledFilter, CompiledLeaf, DocValue } from './types.js';

/**
 * Evaluates a compiled filter against one document's values: the definition of the filter semantics
 * (two-valued; a missing value makes every leaf false except `exists: false`; `not` is the complement).
 * The engine answers from indexes; this is what it must agree with, and it also re-checks documents
 * whose indexed key was shortened.
 */
export function matches(filter: CompiledFilter, valueOf: (ver: string) => DocValue): boolean {
  switch (filter.kind) {
    case 'and':
      return filter.items.every((f) => matches(f, valueOf));
    case 'or':
      return filter.items.some((f) => matches(f, valueOf));
    case 'not':
      return !matches(filter.item, valueOf);
    case 'leaf':
      return matchesLeaf(filter, valueOf(filter.field.ver));
  }
}

export function matchesLeaf(leaf: CompiledLeaf, value: DocValue): boolean {
  if (leaf.op === 'exists') return (value !== null) === leaf.value;
  if (leaf.op === 'neq') return !(value !== null && compareScalars(value as string | number, leaf.value) === 0);
  if (value === null) return false;
  if (Array.isArray(value)) {
    if (leaf.op === 'contains') return value.includes(leaf.value as string);
    if (leaf.op === 'in') return leaf.value.some((v) => value.includes(v as string));
    return false;
  }
  switch (leaf.op) {
    case 'eq':
      return compareScalars(value, leaf.value) === 0;
    case 'in':
      return leaf.value.some((v) => compareScalars(value, v) === 0);
    case 'gt':
      return compareScalars(value, leaf.value) > 0;
    case 'gte':
      return compareScalars(value, leaf.value) >= 0;
    case 'lt':
      return compareScalars(value, leaf.value) < 0;
    case 'lte':
      return compareScalars(value, leaf.value) <= 0;
    case 'between':
      return compareScalars(value, leaf.value[0]) >= 0 && compareScalars(value, leaf.value[1]) <= 0;
    case 'contains':
      return (value as string).includes(leaf.value as string);
    case 'prefix':
      return (value as string).startsWith(leaf.value as string);
  }
}

import { invalidInput } from '../../errors.js';
import { describeJsonKind } from '../../domain/scalar.js';
import type { FieldType } from '../schema/types.js';
import { parseTimestamp, TIMESTAMP_FORMAT_RULE, timestampRule } from '../../domain/time.js';
import { compareScalars } from './compare.js';
import { FILTER_OPS, type CompiledFilter, type FieldResolver, type FilterOp, type ResolvedField } from './types.js';

const MAX_DEPTH = 16;
const MAX_LEAVES = 256;
export const MAX_IN_LITERALS = 1000;

const RANGE: FilterOp[] = ['gt', 'gte', 'lt', 'lte', 'between'];
/** Operators each field type takes (DECISIONS.md, filter shapes). */
export const OPS_BY_TYPE: Record<FieldType, readonly FilterOp[]> = {
  string: ['eq', 'neq', 'in', ...RANGE, 'exists', 'contains', 'prefix'],
  int: ['eq', 'neq', 'in', ...RANGE, 'exists'],
  float: ['eq', 'neq', 'in', ...RANGE, 'exists'],
  datetime: ['eq', 'neq', 'in', ...RANGE, 'exists'],
  bool: ['eq', 'neq', 'in', 'exists'],
  string_list: ['contains', 'in', 'exists'],
};

/**
 * Validates a filter object and converts its literals to index values. Every refusal is a 400
 * `invalid_input` whose message gives the path in the body and names the field.
 */
export function compileFilter(input: unknown, resolve: FieldResolver): CompiledFilter {
  const state = { leaves: 0 };
  return compileNode(input, 'filter', 0, resolve, state);
}

function compileNode(node: unknown, path: string, depth: number, resolve: FieldResolver, state: { leaves: number }): CompiledFilter {
  if (depth > MAX_DEPTH) throw invalidInput(`${path} nests deeper than ${MAX_DEPTH} levels`);
  if (typeof node !== 'object' || node === null || Array.isArray(node)) {
    throw invalidInput(`${path} must be an object ({ and }, { or }, { not } or { field, op, value }), got ${describeJsonKind(node)}`);
  }
  const keys = Object.keys(node);
  const record = node as Record<string, unknown>;
  for (const combinator of ['and', 'or'] as const) {
    if (!Object.hasOwn(record, combinator)) continue;
    if (keys.length !== 1) throw invalidInput(`${path} with "${combinator}" must have no other keys, got ${keys.join(', ')}`);
    const items = record[combinator];
    if (!Array.isArray(items) || items.length === 0) throw invalidInput(`${path}.${combinator} must be a non-empty array of filters`);
    return { kind: combinator, items: items.map((item, i) => compileNode(item, `${path}.${combinator}[${i}]`, depth + 1, resolve, state)) };
  }
  if (Object.hasOwn(record, 'not')) {
    if (keys.length !== 1) throw invalidInput(`${path} with "not" must have no other keys, got ${keys.join(', ')}`);
    return { kind: 'not', item: compileNode(record.not, `${path}.not`, depth + 1, resolve, state) };
  }
  state.leaves += 1;
  if (state.leaves > MAX_LEAVES) throw invalidInput(`filter has more than ${MAX_LEAVES} conditions`);
  return compileLeaf(record, path, resolve);
}

function compileLeaf(leaf: Record<string, unknown>, path: string, resolve: FieldResolver): CompiledFilter {
  const extra = Object.keys(leaf).filter((k) => k !== 'field' && k !== 'op' && k !== 'value');
  if (extra.length > 0) throw invalidInput(`${path} has unknown key${extra.length > 1 ? 's' : ''} ${extra.join(', ')} (a leaf is { field, op, value })`);
  if (typeof leaf.field !== 'string') throw invalidInput(`${path}.field is required and must be a field name`);
  const field = resolve(leaf.field);
  if (!field) throw invalidInput(`${path}.field: unknown field "${leaf.field}" (not declared, not built-in)`);
  const op = leaf.op;
  const allowed = OPS_BY_TYPE[field.type];
  if (typeof op !== 'string' || !(FILTER_OPS as readonly string[]).includes(op)) {
    throw invalidInput(`${path}.op for field "${field.name}" (${field.type}) must be one of ${allowed.join(', ')}, got ${JSON.stringify(op)}`);
  }
  if (!allowed.includes(op as FilterOp)) {
    throw invalidInput(`${path}.op "${op}" does not apply to field "${field.name}" of type ${field.type} (allowed: ${allowed.join(', ')})`);
  }
  if (!Object.hasOwn(leaf, 'value')) throw invalidInput(`${path}.value is required for field "${field.name}"`);
  const at = `${path}.value for field "${field.name}" (${field.type})`;
  const value = leaf.value;
  switch (op as FilterOp) {
    case 'exists':
      if (typeof value !== 'boolean') throw invalidInput(`${at} must be true or false for exists, got ${describeJsonKind(value)}`);
      return { kind: 'leaf', field, op: 'exists', value };
    case 'in': {
      if (!Array.isArray(value) || value.length < 1 || value.length > MAX_IN_LITERALS) {
        throw invalidInput(`${at} must be an array of 1 to ${MAX_IN_LITERALS} literals for in`);
      }
      return { kind: 'leaf', field, op: 'in', value: value.map((v, i) => literal(v, field, `${path}.value[${i}] for field "${field.name}" (${field.type})`)) };
    }
    case 'between': {
      if (!Array.isArray(value) || value.length !== 2) throw invalidInput(`${at} must be [lo, hi] for between`);
      const lo = literal(value[0], field, `${path}.value[0] for field "${field.name}" (${field.type})`);
      const hi = literal(value[1], field, `${path}.value[1] for field "${field.name}" (${field.type})`);
      if (compareScalars(lo, hi) > 0) throw invalidInput(`${at}: between needs lo <= hi, got ${JSON.stringify(value)}`);
      return { kind: 'leaf', field, op: 'between', value: [lo, hi] };
    }
    case 'contains':
    case 'prefix':
      if (typeof value !== 'string') throw invalidInput(`${at} must be a string for ${op}, got ${describeJsonKind(value)}`);
      return { kind: 'leaf', field, op: op as 'contains' | 'prefix', value };
    default:
      return { kind: 'leaf', field, op: op as 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte', value: literal(value, field, at) };
  }
}

/** Literals are not coerced, except an integer literal on a float field; `null` is refused (use exists). */
export function literal(value: unknown, field: ResolvedField, at: string): string | number {
  if (value === null) throw invalidInput(`${at} must not be null (use op "exists" to match missing values)`);
  switch (field.type) {
    case 'string':
    case 'string_list':
      if (typeof value === 'string') return value;
      break;
    case 'int':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value === 0 ? 0 : value;
      throw invalidInput(`${at} must be an integer, got ${describeLiteral(value)}`);
    case 'float':
      if (typeof value === 'number' && Number.isFinite(value)) return value === 0 ? 0 : value;
      break;
    case 'bool':
      if (typeof value === 'boolean') return value ? 1 : 0;
      break;
    case 'datetime': {
      const ms = typeof value === 'string' ? parseTimestamp(value) : null;
      if (ms !== null) return ms;
      throw invalidInput(`${at} ${typeof value === 'string' ? timestampRule(value) : TIMESTAMP_FORMAT_RULE}, got ${describeLiteral(value)}`);
    }
  }
  const expected = field.type === 'string_list' ? 'string' : field.type === 'float' ? 'number' : field.type === 'bool' ? 'boolean' : field.type;
  throw invalidInput(`${at} must be a ${expected}, got ${describeLiteral(value)}`);
}

function describeLiteral(value: unknown): string {
  const kind = describeJsonKind(value);
  return kind === 'string' || kind === 'number' || kind === 'boolean' ? `${kind} ${JSON.stringify(value)}`.slice(0, 80) : kind;
}

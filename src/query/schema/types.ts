/** Declared field types (spec, FieldSchema). */
export const FIELD_TYPES = ['string', 'int', 'float', 'bool', 'datetime', 'string_list'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Where a field's raw value comes from: a metadata key, or a regular expression over the document text. */
export type FieldSource = { metadata: string } | { regex: string };

/**
 * A field's value as the indexes hold it: strings and string lists as they are, int/float as numbers,
 * datetime as epoch milliseconds, bool as 0/1 (so every scalar is a number or a string in LMDB keys).
 */
export type IndexValue = string | number | string[];

/** Outcome of reading one field from one document. `mismatch`: a source value exists but is not of the type. */
export type Extracted = { kind: 'value'; value: IndexValue } | { kind: 'missing' } | { kind: 'mismatch' };

export const MISSING: Extracted = { kind: 'missing' };
export const MISMATCH: Extracted = { kind: 'mismatch' };

/** Built-in fields of every document (DECISIONS.md): filterable, sortable and groupable like declared ones. */
export const BUILTIN_FIELDS = {
  doc_id: 'string',
  entity_id: 'string',
  partition: 'string',
  modality: 'string',
  content_type: 'string',
  source: 'string',
  tags: 'string_list',
  created_at: 'datetime',
  updated_at: 'datetime',
} as const satisfies Record<string, FieldType>;
export type BuiltinField = keyof typeof BUILTIN_FIELDS;

export function isBuiltinField(name: string): name is BuiltinField {
  return Object.hasOwn(BUILTIN_FIELDS, name);
}

export const FIELD_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * Names a field may not take: the members of `Object.prototype` and `prototype`. Field names become
 * keys of JSON objects (`fields` of a document, `keys` of a group) in every client, where such a key
 * is dropped (`__proto__` replaces the prototype instead) or shadows a member the client relies on.
 */
export const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'toString',
  'valueOf',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);
export const FIELD_NAME_RULE = 'must start with a letter or underscore and hold at most 64 letters, digits or underscores';
export const MAX_REGEX_LENGTH = 512;

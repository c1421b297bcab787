import type { ResolvedField } from '../plan/types.js';
import { BUILTIN_FIELDS, isBuiltinField, type FieldSource, type FieldType } from './types.js';
import { fieldKey, fieldPrefix, nextVersionKey, type IndexDb } from '../storage/layout.js';

/** One definition of a field, indexed under its own version id. */
export interface VersionDef {
  ver: string;
  type: FieldType;
  source: FieldSource;
}

/**
 * A declared field. `active` answers queries; `next` is a re-declaration being backfilled beside it
 * (both are written at document write time). A new field has no `active` until its backfill completes,
 * and queries then read `next`, so progress is visible as it happens.
 */
export interface FieldRecord {
  name: string;
  partition_scope: string | null;
  type: FieldType;
  source: FieldSource;
  active: VersionDef | null;
  next: VersionDef | null;
  backfill: string;
}

/** A version the write path must maintain, with the partition it applies to. */
export interface WritableVersion extends VersionDef {
  partition_scope: string | null;
}

/** Field records of a tenant. Writers call the mutating methods inside a store transaction. */
export class SchemaRegistry {
  constructor(private readonly db: IndexDb) {}

  /** Every field of the tenant, or those of one partition scope (null: the tenant-wide ones). */
  list(t: string, scope?: string | null): FieldRecord[] {
    const prefix = fieldPrefix(t, scope);
    const out: FieldRecord[] = [];
    for (const { value } of this.db.meta.getRange({ start: prefix, end: [...prefix, '\u{10ffff}'] })) out.push(value as FieldRecord);
    return out;
  }

  get(t: string, scope: string | null, name: string): FieldRecord | undefined {
    return this.db.meta.get(fieldKey(t, scope, name)) as FieldRecord | undefined;
  }

  put(t: string, record: FieldRecord): void {
    this.db.meta.put(fieldKey(t, record.partition_scope, record.name), record);
  }

  remove(t: string, scope: string | null, name: string): void {
    this.db.meta.remove(fieldKey(t, scope, name));
  }

  /** A fresh version id; call inside the transaction that stores it. */
  mintVersion(t: string): string {
    const n = (this.db.meta.get(nextVersionKey(t)) as number | undefined) ?? 0;
    this.db.meta.put(nextVersionKey(t), n + 1);
    return `f${n}`;
  }

  writableVersions(t: string): WritableVersion[] {
    const out: WritableVersion[] = [];
    for (const f of this.list(t)) {
      if (f.active) out.push({ ...f.active, partition_scope: f.partition_scope });
      if (f.next) out.push({ ...f.next, partition_scope: f.partition_scope });
    }
    return out;
  }

  /**
   * Name resolution of a query: built-ins, then the fields of the query's partition, then the
   * tenant-wide fields. A field being backfilled for the first time answers from its partial index.
   */
  resolver(t: string, partition: string | null): (name: string) => ResolvedField | undefined {
    const declared = new Map<string, ResolvedField>();
    const scopes = partition === null ? [null] : [null, partition];
    for (const scope of scopes) {
      for (const f of this.list(t, scope)) {
        const def = f.active ?? f.next;
        if (def) declared.set(f.name, { name: f.name, type: def.type, ver: def.ver });
      }
    }
    return (name) => (isBuiltinField(name) ? { name, type: BUILTIN_FIELDS[name], ver: `b.${name}` } : declared.get(name));
  }
}

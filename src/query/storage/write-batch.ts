import type { DocValue } from '../plan/types.js';
import type { Key } from '../../store/lmdb.js';
import { readNumericChunk, readStringChunk, type ColumnArray } from './columns.js';
import { applyDelta, containerHas, SEG_SIZE } from './docset.js';
import { chunkShift, columnKey, type IndexDb } from './layout.js';

/**
 * Read-modify-write buffer for one LMDB write transaction: containers and column chunks are read once,
 * changed in memory and written once by `flush`. Must be created and flushed inside the transaction
 * callback, so every read-modify-write of tenant-wide structures sees the transaction's own state.
 */
export class WriteBatch {
  private readonly containers = new Map<string, ContainerDelta>();
  private readonly columns = new Map<string, { key: Key; numeric: boolean; data: ColumnArray }>();

  constructor(private readonly db: IndexDb) {}

  setBit(key: Key, docNo: number, present: boolean): void {
    this.container(key).delta.set(docNo & (SEG_SIZE - 1), present);
  }

  hasBit(key: Key, docNo: number): boolean {
    const entry = this.container(key);
    const low = docNo & (SEG_SIZE - 1);
    const changed = entry.delta.get(low);
    if (changed !== undefined) return changed;
    entry.stored ??= this.db.bin.get(key) ?? null;
    return entry.stored !== null && containerHas(entry.stored, low);
  }

  getValue(t: string, ver: string, numeric: boolean, docNo: number): DocValue {
    const shift = chunkShift(numeric);
    const data = this.column(t, ver, numeric, docNo >>> shift);
    const at = docNo & ((1 << shift) - 1);
    if (numeric) {
      const n = (data as Float64Array)[at]!;
      return Number.isNaN(n) ? null : n;
    }
    return (data as DocValue[])[at] ?? null;
  }

  setValue(t: string, ver: string, numeric: boolean, docNo: number, value: DocValue): void {
    const shift = chunkShift(numeric);
    const data = this.column(t, ver, numeric, docNo >>> shift);
    const at = docNo & ((1 << shift) - 1);
    if (numeric) (data as Float64Array)[at] = value === null ? NaN : (value as number);
    else (data as DocValue[])[at] = value;
  }

  flush(): void {
    for (const entry of this.containers.values()) {
      if (entry.delta.size === 0) continue;
      const stored = entry.stored !== undefined ? entry.stored : (this.db.bin.get(entry.key) ?? null);
      const bytes = applyDelta(stored, entry.delta);
      if (bytes) this.db.bin.put(entry.key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      else if (stored) this.db.bin.remove(entry.key);
    }
    for (const { key, numeric, data } of this.columns.values()) {
      if (numeric) {
        const f = data as Float64Array;
        if (f.every(Number.isNaN)) this.db.bin.remove(key);
        else this.db.bin.put(key, Buffer.from(f.buffer, f.byteOffset, f.byteLength));
      } else {
        const a = data as DocValue[];
        if (a.every((v) => v === null)) this.db.meta.remove(key);
        else this.db.meta.put(key, a);
      }
    }
    this.containers.clear();
    this.columns.clear();
  }

  private container(key: Key): ContainerDelta {
    const id = cacheId(key);
    let entry = this.containers.get(id);
    if (!entry) this.containers.set(id, (entry = { key, stored: undefined, delta: new Map() }));
    return entry;
  }

  private column(t: string, ver: string, numeric: boolean, chunk: number): ColumnArray {
    const key = columnKey(t, ver, chunk);
    const id = cacheId(key);
    let entry = this.columns.get(id);
    if (!entry) {
      entry = { key, numeric, data: numeric ? readNumericChunk(this.db, key) : readStringChunk(this.db, key) };
      this.columns.set(id, entry);
    }
    return entry.data;
  }
}

/** Pending bit changes of one container; `stored` is read lazily (undefined: not read yet). */
interface ContainerDelta {
  key: Key;
  stored: Uint8Array | null | undefined;
  delta: Map<number, boolean>;
}

function cacheId(key: Key): string {
  let id = '';
  for (const part of key) id += (typeof part === 'number' ? '#' : '$') + String(part) + '\u0001';
  return id;
}

import type { DocValue } from '../plan/types.js';
import type { Key } from '../../store/lmdb.js';
import { legacyStringKeys, readFast, readListChunk, readNumericChunk, readStringChunk } from './columns.js';
import { BitDelta } from './bit-delta.js';
import { applyDelta, containerHas, SEG_SIZE } from './docset.js';
import { chunkShift, columnKey, nextDocNoKey, zoneKey, type ColumnForm, type IndexDb } from './layout.js';
import { markChanged } from './generation.js';
import { encodeStringChunk, type StringChunk } from './string-chunk.js';
import { CHUNKS_PER_SEG, setZone, storedZones } from './zones.js';

/** A column chunk being changed; a string one built from legacy chunks deletes them when written. */
type ColumnEntry =
  | { key: Key; form: 'numeric'; data: Float64Array }
  | { key: Key; form: 'string'; data: StringChunk; legacy: Key[] }
  | { key: Key; form: 'list'; data: DocValue[] };

/**
 * Read-modify-write buffer for one LMDB write transaction: containers and column chunks are read once,
 * changed in memory and written once by `flush`. Must be created and flushed inside the transaction
 * callback, so every read-modify-write of tenant-wide structures sees the transaction's own state.
 */
export class WriteBatch {
  private readonly containers = new KeyMap<ContainerDelta>();
  private readonly columns = new KeyMap<ColumnEntry>();
  /** Zone maps of the segments whose numeric chunks this batch writes, each read once. */
  private readonly zones = new KeyMap<{ key: Key; zones: Float64Array }>();

  /** Next document number per tenant, read once per batch and stored by `flush`. */
  private readonly nextDocNos = new Map<string, number>();

  constructor(private readonly db: IndexDb) {}

  /** A new document number of tenant `t`. */
  allocateDocNo(t: string): number {
    const docNo = this.nextDocNos.get(t) ?? (this.db.meta.get(nextDocNoKey(t)) as number | undefined) ?? 0;
    this.nextDocNos.set(t, docNo + 1);
    return docNo;
  }

  setBit(key: Key, docNo: number, present: boolean): void {
    this.container(key).delta.set(docNo & (SEG_SIZE - 1), present);
  }

  hasBit(key: Key, docNo: number): boolean {
    const entry = this.container(key);
    const low = docNo & (SEG_SIZE - 1);
    const changed = entry.delta.get(low);
    if (changed !== undefined) return changed;
    // Read once per batch, an absent container included (null), not again on every call.
    if (entry.stored === undefined) entry.stored = this.db.bin.get(key) ?? null;
    return entry.stored !== null && containerHas(entry.stored, low);
  }

  getValue(t: string, ver: string, form: ColumnForm, docNo: number): DocValue {
    const shift = chunkShift(form);
    const entry = this.column(t, ver, form, docNo >>> shift);
    const at = docNo & ((1 << shift) - 1);
    switch (entry.form) {
      case 'numeric': {
        const n = entry.data[at]!;
        return Number.isNaN(n) ? null : n;
      }
      case 'string':
        return entry.data.get(at);
      case 'list':
        return entry.data[at] ?? null;
    }
  }

  setValue(t: string, ver: string, form: ColumnForm, docNo: number, value: DocValue): void {
    const shift = chunkShift(form);
    const entry = this.column(t, ver, form, docNo >>> shift);
    const at = docNo & ((1 << shift) - 1);
    if (entry.form === 'numeric') entry.data[at] = value === null ? NaN : (value as number);
    else if (entry.form === 'string') entry.data.set(at, value as string | null);
    else entry.data[at] = value;
  }

  flush(): void {
    const changed = new Set<string>();
    for (const entry of this.containers.values()) {
      if (entry.delta.isEmpty) continue;
      changed.add(entry.key[0] as string);
      const stored = entry.stored !== undefined ? entry.stored : (readFast(this.db, entry.key) ?? null);
      const bytes = applyDelta(stored, entry.delta);
      if (bytes) this.db.bin.put(entry.key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      else if (stored) this.db.bin.remove(entry.key);
    }
    for (const entry of this.columns.values()) {
      changed.add(entry.key[0] as string);
      this.flushColumn(entry);
    }
    for (const t of changed) markChanged(this.db, t);
    for (const { key, zones } of this.zones.values()) this.db.bin.put(key, Buffer.from(zones.buffer, zones.byteOffset, zones.byteLength));
    for (const [t, next] of this.nextDocNos) this.db.meta.put(nextDocNoKey(t), next);
    this.nextDocNos.clear();
    this.containers.clear();
    this.columns.clear();
    this.zones.clear();
  }

  private container(key: Key): ContainerDelta {
    return this.containers.get(key, () => ({ key, stored: undefined, delta: new BitDelta() }));
  }

  private flushColumn(entry: ColumnEntry): void {
    const { key } = entry;
    switch (entry.form) {
      case 'numeric': {
        const f = entry.data;
        if (f.every(Number.isNaN)) this.db.bin.remove(key);
        else this.db.bin.put(key, Buffer.from(f.buffer, f.byteOffset, f.byteLength));
        setZone(this.segmentZones(key), key[3] as number, f);
        return;
      }
      case 'string':
        if (entry.data.isEmpty()) this.db.bin.remove(key);
        else this.db.bin.put(key, encodeStringChunk(entry.data));
        for (const legacy of entry.legacy) this.db.meta.remove(legacy);
        return;
      case 'list':
        if (entry.data.every((v) => v === null)) this.db.meta.remove(key);
        else this.db.meta.put(key, entry.data);
    }
  }

  /** The zones of the segment holding column chunk `[t, 'c', ver, chunk]`, read once per batch (absent: unknown). */
  private segmentZones(columnKey: Key): Float64Array {
    const [t, , ver, chunk] = columnKey as [string, string, string, number];
    const key = zoneKey(t, ver, Math.floor(chunk / CHUNKS_PER_SEG));
    return this.zones.get(key, () => ({ key, zones: storedZones(readFast(this.db, key)) })).zones;
  }

  private column(t: string, ver: string, form: ColumnForm, chunk: number): ColumnEntry {
    const key = columnKey(t, ver, chunk);
    return this.columns.get(key, () => this.readColumn(t, ver, form, chunk, key));
  }

  private readColumn(t: string, ver: string, form: ColumnForm, chunkNo: number, key: Key): ColumnEntry {
    switch (form) {
      case 'numeric':
        return { key, form, data: readNumericChunk(this.db, key) };
      case 'string': {
        const { chunk, legacy } = readStringChunk(this.db, t, ver, chunkNo);
        return { key, form, data: chunk, legacy: legacy ? legacyStringKeys(t, ver, chunkNo) : [] };
      }
      case 'list':
        return { key, form, data: readListChunk(this.db, key) };
    }
  }
}

/** Pending bit changes of one container; `stored` is read lazily (undefined: not read yet). */
interface ContainerDelta {
  key: Key;
  stored: Uint8Array | null | undefined;
  delta: BitDelta;
}

/**
 * Entries by LMDB key, in maps nested by key part: a document's write looks up ~60 keys, and this
 * finds them without building a string of each (numbers and strings stay distinct keys, as in LMDB).
 * All keys of one map have the same number of parts.
 */
class KeyMap<V> {
  private readonly root = new Map<Key[number], unknown>();
  private readonly entries: V[] = [];

  get(key: Key, create: () => V): V {
    let level = this.root;
    for (let i = 0; i < key.length - 1; i++) {
      let next = level.get(key[i]!) as Map<Key[number], unknown> | undefined;
      if (!next) level.set(key[i]!, (next = new Map()));
      level = next;
    }
    const last = key[key.length - 1]!;
    let entry = level.get(last) as V | undefined;
    if (entry === undefined) {
      level.set(last, (entry = create()));
      this.entries.push(entry);
    }
    return entry;
  }

  values(): V[] {
    return this.entries;
  }

  clear(): void {
    this.root.clear();
    this.entries.length = 0;
  }
}

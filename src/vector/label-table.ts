import type { Modality } from '../domain/documents.js';

/**
 * One byte per label, in shared memory, so the vector worker filters labels without a call back to the
 * event loop: whether the label holds a live vector, and its document's soft delete, modality and
 * whether readers restrict it.
 */
export const LabelFlag = { live: 1, softDeleted: 2, restricted: 4 } as const;
const MODALITY_SHIFT = 3;
const MODALITIES: readonly Modality[] = ['text', 'image', 'audio'];

export function modalityCode(modality: Modality): number {
  return MODALITIES.indexOf(modality);
}

/** The flags byte of a live label of a document in this state. */
export function flagsOf(doc: { modality: Modality; readers: string[] | null; deleted: boolean }): number {
  return (
    LabelFlag.live | (doc.deleted ? LabelFlag.softDeleted : 0) | (doc.readers !== null ? LabelFlag.restricted : 0) | (modalityCode(doc.modality) << MODALITY_SHIFT)
  );
}

/** What a search lets through, as the worker reads it: -1 for any modality; `readable` lists restricted labels the principal may read. */
export interface LabelFilter {
  modality: number;
  readable: Int32Array | null;
}

/** A predicate over labels from the flags alone (plus the readable restricted labels). */
export function labelPredicate(flags: Uint8Array, filter: LabelFilter): (label: number) => boolean {
  const readable = filter.readable ? new Set(filter.readable) : null;
  return (label) => {
    const f = flags[label] ?? 0;
    if ((f & LabelFlag.live) === 0 || (f & LabelFlag.softDeleted) !== 0) return false;
    if (filter.modality >= 0 && ((f >> MODALITY_SHIFT) & 3) !== filter.modality) return false;
    return (f & LabelFlag.restricted) === 0 || (readable?.has(label) ?? false);
  };
}

/** The shared buffers of one owner's labels: `dims` floats and one flags byte per label slot. */
export interface LabelBuffers {
  vectors: SharedArrayBuffer;
  flags: SharedArrayBuffer;
}

/**
 * One owner's vectors and label flags in SharedArrayBuffers: written only by the owner's actor on the
 * event loop, read by the vector worker (exact scans, inserts into hnswlib) without copies. Growing
 * allocates new buffers (doubling) and bumps `generation`, so whoever shares them hands the new ones over.
 */
export class LabelTable {
  vectors: Float32Array;
  flags: Uint8Array;
  generation = 0;

  constructor(
    readonly dims: number,
    // Room for a couple of passages at first, doubling after: most owners hold a handful, and 64 slots
    // up front were 98 KB of shared memory per resident owner at 384 dimensions (issue 16).
    slots = 2,
  ) {
    this.vectors = new Float32Array(new SharedArrayBuffer(slots * dims * 4));
    this.flags = new Uint8Array(new SharedArrayBuffer(slots));
  }

  get buffers(): LabelBuffers {
    return { vectors: this.vectors.buffer as SharedArrayBuffer, flags: this.flags.buffer as SharedArrayBuffer };
  }

  get byteLength(): number {
    return this.vectors.byteLength + this.flags.byteLength;
  }

  /** Makes room for `label` (doubling); true when the buffers were replaced. */
  ensure(label: number): boolean {
    let slots = this.flags.length;
    if (label < slots) return false;
    while (slots <= label) slots *= 2;
    const vectors = new Float32Array(new SharedArrayBuffer(slots * this.dims * 4));
    vectors.set(this.vectors);
    const flags = new Uint8Array(new SharedArrayBuffer(slots));
    flags.set(this.flags);
    this.vectors = vectors;
    this.flags = flags;
    this.generation++;
    return true;
  }
}

/** A batch with more changes than this to one container keeps them as bitsets. */
const LIST_MAX = 32;
const WORDS = 2048;

/**
 * Pending bit changes of one container (numbers within a 65,536-number segment); the last change of a
 * number wins. Few changes (a single document's write, a posting of a rare value) stay a short list;
 * many (an exists set, a common value's posting, in a bulk load: thousands per batch) become two
 * bitsets, set and cleared, since a Map of thousands of numbers cost a loading batch more than its
 * LMDB writes.
 */
export class BitDelta {
  private readonly lows: number[] = [];
  private readonly present: boolean[] = [];
  private added: Uint32Array | null = null;
  private cleared: Uint32Array | null = null;

  get isEmpty(): boolean {
    return this.added === null && this.lows.length === 0;
  }

  /** Whether the changes are held as bitsets (then `applyTo` is the way to read them). */
  get isBits(): boolean {
    return this.added !== null;
  }

  set(low: number, present: boolean): void {
    if (this.added === null || this.cleared === null) {
      this.lows.push(low);
      this.present.push(present);
      if (this.lows.length > LIST_MAX) this.toBits();
      return;
    }
    const w = low >>> 5;
    const bit = 1 << (low & 31);
    if (present) {
      this.added[w]! |= bit;
      this.cleared[w]! &= ~bit;
    } else {
      this.cleared[w]! |= bit;
      this.added[w]! &= ~bit;
    }
  }

  /** The pending change of `low`, or undefined when there is none. */
  get(low: number): boolean | undefined {
    if (this.added === null || this.cleared === null) {
      for (let i = this.lows.length - 1; i >= 0; i--) if (this.lows[i] === low) return this.present[i];
      return undefined;
    }
    const bit = 1 << (low & 31);
    if ((this.added[low >>> 5]! & bit) !== 0) return true;
    return (this.cleared[low >>> 5]! & bit) !== 0 ? false : undefined;
  }

  /** Applies the changes to a segment's bitset (in place); returns whether any change cleared a number. */
  applyTo(words: Uint32Array): boolean {
    if (this.added === null || this.cleared === null) {
      let removed = false;
      for (let i = 0; i < this.lows.length; i++) {
        const low = this.lows[i]!;
        if (this.present[i]) words[low >>> 5]! |= 1 << (low & 31);
        else {
          words[low >>> 5]! &= ~(1 << (low & 31));
          removed = true;
        }
      }
      return removed;
    }
    let removed = 0;
    for (let w = 0; w < WORDS; w++) {
      words[w] = (words[w]! | this.added[w]!) & ~this.cleared[w]!;
      removed |= this.cleared[w]!;
    }
    return removed !== 0;
  }

  /** The list form's changes, the last per number, in ascending order of number (for merging into a sorted array). */
  sorted(): Array<[number, boolean]> {
    const last = new Map<number, boolean>();
    for (let i = 0; i < this.lows.length; i++) last.set(this.lows[i]!, this.present[i]!);
    return [...last].sort((a, b) => a[0] - b[0]);
  }

  private toBits(): void {
    this.added = new Uint32Array(WORDS);
    this.cleared = new Uint32Array(WORDS);
    for (let i = 0; i < this.lows.length; i++) this.set(this.lows[i]!, this.present[i]!);
    this.lows.length = 0;
    this.present.length = 0;
  }
}

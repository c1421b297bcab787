/** A slice of a document's text that is embedded on its own; offsets are UTF-16 indexes into the text. */
export interface Passage {
  text: string;
  start: number;
}

export interface PassageOptions {
  /** Target passage length in characters. */
  maxChars: number;
  /** Characters repeated from the end of one passage at the start of the next, so no sentence is cut off. */
  overlapChars: number;
}

export const DEFAULT_PASSAGES: PassageOptions = { maxChars: 1000, overlapChars: 150 };

/**
 * Splits text into passages of at most `maxChars`, cutting at a paragraph, sentence or word boundary when
 * one lies in the second half of the window. Short text is one passage; empty text gives none.
 */
export function splitPassages(text: string, options: PassageOptions = DEFAULT_PASSAGES): Passage[] {
  const { maxChars, overlapChars } = options;
  if (text.trim() === '') return [];
  if (text.length <= maxChars) return [{ text: text.trim(), start: 0 }];
  const passages: Passage[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + maxChars);
    if (end < text.length) end = cutPoint(text, start, end);
    const slice = text.slice(start, end).trim();
    if (slice) passages.push({ text: slice, start });
    if (end >= text.length) break;
    const next = Math.max(end - overlapChars, start + 1);
    start = alignToWord(text, next, end);
  }
  return passages;
}

function cutPoint(text: string, start: number, end: number): number {
  const half = start + Math.floor((end - start) / 2);
  const window = text.slice(half, end);
  for (const pattern of [/\n\s*\n/g, /[.!?]["')\]]?\s/g, /\s/g]) {
    let last = -1;
    for (const m of window.matchAll(pattern)) last = (m.index ?? 0) + m[0].length;
    if (last > 0) return half + last;
  }
  return end;
}

/** Moves an overlap start forward to the next word start, so a passage never begins mid-word. */
function alignToWord(text: string, from: number, limit: number): number {
  if (from === 0 || /\s/.test(text[from - 1] ?? ' ')) return from;
  for (let i = from; i < limit; i++) if (/\s/.test(text[i] ?? '')) return i + 1;
  return from;
}

/** How a model reads passages: at most `maxTokens` of each, counted by `count` (its own tokenizer). */
export interface TokenWindow {
  maxTokens: number;
  count(texts: string[]): Promise<number[]>;
}

/** Rounds of re-splitting before a passage that still does not fit is cut by characters alone. */
const FIT_ROUNDS = 4;

/**
 * Splits text into passages that each fit the model's window, so no word of a passage is cut off unread:
 * passages split by characters first, then any over `maxTokens` split again with a character budget scaled
 * by how far over it was (dense text, digits and CJK take more tokens per character than prose).
 */
export async function splitPassagesToFit(text: string, window: TokenWindow, options: PassageOptions = DEFAULT_PASSAGES): Promise<Passage[]> {
  let passages = splitPassages(text, options);
  for (let round = 0; round < FIT_ROUNDS; round++) {
    const counts = await window.count(passages.map((p) => p.text));
    if (counts.every((n) => n <= window.maxTokens)) return passages;
    passages = passages.flatMap((passage, i) => {
      const n = counts[i]!;
      if (n <= window.maxTokens) return [passage];
      const maxChars = Math.max(16, Math.floor((passage.text.length * window.maxTokens * 0.9) / n));
      const overlapChars = Math.floor((maxChars * options.overlapChars) / options.maxChars);
      return splitPassages(passage.text, { maxChars, overlapChars }).map((p) => ({ text: p.text, start: passage.start + p.start }));
    });
  }
  return passages;
}

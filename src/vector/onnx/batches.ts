/** How many of the oldest waiting texts the planner looks at, so planning stays cheap under a large backlog. */
const WINDOW = 256;

/**
 * Picks the texts of the next forward pass from the waiting ones (oldest first in `lengths`, token
 * counts): the oldest always goes, so nothing waits forever; waiting texts of the closest token length
 * join it while the padded batch (texts x longest) stays within `maxBatchTokens`, which keeps both the
 * padding and onnxruntime's memory small. Returns indexes into `lengths`.
 */
export function nextBatch(lengths: readonly number[], maxBatchTokens: number): number[] {
  if (lengths.length === 0) return [];
  const anchor = lengths[0]!;
  const others: Array<{ length: number; index: number }> = [];
  for (let index = 1; index < Math.min(lengths.length, WINDOW); index++) others.push({ length: lengths[index]!, index });
  others.sort((a, b) => Math.abs(a.length - anchor) - Math.abs(b.length - anchor) || a.index - b.index);
  const chosen = [0];
  let longest = anchor;
  for (const other of others) {
    const padded = Math.max(longest, other.length);
    if ((chosen.length + 1) * padded > maxBatchTokens) continue;
    chosen.push(other.index);
    longest = padded;
  }
  return chosen;
}

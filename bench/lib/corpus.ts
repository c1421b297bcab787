/** Deterministic synthetic text for the search and ingest benchmarks: Zipf-distributed pseudo-words. */
export function createCorpus(seed = 42, vocabulary = 5000) {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const syllables = ['ka', 'lo', 'mi', 'ren', 'tas', 'vo', 'dul', 'shi', 'per', 'no', 'gra', 'fen', 'ix', 'bo', 'ta', 'rum', 'sel', 'qua', 'zo', 'han'];
  const words = Array.from({ length: vocabulary }, () => {
    const n = 2 + Math.floor(rand() * 3);
    return Array.from({ length: n }, () => syllables[Math.floor(rand() * syllables.length)]).join('');
  });
  // Zipf: word i has weight 1/(i+1).
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < vocabulary; i++) cumulative.push((total += 1 / (i + 1)));
  const word = () => {
    const x = rand() * total;
    let lo = 0;
    let hi = vocabulary - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
  return {
    rand,
    sentence: (min: number, max: number) => Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, word).join(' '),
    /** A query made of some words of `text` plus one random word, so it has real neighbours. */
    queryFrom: (text: string) => {
      const parts = text.split(' ');
      const start = Math.floor(rand() * Math.max(1, parts.length - 4));
      return `${parts.slice(start, start + 4).join(' ')} ${word()}`;
    },
  };
}

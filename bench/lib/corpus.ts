/**
 * Deterministic synthetic text for the search and ingest benchmarks. Like real notes, each document is
 * about one of `topics` topics: half its words come from that topic's own vocabulary, half from a
 * Zipf-distributed common vocabulary.
 */
export function createCorpus(seed = 42, vocabulary = 5000) {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  // Pseudo-words of 3-10 letters alternating consonants and vowels, so their letter trigrams are about as
  // varied as a natural language's (words built from a handful of syllables would share most trigrams).
  const consonants = 'bcdfghjklmnprstvwz';
  const vowels = 'aeiouy';
  const words = Array.from({ length: vocabulary }, () => {
    const n = 3 + Math.floor(rand() * 8);
    let w = '';
    for (let i = 0; i < n; i++) {
      const set = (i + (rand() < 0.3 ? 1 : 0)) % 2 === 0 ? consonants : vowels;
      w += set[Math.floor(rand() * set.length)];
    }
    return w;
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
  const topics = Array.from({ length: 300 }, () => Array.from({ length: 60 }, () => words[Math.floor(rand() * vocabulary)]!));
  return {
    rand,
    sentence: (min: number, max: number) => {
      const topic = topics[Math.floor(rand() * topics.length)]!;
      return Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, () => (rand() < 0.5 ? topic[Math.floor(rand() * topic.length)]! : word())).join(' ');
    },
    /** A query made of some words of `text` plus one random word, so it has real neighbours. */
    queryFrom: (text: string) => {
      const parts = text.split(' ');
      const start = Math.floor(rand() * Math.max(1, parts.length - 4));
      return `${parts.slice(start, start + 4).join(' ')} ${word()}`;
    },
  };
}

/**
 * The in-process baseline: Okapi BM25 (k1 1.2, b 0.75) over the project's own tokenizer, with Lucene's
 * non-negative idf, ln(1 + (N - df + 0.5) / (df + 0.5)). Each distinct query term counts once; a document
 * that shares no term with the query is not retrieved; equal scores rank the earlier document first.
 */
export interface Bm25Options {
  k1?: number;
  b?: number;
}

export function createBm25(documents: readonly string[], tokenize: (text: string) => string[], options: Bm25Options = {}) {
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;
  const postings = new Map<string, Array<{ doc: number; tf: number }>>();
  const lengths = documents.map((text, doc) => {
    const counts = new Map<string, number>();
    const terms = tokenize(text);
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, tf] of counts) {
      const list = postings.get(term) ?? [];
      list.push({ doc, tf });
      postings.set(term, list);
    }
    return terms.length;
  });
  const n = documents.length;
  const avgLength = lengths.reduce((a, l) => a + l, 0) / Math.max(1, n);

  /** Indexes of the best `k` documents for `query`, best first. */
  const search = (query: string, k: number): number[] => {
    const scores = new Map<number, number>();
    for (const term of new Set(tokenize(query))) {
      const list = postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = tf + k1 * (1 - b + (b * lengths[doc]!) / avgLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (k1 + 1)) / norm);
      }
    }
    return [...scores]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, k)
      .map(([doc]) => doc);
  };
  return { search };
}

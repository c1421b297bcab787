/**
 * The project's word rules, shared by the hashing embedder and the lexical index: a query and a passage are
 * cut the same way, so a word matches itself whichever index reads it.
 */

const STOPWORDS = new Set(
  'a an and are as at be but by for from has have he her his i in is it its of on or our she so than that the their them then there these they this to was we were what when where which who will with you your'.split(' '),
);

/** Lower-cased letter/digit runs, stop words dropped, a trailing plural `s` folded. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().normalize('NFKC').matchAll(/[\p{L}\p{N}]+/gu)) {
    let w = m[0];
    if (STOPWORDS.has(w)) continue;
    if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
    out.push(w);
  }
  return out;
}

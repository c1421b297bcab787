/**
 * WordNet glosses → their words (Debian `wordnet-base`). A document is one synset's words ("car, auto,
 * automobile, machine, motorcar"); a query is its gloss without the quoted examples ("a motor vehicle with
 * four wheels; usually propelled by an internal combustion engine").
 *
 * The rule, all draws from one seeded PRNG:
 * 1. Candidates: the synsets that are the most frequent sense of some lemma with at least 2 senses tagged
 *    in SemCor (common words, not the taxonomy's long tail), of every part of speech; of synsets with the
 *    same set of words only the first is kept.
 * 2. The pool is a sample of `pool` candidates.
 * 3. Queries: a sample of `queries` pool synsets whose definition has at least 3 content tokens and shares
 *    no token with the synset's own words (the project's tokenizer), so a query never names its answer.
 */
import { createRandom } from '../random.js';
import type { EvalSet } from '../types.js';
import type { Synset } from '../wordnet.js';

export const GLOSS_MIN_TAGGED = 2;

export interface GlossOptions {
  seed: number;
  pool: number;
  queries: number;
  tokenize: (text: string) => string[];
}

export function buildGlossSet(candidates: readonly Synset[], options: GlossOptions): EvalSet {
  const random = createRandom(options.seed);
  const seen = new Set<string>();
  const distinct = candidates.filter((s) => {
    const key = s.lemmas.map((l) => l.toLowerCase()).sort().join('|');
    return !seen.has(key) && seen.add(key);
  });
  const pool = random.sample(distinct, options.pool);
  const askable = pool.flatMap((s, i) => {
    const own = new Set(options.tokenize(s.lemmas.join(' ')));
    const tokens = options.tokenize(s.definition);
    return tokens.length >= 3 && !tokens.some((t) => own.has(t)) ? [i] : [];
  });
  const queries = random.sample(askable, options.queries).map((target) => ({ text: pool[target]!.definition, target }));
  return {
    name: 'glosses',
    about: `${pool.length} WordNet synsets as documents (their words); ${queries.length} queries are glosses naming none of their words`,
    documents: pool.map((s) => s.lemmas.join(', ')),
    queries: { gloss: queries },
  };
}

/** The evaluation sets by name, built from their sources (Debian packages installed on first use). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tokenize } from '../tokenizer.js';
import { ROOT } from '../../lib/processes.js';
import { ensureDebianPackages } from '../debian.js';
import type { EvalSet } from '../types.js';
import { firstSynonyms, loadWordNet, type WordNet } from '../wordnet.js';
import { buildGlossSet, GLOSS_MIN_TAGGED } from './glosses.js';
import { buildKnownItemSet, FORTUNES_DIR, readFortunes } from './known-item.js';
import { readParaphraseSet } from './paraphrase.js';

export const SET_NAMES = ['paraphrase', 'known-item', 'glosses'] as const;
export type SetName = (typeof SET_NAMES)[number];

export const PARAPHRASE_FILE = join(ROOT, '..', 'shared', 'eval', 'paraphrase.json');
const WORDNET_DIR = 'usr/share/wordnet';

export interface SetOptions {
  seed: number;
  /** Documents of the known-item and gloss sets. */
  pool: number;
  /** Queries of each kind of the known-item and gloss sets. */
  queries: number;
  paraphraseFile: string;
}

export function buildSets(names: readonly SetName[], options: SetOptions): EvalSet[] {
  const needsDebian = names.some((n) => n !== 'paraphrase');
  const root = needsDebian ? ensureDebianPackages(['fortunes-min', 'fortunes', 'wordnet-base']) : '';
  let wordnet: WordNet | undefined;
  const wn = () => (wordnet ??= loadWordNet(join(root, WORDNET_DIR)));
  return names.flatMap((name): EvalSet[] => {
    switch (name) {
      case 'paraphrase':
        if (existsSync(options.paraphraseFile)) return [readParaphraseSet(options.paraphraseFile)];
        console.error(`paraphrase set skipped: ${options.paraphraseFile} not found`);
        return [];
      case 'known-item':
        return [buildKnownItemSet(readFortunes(join(root, FORTUNES_DIR)), { ...options, tokenize, synonyms: (w) => firstSynonyms(wn(), w) })];
      case 'glosses':
        return [buildGlossSet(wn().commonFirstSenses(GLOSS_MIN_TAGGED), { ...options, tokenize })];
    }
  });
}

/** The project's own tokenizer (lower-cased letter/digit runs, stop words dropped, plural `s` folded): BM25 and the set rules use it. */
export { tokenize } from '../../src/domain/text.js';

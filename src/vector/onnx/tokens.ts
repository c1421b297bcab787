import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

/**
 * The model's WordPiece tokenizer (tokenizer.json, pure JS): token ids with [CLS] first and [SEP] last,
 * cut to `maxTokens` the way sentence-transformers cuts them (the last kept id is still [SEP]).
 */
export class TokenCutter {
  private constructor(
    private readonly tokenizer: Tokenizer,
    private readonly sepId: number,
    private readonly maxTokens: number,
  ) {}

  static load(dir: string, maxTokens: number): TokenCutter {
    const spec = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
    // The file carries the training-time padding and truncation (128); ours are per batch and `maxTokens`.
    spec.truncation = null;
    spec.padding = null;
    const configPath = join(dir, 'tokenizer_config.json');
    const config: object = existsSync(configPath) ? (JSON.parse(readFileSync(configPath, 'utf8')) as object) : {};
    const tokenizer = new Tokenizer(spec, config);
    const sepId = tokenizer.token_to_id('[SEP]');
    if (sepId === undefined) throw new Error(`${join(dir, 'tokenizer.json')} has no [SEP] token`);
    return new TokenCutter(tokenizer, sepId, maxTokens);
  }

  /** Tokens of the text with [CLS] and [SEP], before any cut. */
  count(text: string): number {
    return this.tokenizer.encode(text).ids.length;
  }

  ids(text: string): number[] {
    const ids = this.tokenizer.encode(text).ids;
    if (ids.length <= this.maxTokens) return ids;
    const cut = ids.slice(0, this.maxTokens - 1);
    cut.push(this.sepId);
    return cut;
  }
}

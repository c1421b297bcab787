import { join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { normalise } from '../embedder.js';

export interface EncoderOptions {
  /** The model folder (model.onnx). */
  dir: string;
  /** onnxruntime intra-op threads. */
  threads: number;
  /** Dimensions every output vector must have. */
  dimensions: number;
}

/**
 * One onnxruntime session of a BERT sentence encoder: a forward pass over already tokenised texts, one
 * L2-normalised vector per text. The graph's `sentence_embedding` output is used when it has one, else
 * `last_hidden_state` is mean-pooled over the attention mask here (a plain transformer export).
 * `run` computes on the calling thread: only the embedding worker calls it.
 */
export class SentenceEncoder {
  private readonly pooled: boolean;

  private constructor(
    private readonly session: InferenceSession,
    private readonly dimensions: number,
  ) {
    this.pooled = session.outputNames.includes('sentence_embedding');
    if (!this.pooled && !session.outputNames.includes('last_hidden_state')) {
      throw new Error(`model.onnx has neither a sentence_embedding nor a last_hidden_state output (it has ${session.outputNames.join(', ')})`);
    }
  }

  static async load(options: EncoderOptions): Promise<SentenceEncoder> {
    const session = await InferenceSession.create(join(options.dir, 'model.onnx'), {
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      intraOpNumThreads: options.threads,
      interOpNumThreads: 1,
    });
    return new SentenceEncoder(session, options.dimensions);
  }

  /** One forward pass; `batch` holds token ids with [CLS]/[SEP], padded here to the longest. */
  async run(batch: readonly number[][]): Promise<Float32Array[]> {
    const rows = batch.length;
    const width = Math.max(...batch.map((ids) => ids.length));
    const ids = new BigInt64Array(rows * width);
    const mask = new BigInt64Array(rows * width);
    batch.forEach((row, r) => {
      for (let c = 0; c < row.length; c++) {
        ids[r * width + c] = BigInt(row[c]!);
        mask[r * width + c] = 1n;
      }
    });
    const feeds = {
      input_ids: new Tensor('int64', ids, [rows, width]),
      attention_mask: new Tensor('int64', mask, [rows, width]),
      token_type_ids: new Tensor('int64', new BigInt64Array(rows * width), [rows, width]),
    };
    const output = this.pooled ? 'sentence_embedding' : 'last_hidden_state';
    const result = await this.session.run(feeds, [output]);
    const data = result[output]!.data as Float32Array;
    const dims = this.pooled ? data.length / rows : data.length / (rows * width);
    if (dims !== this.dimensions) throw new Error(`model.onnx gives ${dims} dimensions, not ${this.dimensions}`);
    if (this.pooled) return batch.map((_, r) => normalise(data.slice(r * dims, (r + 1) * dims)));
    return batch.map((row, r) => {
      const v = new Float32Array(dims);
      for (let c = 0; c < row.length; c++) {
        const at = (r * width + c) * dims;
        for (let k = 0; k < dims; k++) v[k]! += data[at + k]!;
      }
      return normalise(v);
    });
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

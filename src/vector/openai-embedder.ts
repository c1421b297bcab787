import { AppError } from '../errors.js';
import type { Embedder } from './embedder.js';
import { normalise } from './embedder.js';

export interface OpenAiEmbedderOptions {
  /** Base URL; `/embeddings` is appended. */
  url: string;
  key?: string | undefined;
  model: string;
  dimensions: number;
  /** Texts per request. */
  batchSize?: number;
  timeoutMs?: number;
}

/** An OpenAI-compatible `/embeddings` provider (`EMBEDDINGS_URL`). Vectors are re-normalised on arrival. */
export class OpenAiEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.id = `openai:${options.model}:${options.dimensions}`;
    this.dimensions = options.dimensions;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const batch = this.options.batchSize ?? 64;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batch) out.push(...(await this.request(texts.slice(i, i + batch))));
    return out;
  }

  private async request(input: readonly string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.key) headers.authorization = `Bearer ${this.options.key}`;
    let res: Response;
    try {
      res = await fetch(`${this.options.url.replace(/\/$/, '')}/embeddings`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.options.model, input }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (cause) {
      throw new AppError('provider_error', 'the embeddings provider could not be reached', { cause, expose: true });
    }
    if (!res.ok) throw new AppError('provider_error', `the embeddings provider answered ${res.status}`, { expose: true });
    const body = (await res.json()) as { data?: Array<{ embedding?: number[]; index?: number }> };
    const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    if (data.length !== input.length || data.some((d) => d.embedding?.length !== this.dimensions)) {
      throw new AppError('provider_error', `the embeddings provider did not return ${input.length} vectors of ${this.dimensions} dimensions`, { expose: true });
    }
    return data.map((d) => normalise(Float32Array.from(d.embedding ?? [])));
  }
}

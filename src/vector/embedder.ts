/**
 * Turns text into unit-length vectors of a fixed dimension. Every vector an index holds comes from one
 * embedder (`id` names it), so distances between them are comparable.
 */
export interface Embedder {
  /** Names the model and its settings; an index built by another embedder is rebuilt. */
  readonly id: string;
  readonly dimensions: number;
  /** One L2-normalised vector per text, in order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Set when the embedder reads at most this many tokens of a text and cuts the rest (a model's window). */
  readonly maxTokens?: number;
  /** With `maxTokens`: how many tokens each text has before that cut. */
  countTokens?(texts: readonly string[]): Promise<number[]>;
  /** As `embed`, but yields to live requests (a shared model thread serves queries and writes first). */
  embedInBackground?(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i]! *= inv;
  }
  return v;
}

/** Cosine distance of two unit vectors: 1 - dot, in [0, 2]. */
export function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return 1 - dot;
}

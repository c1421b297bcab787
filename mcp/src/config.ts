import { z } from 'zod';
import { OwnerIdSchema, PartitionSchema } from './tools/inputs.js';

/** How the server talks to its host: one client over stdin/stdout, or streamable HTTP sessions. */
export type TransportMode = 'stdio' | 'http';

/** Thrown at start when the environment does not describe a server that may run; the message says what to set. */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

/** `true` or `false`, nothing else: a typo in a safety switch must stop the server, not turn it off or on. */
const SwitchSchema = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .default('false')
  .transform((v) => v === 'true');

/** A comma-separated list; empty entries dropped. */
const ListSchema = z
  .string()
  .default('')
  .transform((csv) => csv.split(',').map((s) => s.trim()).filter((s) => s !== ''));

const blankIsUnset = (value: unknown) => (value === '' ? undefined : value);

/** The environment the server reads, with its defaults. Nothing else in the server reads `process.env`. */
export const EnvSchema = z.object({
  ENGRAM_BASE_URL: z.preprocess(
    blankIsUnset,
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. http://127.0.0.1:8080' }).default('http://127.0.0.1:8080'),
  ),
  ENGRAM_API_KEY: z.preprocess(
    blankIsUnset,
    z.string({ error: 'is required: the Engram API key the server calls the service with' }).min(1),
  ),
  ENGRAM_OWNER: z.preprocess(blankIsUnset, OwnerIdSchema.optional()),
  ENGRAM_PARTITION: z.preprocess(blankIsUnset, PartitionSchema.optional()),
  ENGRAM_MCP_ALLOW_OWNER_ARG: z.preprocess(blankIsUnset, SwitchSchema),
  ENGRAM_MCP_ALLOW_ERASE: z.preprocess(blankIsUnset, SwitchSchema),
  ENGRAM_MCP_TOKEN: z.preprocess(
    blankIsUnset,
    z.string().min(16, 'must be at least 16 characters (e.g. `openssl rand -hex 32`)').optional(),
  ),
  ENGRAM_MCP_HOST: z.preprocess(blankIsUnset, z.string().min(1).default('127.0.0.1')),
  ENGRAM_MCP_PORT: z.preprocess(
    blankIsUnset,
    z.coerce.number({ error: 'must be a port number' }).int('must be a whole number').min(0).max(65535, 'must be at most 65535').default(8765),
  ),
  ENGRAM_MCP_ALLOWED_ORIGINS: z.preprocess(blankIsUnset, ListSchema),
  ENGRAM_MCP_ALLOWED_HOSTS: z.preprocess(blankIsUnset, ListSchema),
});

/** The server's settings, parsed once at start and passed down. */
export interface Config {
  mode: TransportMode;
  baseUrl: string;
  apiKey: string;
  /** The owner of a session when its host names none (stdio: the only one). */
  defaultOwner: string | undefined;
  partition: string | undefined;
  /** Offer a per-call `owner` argument on every tool (off by default: a model reads text others wrote). */
  allowOwnerArgument: boolean;
  /** Offer the `erase_owner` tool (off by default). */
  allowErase: boolean;
  http: {
    host: string;
    port: number;
    token: string | undefined;
    /** Origins whose browser pages may call the server; a request with any other Origin gets 403. */
    allowedOrigins: string[];
    /** Host header names accepted (DNS rebinding protection). */
    allowedHosts: string[];
  };
}

/** Parses the environment; throws ConfigurationError naming every variable that is wrong. */
export function loadConfig(env: Record<string, string | undefined>, mode: TransportMode): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigurationError(`engram-mcp: invalid configuration\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const config: Config = {
    mode,
    baseUrl: e.ENGRAM_BASE_URL,
    apiKey: e.ENGRAM_API_KEY,
    defaultOwner: e.ENGRAM_OWNER,
    partition: e.ENGRAM_PARTITION,
    allowOwnerArgument: e.ENGRAM_MCP_ALLOW_OWNER_ARG,
    allowErase: e.ENGRAM_MCP_ALLOW_ERASE,
    http: {
      host: e.ENGRAM_MCP_HOST,
      port: e.ENGRAM_MCP_PORT,
      token: e.ENGRAM_MCP_TOKEN,
      allowedOrigins: e.ENGRAM_MCP_ALLOWED_ORIGINS,
      allowedHosts: e.ENGRAM_MCP_ALLOWED_HOSTS.length > 0 ? e.ENGRAM_MCP_ALLOWED_HOSTS : defaultHosts(e.ENGRAM_MCP_HOST),
    },
  };
  checkMode(config);
  return config;
}

/** Loopback names, and the bound address itself when it is another one. */
function defaultHosts(bound: string): string[] {
  const loopback = ['localhost', '127.0.0.1', '[::1]'];
  const own = bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound;
  return own === '0.0.0.0' || own === '[::]' || loopback.includes(own) ? loopback : [...loopback, own];
}

function checkMode(config: Config): void {
  if (config.mode === 'stdio' && config.defaultOwner === undefined && !config.allowOwnerArgument) {
    throw new ConfigurationError(
      'engram-mcp: ENGRAM_OWNER is required over stdio: it names the one owner (user, agent session) whose memory this server reads and writes',
    );
  }
  if (config.mode === 'http' && config.http.token === undefined) {
    throw new ConfigurationError(
      'engram-mcp: ENGRAM_MCP_TOKEN is required with --http: clients must send it as `Authorization: Bearer <token>` (make one with `openssl rand -hex 32`)',
    );
  }
}

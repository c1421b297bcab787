#!/usr/bin/env node
/**
 * engram-mcp: Engram's MCP server. `engram-mcp` serves one client over stdio; `engram-mcp --http` serves
 * streamable HTTP on ENGRAM_MCP_HOST:ENGRAM_MCP_PORT (127.0.0.1:8765). Configuration: the environment (config.ts).
 */
import { ConfigurationError, loadConfig, type TransportMode } from './config.js';
import { serveHttp } from './http.js';
import { SERVER_VERSION } from './server.js';
import { serveStdio } from './stdio.js';

const USAGE = `usage: engram-mcp [--http]
  (no flag)  serve one MCP client over stdin/stdout (for a host that spawns the server)
  --http     serve streamable HTTP at http://ENGRAM_MCP_HOST:ENGRAM_MCP_PORT/mcp (default 127.0.0.1:8765)
Environment: ENGRAM_BASE_URL, ENGRAM_API_KEY (required), ENGRAM_OWNER, ENGRAM_PARTITION,
  ENGRAM_MCP_TOKEN (required with --http), ENGRAM_MCP_ALLOW_OWNER_ARG, ENGRAM_MCP_ALLOW_ERASE,
  ENGRAM_MCP_HOST, ENGRAM_MCP_PORT, ENGRAM_MCP_ALLOWED_ORIGINS, ENGRAM_MCP_ALLOWED_HOSTS (see README.md)
`;

function modeFrom(args: string[]): TransportMode | 'help' | 'version' {
  if (args.includes('--help') || args.includes('-h')) return 'help';
  if (args.includes('--version')) return 'version';
  const unknown = args.filter((a) => a !== '--http' && a !== '--stdio');
  if (unknown.length > 0) throw new ConfigurationError(`engram-mcp: unknown argument ${unknown[0]}\n${USAGE}`);
  return args.includes('--http') ? 'http' : 'stdio';
}

async function main(): Promise<void> {
  const mode = modeFrom(process.argv.slice(2));
  if (mode === 'help') return void process.stdout.write(USAGE);
  if (mode === 'version') return void process.stdout.write(`${SERVER_VERSION}\n`);
  const config = loadConfig(process.env, mode);
  if (mode === 'stdio') return serveStdio(config);
  const running = await serveHttp(config);
  process.stderr.write(`engram-mcp: listening on ${running.url}; Engram at ${config.baseUrl}\n`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  // Configuration errors say what to set; anything else is reported by message, never with a secret in it.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigurationError ? 2 : 1);
});

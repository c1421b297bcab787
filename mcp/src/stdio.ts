import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Config } from './config.js';
import { createEngram, createMcpServer, sessionScope } from './server.js';

/** Serves one client over stdin/stdout, for the owner ENGRAM_OWNER names. Logs go to stderr only. */
export async function serveStdio(config: Config): Promise<void> {
  const server = createMcpServer(sessionScope(config, createEngram(config), config.defaultOwner, config.partition));
  await server.connect(new StdioServerTransport());
  const owner = config.defaultOwner === undefined ? 'named by each call' : JSON.stringify(config.defaultOwner);
  process.stderr.write(`engram-mcp: serving over stdio; owner ${owner}; Engram at ${config.baseUrl}\n`);
}

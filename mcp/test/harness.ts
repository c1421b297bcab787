/**
 * The live suite's plumbing: the service `sdk/live-service.sh mcp` started, the server under test spawned
 * from dist/main.js (over stdio by the MCP SDK's own StdioClientTransport, or with --http on a free port),
 * and the MCP SDK's own Client connected to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Engram } from '@engram-memory/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const live = {
  baseUrl: required('ENGRAM_BASE_URL'),
  apiKey: required('ENGRAM_API_KEY'),
  /** A multi-tenant key: every call must name a partition. */
  multiKey: required('ENGRAM_MULTI_KEY'),
};

/** The server's entry point, as a host runs it. */
export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** A bearer token for the HTTP server under test. */
export const TOKEN = `test-token-${randomUUID()}`;

/** An owner id no other test (or earlier run) uses. */
export function ownerId(label: string): string {
  return `mcp-${label}-${randomUUID().slice(0, 8)}`;
}

/** The SDK client the tests check the server's effects with (not through MCP). */
export const engram = new Engram({ baseUrl: live.baseUrl, apiKey: live.apiKey });

/** The environment of the server under test: the live service, and the test's own settings. */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ENGRAM_BASE_URL: live.baseUrl, ENGRAM_API_KEY: live.apiKey, ...extra };
}

/** A connected MCP client and what closes it (the server process too), and what the server wrote to stderr. */
export interface Connection {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** Spawns the server over stdio, as an agent host does, and connects the MCP SDK's client to it. */
export async function connectStdio(env: Record<string, string>): Promise<Connection> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN], env: serverEnv(env), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'engram-mcp-tests', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A server started with --http on a free port. */
export interface HttpServer {
  url: string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Starts `main.js --http` on port 0 and waits for the address it prints. */
export async function startHttp(env: Record<string, string> = {}): Promise<HttpServer> {
  const child: ChildProcess = spawn(process.execPath, [MAIN, '--http'], {
    env: serverEnv({ ENGRAM_MCP_TOKEN: TOKEN, ENGRAM_MCP_PORT: '0', ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the HTTP server did not start within 10 s: ${stderr}`)), 10_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve((match[1] as string).replace(/;$/, ''));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the HTTP server exited with ${code}: ${stderr}`));
    });
  });
  return {
    url,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Connects the MCP SDK's StreamableHTTPClientTransport, with the token and the headers given. */
export async function connectHttp(url: string, headers: Record<string, string> = {}): Promise<Connection> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}`, ...headers } },
  });
  const client = new Client({ name: 'engram-mcp-tests', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => '',
    async close() {
      await transport.terminateSession();
      await client.close();
    },
  };
}

/** Calls a tool and returns its result (tool errors included: they are results, not exceptions). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text a tool answered (its first content item). */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** The structured content of a successful call; fails with the tool's text when the call was an error. */
export function ok<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool error: ${textOf(result)}`);
  return result.structuredContent as T;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite through sdk/live-service.sh mcp`);
  return value;
}

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from './config.js';
import { checkOrigin, checkToken, originAllowed, type GuardSettings } from './http-guard.js';
import { createEngram, createMcpServer, sessionScope } from './server.js';
import { OwnerIdSchema, PartitionSchema } from './tools/inputs.js';

/** The MCP endpoint's path. */
export const MCP_PATH = '/mcp';
/** Headers by which the host fixes a session's owner and partition at initialization. */
export const OWNER_HEADER = 'x-engram-owner';
export const PARTITION_HEADER = 'x-engram-partition';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_SESSIONS = 1000;
/** A session nobody used for this long is closed (clients that never send DELETE). */
const SESSION_IDLE_MS = 30 * 60_000;

interface Session {
  transport: StreamableHTTPServerTransport;
  owner: string | undefined;
  partition: string | undefined;
  lastUsed: number;
}

export interface RunningHttpServer {
  url: string;
  close(): Promise<void>;
}

/** Refused requests carry a JSON-RPC error body, as the MCP SDK's own transport answers. */
function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Streamable HTTP: one MCP session per client, its owner fixed at initialization by the `X-Engram-Owner`
 * header (else ENGRAM_OWNER). Every request passes the Host/Origin checks, then the bearer token.
 */
export async function serveHttp(config: Config): Promise<RunningHttpServer> {
  const token = config.http.token;
  if (token === undefined) throw new Error('serveHttp needs ENGRAM_MCP_TOKEN (loadConfig checks it)');
  const guard: GuardSettings = { token, allowedOrigins: config.http.allowedOrigins, allowedHosts: config.http.allowedHosts };
  const engram = createEngram(config);
  const sessions = new Map<string, Session>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const refusal = checkOrigin(req, guard);
    if (refusal) return refuse(res, refusal.status, refusal.message);
    if (originAllowed(req.headers.origin, guard)) corsHeaders(res, req.headers.origin as string);
    if (url.pathname !== MCP_PATH) return refuse(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const denied = checkToken(req, guard);
    if (denied) return refuse(res, denied.status, denied.message, { 'www-authenticate': 'Bearer' });

    const sessionId = header(req, 'mcp-session-id');
    if (sessionId !== undefined) return continueSession(req, res, sessionId);
    if (req.method !== 'POST') return refuse(res, 400, 'no Mcp-Session-Id: initialize a session with a POST first');
    const body = await readJson(req, res);
    if (body === undefined) return;
    if (!isInitializeRequest(body)) return refuse(res, 400, 'no Mcp-Session-Id: the first request of a session must be initialize');
    return startSession(req, res, body);
  }

  async function continueSession(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const session = sessions.get(id);
    if (session === undefined) return refuse(res, 404, 'unknown or expired session: initialize a new one');
    const owner = header(req, OWNER_HEADER);
    if (owner !== undefined && owner !== session.owner) return refuse(res, 400, `${OWNER_HEADER} differs from the owner this session was opened for: open a new session`);
    session.lastUsed = Date.now();
    await session.transport.handleRequest(req, res);
  }

  async function startSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const owner = header(req, OWNER_HEADER) ?? config.defaultOwner;
    const partition = header(req, PARTITION_HEADER) ?? config.partition;
    const problem = checkScope(owner, partition, config.allowOwnerArgument);
    if (problem) return refuse(res, 400, problem);
    if (sessions.size >= MAX_SESSIONS) return refuse(res, 503, `too many open sessions (${MAX_SESSIONS}): close one (DELETE) and retry`);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, owner, partition, lastUsed: Date.now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await createMcpServer(sessionScope(config, engram, owner, partition)).connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`engram-mcp: request failed: ${error instanceof Error ? error.message : String(error)}\n`);
      if (!res.headersSent) refuse(res, 500, 'internal error');
      else res.end();
    });
  });
  const sweep = setInterval(() => {
    const idleSince = Date.now() - SESSION_IDLE_MS;
    for (const session of sessions.values()) if (session.lastUsed < idleSince) void session.transport.close();
  }, 60_000);
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.http.port, config.http.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  return {
    url: `http://${host}:${port}${MCP_PATH}`,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A session's owner must be named (header or ENGRAM_OWNER) unless every call may name one. */
function checkScope(owner: string | undefined, partition: string | undefined, allowOwnerArgument: boolean): string | null {
  if (owner === undefined && !allowOwnerArgument) {
    return `no owner: send the ${OWNER_HEADER} header when initializing the session, or set ENGRAM_OWNER`;
  }
  if (owner !== undefined) {
    const parsed = OwnerIdSchema.safeParse(owner);
    if (!parsed.success) return `${OWNER_HEADER} ${parsed.error.issues[0]?.message ?? 'is invalid'}`;
  }
  if (partition !== undefined) {
    const parsed = PartitionSchema.safeParse(partition);
    if (!parsed.success) return `${PARTITION_HEADER} ${parsed.error.issues[0]?.message ?? 'is invalid'}`;
  }
  return null;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/** Reads a JSON body of at most MAX_BODY_BYTES; answers the client itself and returns undefined when it cannot. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      refuse(res, 413, `body larger than ${MAX_BODY_BYTES} bytes`);
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    refuse(res, 400, 'the body is not JSON');
    return undefined;
  }
}

/** CORS for an allowed browser origin: the headers an MCP client sends, and the session id it must read. */
function corsHeaders(res: ServerResponse, origin: string): void {
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('vary', 'Origin');
  res.setHeader('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
  res.setHeader(
    'access-control-allow-headers',
    'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, X-Engram-Owner, X-Engram-Partition',
  );
  res.setHeader('access-control-expose-headers', 'Mcp-Session-Id, Mcp-Protocol-Version');
}

/** The memory tools over stdio: the server spawned by the MCP SDK's StdioClientTransport, owner from ENGRAM_OWNER. */
import { connectStdio } from './harness.js';
import { memoryScenario } from './scenario.js';

memoryScenario('stdio', (owner) => connectStdio({ ENGRAM_OWNER: owner }));

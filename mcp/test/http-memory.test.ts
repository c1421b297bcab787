/** The memory tools over streamable HTTP: the server started with --http, the owner fixed by the session's header. */
import { after, before } from 'node:test';
import { connectHttp, startHttp, type HttpServer } from './harness.js';
import { memoryScenario } from './scenario.js';

let server: HttpServer;
before(async () => {
  server = await startHttp();
});
after(async () => {
  await server.stop();
});

memoryScenario('http', (owner) => connectHttp(server.url, { 'x-engram-owner': owner }));

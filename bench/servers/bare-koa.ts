/**
 * The raw baseline for HTTP benchmarks: Koa with nothing but a JSON body read and a JSON answer, the
 * least any framework route can do. Prints its URL as the first stdout line.
 */
import coBody from 'co-body';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method === 'POST') {
    const body = (await coBody.json(ctx.req, { limit: '1mb', strict: true })) as Record<string, unknown>;
    ctx.status = 201;
    ctx.body = { ok: true, echo: body };
  } else {
    ctx.body = { items: [], count: 0 };
  }
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});

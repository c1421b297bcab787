/**
 * The raw baseline for HTTP benchmarks: Koa with nothing but a JSON body read and a JSON answer, the
 * least any framework route can do. With BURN_US set it first spins that many microseconds of CPU per
 * request: a calibration of what a fixed amount of extra work per request costs in throughput here.
 * Prints its URL as the first stdout line.
 */
import coBody from 'co-body';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';

const burnMs = Number(process.env.BURN_US ?? 0) / 1000;
const app = new Koa();
app.use(async (ctx) => {
  if (burnMs > 0) for (const until = performance.now() + burnMs; performance.now() < until; );
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

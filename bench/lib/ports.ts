import { createServer } from 'node:net';

/**
 * A port free now, below Linux's ephemeral range (32768-60999 by default), and not in `taken`. A port the
 * kernel hands out for port 0 comes from that range, where every outgoing connection of the tests running
 * meanwhile also draws its source port: a node started seconds after its port was chosen once found it
 * taken (EADDRINUSE, in CI).
 */
export async function quietPort(taken: readonly number[] = []): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (!taken.includes(port) && (await canListen(port))) return port;
  }
}

/** `count` distinct quiet ports. */
export async function quietPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) ports.push(await quietPort(ports));
  return ports;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

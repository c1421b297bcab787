import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engram } from '@engram-memory/sdk';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

// The app's folder (examples/app): dist/src/main.js is two levels below it.
const appDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);

function start(): void {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  const engram = new Engram({ baseUrl: config.engram.baseUrl, apiKey: config.engram.apiKey, timeoutMs: 30_000 });
  const paths = {
    publicDir: resolve(appDir, 'public'),
    cytoscapeDir: dirname(createRequire(import.meta.url).resolve('cytoscape')),
    apiReference: resolve(appDir, '../../docs/api-reference.html'),
  };
  const app = createApp({ config, engram, owner: engram.owner(config.owner), paths, log });
  const server = app.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    log(`Engram reference app on http://${config.host}:${port} (owner "${config.owner}", Engram at ${config.engram.baseUrl}, language model ${config.llm.apiKey ? config.llm.model : 'not configured'})`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

start();

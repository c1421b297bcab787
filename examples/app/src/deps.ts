import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engram, type Owner } from '@engram-memory/sdk';
import type { AppConfig } from './config.js';

/** What the routes are given: the client, the app's owner handle and the configuration. */
export interface AppDeps {
  config: AppConfig;
  engram: Engram;
  /** The configured owner (`APP_OWNER`), whose documents the app stores, lists and searches. */
  owner: Owner;
  /** Where the static page lives, the graph-drawing library, and the repository's API reference. */
  paths: { publicDir: string; cytoscapeDir: string; apiReference: string };
  log: (line: string) => void;
}

/** The app's folder (examples/app): this file is compiled to dist/src/deps.js, two levels below it. */
export const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The dependencies of a configured app: one SDK client, files found from the app's own folder. */
export function createDeps(config: AppConfig, log: (line: string) => void): AppDeps {
  const engram = new Engram({ baseUrl: config.engram.baseUrl, apiKey: config.engram.apiKey, timeoutMs: 30_000 });
  return {
    config,
    engram,
    owner: engram.owner(config.owner),
    paths: {
      publicDir: resolve(APP_DIR, 'public'),
      cytoscapeDir: dirname(createRequire(import.meta.url).resolve('cytoscape')),
      // The repository's static API reference, two folders up from examples/app.
      apiReference: resolve(APP_DIR, '../../docs/api-reference.html'),
    },
    log,
  };
}

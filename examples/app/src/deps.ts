import type { Engram, Owner } from '@engram-memory/sdk';
import type { AppConfig } from './config.js';

/** What the routes are given: the client, the app's owner handle and the configuration. */
export interface AppDeps {
  config: AppConfig;
  engram: Engram;
  /** The configured owner (`APP_OWNER`), whose documents the app stores, lists and searches. */
  owner: Owner;
  /** Where the static page lives, and the repository's API reference (`docs/api-reference.html`). */
  paths: { publicDir: string; cytoscapeDir: string; apiReference: string };
  log: (line: string) => void;
}

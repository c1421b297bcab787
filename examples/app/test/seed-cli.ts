// Seeds a demo memory owner on a running Engram (ENGRAM_BASE_URL, ENGRAM_API_KEY): `node dist/test/seed-cli.js [owner]`.
import { Engram } from '@engram-memory/sdk';
import { seedMemory } from './seed.js';

const id = process.argv[2] ?? `ada-${Date.now()}`;
await seedMemory(new Engram().owner(id));
console.log(`seeded ${id}: open /memory?owner=${encodeURIComponent(id)}`);

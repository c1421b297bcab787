import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread from `<name>.js` beside `base` (built, under dist/), or `<name>.ts` (sources under
 * tsx or vitest), which needs tsx's loader registered inside the new thread first; tsx is a dev
 * dependency, used only then.
 */
export function spawnWorker(base: string, name: string, workerData: unknown): Worker {
  for (const ext of ['js', 'ts'] as const) {
    const url = new URL(`./${name}.${ext}`, base);
    if (!existsSync(fileURLToPath(url))) continue;
    if (ext === 'js') return new Worker(url, { workerData });
    const tsx = import.meta.resolve('tsx/esm/api');
    const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(url.href)}); })`;
    return new Worker(boot, { eval: true, workerData });
  }
  throw new Error(`${name}.ts (or its compiled ${name}.js) not found beside ${base}`);
}

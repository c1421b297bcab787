import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `npm start` runs its build step first (`prestart`). It must build a fresh clone and a changed source, and
// leave an up-to-date dist/ alone (it used to re-run tsc on every start: 7 s of ~13). Run on a copy of the
// sources, so the test never rewrites the checkout's own dist/.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCES = ['src', 'activities', 'workflows', 'bench', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
const run = promisify(execFile);

let clone: string;

const prestart = () => run('npm', ['run', 'prestart'], { cwd: clone });
const outputs = () => ['dist/src/main.js', 'dist/tsconfig.build.tsbuildinfo'].map((file) => statSync(join(clone, file)).mtimeMs);

beforeAll(() => {
  clone = mkdtempSync(join(tmpdir(), 'engram-start-build-'));
  for (const name of SOURCES) cpSync(join(ROOT, name), join(clone, name), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
});

afterAll(() => rmSync(clone, { recursive: true, force: true }));

describe("npm start's build step", () => {
  it('builds a fresh clone, then leaves an up-to-date dist/ untouched on the next start', async () => {
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    await prestart();
    const built = outputs();
    await prestart();
    expect(outputs()).toEqual(built);
  }, 240_000);

  it('rebuilds after a source changes', async () => {
    appendFileSync(join(clone, 'src/clock.ts'), '\nexport const changedAfterTheBuild = true;\n');
    await prestart();
    expect(readFileSync(join(clone, 'dist/src/clock.js'), 'utf8')).toContain('changedAfterTheBuild');
  }, 240_000);
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const packageDir = new URL('../../../', import.meta.url);

/** The README's tour: the code block between `<!-- tour:start -->` and `<!-- tour:end -->`. */
export async function readmeTour(): Promise<string> {
  const readme = await readFile(new URL('README.md', packageDir), 'utf8');
  const section = /<!-- tour:start -->\s*```ts\n([\s\S]*?)```\s*<!-- tour:end -->/.exec(readme);
  if (!section?.[1]) throw new Error('README.md has no tour block between <!-- tour:start --> and <!-- tour:end -->');
  return section[1];
}

describe('the README', () => {
  test('its five-minute tour type-checks and runs against the live service', async () => {
    // Inside the package, so that `@engram-memory/sdk` resolves to this package (self-reference).
    const dir = new URL('build-test/tour/', packageDir);
    await mkdir(dir, { recursive: true });
    const tour = await readmeTour();
    await writeFile(new URL('tour.mts', dir), tour);
    await copyFile(new URL('test/fixtures/image.jpg', packageDir), new URL('photo.jpg', dir));
    const tsc = new URL('node_modules/typescript/bin/tsc', packageDir).pathname;
    await run(process.execPath, [tsc, '--strict', '--noEmit', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', 'tour.mts'], { cwd: dir.pathname })
      .catch((error: { stdout?: string }) => assert.fail(`the tour does not type-check:\n${error.stdout}`));
    await writeFile(new URL('tour.mjs', dir), tour);
    const { stdout } = await run(process.execPath, ['tour.mjs'], { cwd: dir.pathname, env: process.env });
    // The tour prints what it found; these are the answers a reader is promised.
    assert.match(stdout, /as of an hour after: green/);
    assert.match(stdout, /now: blue/);
    assert.match(stdout, /best hit is the photo: true/);
    assert.match(stdout, /photo: 1/);
  });
});

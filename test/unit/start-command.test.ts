import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every way this repository starts the built service gives node the options `npm start` gives it (a larger
// young generation: README, Running it), so the Docker image and the SDKs' live service perform as measured.
const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** The words of `npm start`'s command: `node <options> dist/src/main.js`. */
function startCommand(): string[] {
  const pkg = JSON.parse(read('package.json')) as { scripts: { start: string } };
  return pkg.scripts.start.trim().split(/\s+/);
}

describe('the service is started with npm start’s node options', () => {
  it('npm start runs the built service with node options', () => {
    const words = startCommand();
    expect(words[0]).toBe('node');
    expect(words.at(-1)).toBe('dist/src/main.js');
    expect(words).toContain('--max-semi-space-size=32');
  });

  it('the Docker image runs the same command', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(read('deploy/Dockerfile'));
    expect(cmd, 'a CMD line in exec form').not.toBeNull();
    expect(JSON.parse(cmd![1]!)).toEqual(startCommand());
  });

  it("the SDKs' live service runs the same command", () => {
    expect(read('sdk/live-service.sh')).toContain(`  ${startCommand().join(' ')} >`);
  });
});

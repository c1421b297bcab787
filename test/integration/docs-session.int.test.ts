import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMarkdownSession } from '../docs/session.js';
import { KEYS, startTestService, type SocketTestService } from '../helpers/service.js';

// The docs check's session runner (test/docs/session.ts) against a real service over a socket: what makes
// an example fail, and what it reports. The check itself runs over README.md and docs/ (npm run docs:check).

const fence = '```';
const SETUP = [`${fence}bash`, 'export K=$(cat data/dev-api-key) B=http://127.0.0.1:8080', 'auth=(-H "Authorization: Bearer $K")', fence, ''];

let service: SocketTestService;
let workdir: string;
let files = 0;

beforeAll(async () => {
  // A socket: the examples are curl commands in a shell.
  service = await startTestService({ socket: true });
  workdir = mkdtempSync(join(tmpdir(), 'engram-docs-session-'));
  mkdirSync(join(workdir, 'data'));
  writeFileSync(join(workdir, 'data', 'dev-api-key'), KEYS.acme);
});

afterAll(async () => {
  await service.stop();
  rmSync(workdir, { recursive: true, force: true });
});

/** Runs a Markdown file of these lines (after the README's setup block, lines 1-4) as the docs check does. */
async function runDoc(lines: string[]) {
  const file = join(workdir, `doc-${++files}.md`);
  writeFileSync(file, [...SETUP, ...lines].join('\n'));
  return runMarkdownSession({
    file,
    name: `doc-${files}.md`,
    workdir,
    stateDir: join(workdir, '.state', String(files)),
    rewrites: { literals: [['127.0.0.1:8080', new URL(service.url).host]], owner: ['user-42', `user-42-doc-${files}`] },
    env: { PATH: process.env.PATH!, HOME: workdir },
    timeoutMs: 60_000,
  });
}

describe('the docs check runs a file', () => {
  it('in one shell session, block after block, skipping no-run blocks, and passes when every status is 2xx or announced', async () => {
    const result = await runDoc([
      `${fence}bash`,
      'curl -s "${auth[@]}" "$B/v1/memory/entities?entity_id=user-42"',
      'curl -s "${auth[@]}" "$B/v1/memory/entities/nobody?entity_id=user-42"',
      '# → 404 {"error": "...", "code": "not_found"}',
      'LIST="$B/v1/memory/entities?entity_id=user-42"',
      fence,
      `${fence}bash no-run`,
      '# needs a second machine',
      'exit 3',
      fence,
      `${fence}sh`,
      'curl -sf "${auth[@]}" "$LIST" | grep -q \'"count":0\'',
      fence,
    ]);
    expect(result.failure).toBeNull();
    expect(result).toMatchObject({ ran: 3, skipped: 1 });
    expect(result.output).toContain('not_found');
  });

  it('fails on an HTTP status its text does not announce, naming the line, and shows what the block printed', async () => {
    const result = await runDoc([
      `${fence}bash`, // 6
      'echo before', // 7
      'curl -s "${auth[@]}" "$B/v1/memory/entities/nobody?entity_id=user-42"', // 8
      'echo went-on', // 9
      fence,
    ]);
    expect(result.failure).toMatchObject({ line: 8, fenceLine: 6, reason: expect.stringMatching(/answered 404, which the text does not announce/) });
    expect(result.failure!.output).toContain('before');
    expect(result.failure!.output).toContain('not_found');
    expect(result.failure!.output).not.toContain('went-on');
  });

  it('fails when the answer is not the status the text announces', async () => {
    const result = await runDoc([`${fence}bash`, 'curl -s "${auth[@]}" "$B/v1/memory/entities?entity_id=user-42"   # → 404', fence]);
    expect(result.failure).toMatchObject({ line: 7, reason: expect.stringMatching(/answered 200; the text announces 404/) });
  });

  it('fails on an unannounced error status that the shell alone would let pass (before &&, with curl -f)', async () => {
    const result = await runDoc([`${fence}bash`, 'curl -sf "${auth[@]}" "$B/v1/memory/entities/nobody?entity_id=user-42" && echo found', 'echo went on', fence]);
    expect(result.failure).toMatchObject({ line: 7, reason: expect.stringMatching(/answered 404/) });
  });

  it('fails on a failing command, a failing pipe and an unset variable', async () => {
    const failing = await runDoc([`${fence}bash`, 'true', 'false', fence]);
    expect(failing.failure).toMatchObject({ line: 8, reason: 'exit status 1' });
    const pipe = await runDoc([`${fence}bash`, 'curl -s "${auth[@]}" "$B/v1/memory/entities?entity_id=user-42" | jq -e ".count > 0"', fence]);
    expect(pipe.failure).toMatchObject({ line: 7, reason: 'exit status 1' });
    const unset = await runDoc([`${fence}bash`, 'curl -s "$ENGRAM/v1/schema/fields"', fence]);
    expect(unset.failure).toMatchObject({ line: 7, reason: expect.stringMatching(/ENGRAM: unbound variable/) });
  });

  it('refuses a no-run block that does not say why', async () => {
    const result = await runDoc([`${fence}bash no-run`, 'ssh other-machine', fence]);
    expect(result.failure).toMatchObject({ line: 6, reason: expect.stringMatching(/no-run.*comment saying why/) });
  });
});

/**
 * The docs check (`npm run docs:check`, run by `.ci/run` after `npm test`): every fenced bash/sh/shell
 * example of README.md and docs/**\/*.md runs as written against a live, fresh service started the way a
 * newcomer starts it (`npm start`: the build step, the built service, the embedded Temporal dev server,
 * a generated dev key in `data/dev-api-key`). Conventions (what runs, how an error status is announced,
 * `no-run`, the owner each file gets): docs/examples.md.
 *
 * Embedder: EMBEDDER=hash (the hashing embedder, chosen on purpose) unless `--embedder model` is given.
 * No example's checked outcome depends on the model's semantics: the check asserts HTTP statuses and exit
 * codes, not rankings, and with EMBEDDER=hash set on purpose `mode=semantic` and `search/embed` answer
 * (over lexical vectors) as they do with the model. It saves loading the model and embedding with it.
 *
 * Usage: npm run docs:check [-- [--embedder model] [--verbose] [FILE.md ...]]   (--verbose: every file's output)
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startAsNewcomer, type NewcomerService } from './service.js';
import { runMarkdownSession, type SessionResult } from './session.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The owner id every example uses; each file runs with its own (`user-42-<file>`). */
const DOCS_OWNER = 'user-42';
const FILE_TIMEOUT_MS = 300_000;
/** The first start builds (10-30 s on a fresh clone) and starts the Temporal dev server. */
const READY_TIMEOUT_MS = 180_000;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { embedder: { type: 'string', default: 'hash' }, verbose: { type: 'boolean', default: false } }, allowPositionals: true });
  const files = positionals.length > 0 ? positionals.map((file) => resolve(file)) : docsFiles();
  const started = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), 'engram-docs-'));
  const project = join(scratch, 'project');
  const checkFiles = join(scratch, 'check');
  mkdirSync(project);
  mkdirSync(checkFiles);
  console.log(`docs check: starting the service as \`npm start\` does (EMBEDDER=${values.embedder}, DATA_DIR=${join(project, 'data')})`);
  const service = await startAsNewcomer({ root: ROOT, dataDir: join(project, 'data'), filesDir: checkFiles, embedder: values.embedder!, readyTimeoutMs: READY_TIMEOUT_MS });
  console.log(`docs check: service ready after ${seconds(Date.now() - started)}`);
  mirrorProject(project);
  const results: SessionResult[] = [];
  try {
    for (const file of files) results.push(await runFile(file, service, { project, checkFiles }, values.verbose!));
  } finally {
    await service.stop();
  }
  const failed = results.filter((result) => result.failure);
  console.log(`docs check: ${results.length - failed.length} of ${results.length} files passed in ${seconds(Date.now() - started)}`);
  if (failed.length > 0) {
    console.log(`docs check: the service's log and the examples' files are in ${scratch}`);
    return 1;
  }
  rmSync(scratch, { recursive: true, force: true });
  return 0;
}

/**
 * Makes `dir` the folder the examples run in, as the reader's project folder after `npm start`: every entry
 * of the checkout by a symlink (so `npm run keys` or `.tools/...` work), except `data/`, which is the fresh
 * service's DATA_DIR, so files the examples write land here and never in the checkout. Called once `npm
 * start` has built, so that `dist/` exists to be linked.
 */
function mirrorProject(dir: string): void {
  for (const entry of readdirSync(ROOT)) {
    if (entry !== 'data' && entry !== '.git') symlinkSync(join(ROOT, entry), join(dir, entry));
  }
}

/** README.md, then every Markdown file under docs/, in a stable order. */
function docsFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => join(ROOT, 'docs', file));
  return [join(ROOT, 'README.md'), ...docs];
}

async function runFile(file: string, service: NewcomerService, dirs: { project: string; checkFiles: string }, verbose: boolean): Promise<SessionResult> {
  const name = relative(ROOT, file);
  const slug = name.replace(/\.md$/i, '').replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();
  const started = Date.now();
  const result = await runMarkdownSession({
    file,
    name,
    workdir: dirs.project,
    stateDir: join(dirs.checkFiles, slug),
    rewrites: {
      literals: [
        ['127.0.0.1:8080', service.http],
        ['127.0.0.1:7233', service.temporal],
        ['127.0.0.1:8233', service.temporalUi],
      ],
      owner: [DOCS_OWNER, `${DOCS_OWNER}-${slug}`],
    },
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? dirs.project, LANG: 'C.UTF-8', TERM: 'dumb' },
    timeoutMs: FILE_TIMEOUT_MS,
  });
  const counts = `${result.ran} blocks run, ${result.skipped} no-run`;
  if (!result.failure) {
    console.log(`ok   ${name} (${counts}) ${seconds(Date.now() - started)}`);
    if (verbose) console.log(indent(result.output.trimEnd()));
    return result;
  }
  const { line, fenceLine, reason, output } = result.failure;
  console.log(`FAIL ${name}:${line ?? fenceLine} (the block at line ${fenceLine}): ${reason}`);
  console.log(indent(output.trimEnd() || '(no output)'));
  return result;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    | ${line}`)
    .join('\n');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`docs check: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);

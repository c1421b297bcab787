import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  announcedStatusByLine,
  conventionProblem,
  extractShellBlocks,
  rewriteLine,
  splitCommands,
  type Rewrites,
  type ShellBlock,
} from './blocks.js';

const PRELUDE = fileURLToPath(new URL('./prelude.sh', import.meta.url));
/** Starts each block's output in the session's one stream, so a failure shows its own block's output. */
const BLOCK_MARK = '\u001edocs-block ';

export interface SessionOptions {
  /** The Markdown file, and the name reports use for it (relative to the project). */
  file: string;
  name: string;
  /** Where the examples run: the reader's project folder (holding `data/`). */
  workdir: string;
  /** Session files (blocks, failure records) go here. */
  stateDir: string;
  rewrites: Rewrites;
  /** The shell's environment (PATH, HOME, ...). */
  env: Record<string, string>;
  timeoutMs: number;
}

export interface BlockFailure {
  /** 1-based line of the failing command in the Markdown file, when the shell could say. */
  line: number | null;
  fenceLine: number;
  reason: string;
  /** What the failing block printed (stdout and stderr, interleaved). */
  output: string;
}

export interface SessionResult {
  name: string;
  ran: number;
  skipped: number;
  failure: BlockFailure | null;
  /** Everything the session printed, each block's part headed by its fence line. */
  output: string;
}

/**
 * Runs every runnable shell block of one Markdown file in order, in ONE bash process (variables set in a
 * block are seen by the next), with `set -eEuo pipefail`: the first failing command, or HTTP status the
 * text does not announce, ends the session and is reported with its file line and its block's output.
 */
export async function runMarkdownSession(options: SessionOptions): Promise<SessionResult> {
  const blocks = extractShellBlocks(readFileSync(options.file, 'utf8'));
  for (const block of blocks) {
    const problem = conventionProblem(block);
    if (problem) return { name: options.name, ran: 0, skipped: 0, output: '', failure: { line: block.fenceLine, fenceLine: block.fenceLine, reason: problem, output: '' } };
  }
  const runnable = blocks.filter((block) => !block.noRun);
  mkdirSync(options.stateDir, { recursive: true });
  writeFileSync(join(options.stateDir, 'driver.sh'), driverScript(runnable, options));
  const { output, code } = await runBash(join(options.stateDir, 'driver.sh'), options);
  const headed = output.replace(new RegExp(`${BLOCK_MARK}(\\d+)\n`, 'g'), (_, n: string) => `--- the block at line ${runnable[Number(n) - 1]!.fenceLine}\n`);
  const result = { name: options.name, ran: runnable.length, skipped: blocks.length - runnable.length, output: headed };
  // A failure the shell let pass (a curl before `&&` answering an unannounced 404) is still recorded.
  if (code === 0 && readOptional(join(options.stateDir, 'failure')) === null) return { ...result, failure: null };
  return { ...result, failure: locateFailure(runnable, output, code, options.stateDir) };
}

/** The session script: the prelude, the announced statuses, then each block as its own sourced file. */
function driverScript(blocks: readonly ShellBlock[], options: SessionOptions): string {
  const expected: string[] = [];
  const steps: string[] = [];
  blocks.forEach((block, index) => {
    const file = `block-${index + 1}.sh`;
    writeFileSync(join(options.stateDir, file), block.lines.map((line) => rewriteLine(line, options.rewrites)).join('\n') + '\n');
    for (const [line, status] of announcedStatusByLine(splitCommands(block.lines))) expected.push(`  [${file}:${line}]=${status}`);
    steps.push(`printf '${BLOCK_MARK}%s\\n' ${index + 1}`, `source ${shellQuote(join(options.stateDir, file))}`);
  });
  return [
    'exec 2>&1',
    `export DOCS_STATE=${shellQuote(options.stateDir)}`,
    `source ${shellQuote(PRELUDE)}`,
    `declare -gA __docs_expect=(\n${expected.join('\n')}\n)`,
    'set -eEuo pipefail',
    `trap '__docs_failed "\${BASH_SOURCE[0]}" "$LINENO" "$?"' ERR`,
    `cd ${shellQuote(options.workdir)}`,
    ...steps,
    '',
  ].join('\n');
}

function runBash(script: string, options: SessionOptions): Promise<{ output: string; code: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', script], { cwd: options.workdir, env: options.env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    // A hung example (a request that never answers) must not hang CI: its whole process group goes.
    const timer = setTimeout(() => {
      output += `\ndocs check: ${options.name} still running after ${options.timeoutMs} ms; stopped\n`;
      process.kill(-child.pid!, 'SIGKILL');
    }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ output, code: code ?? (signal ? 128 : 1) });
    });
  });
}

/**
 * Names the failing block and line: from the session's failure record (ERR trap, curl wrapper), else from
 * bash's own message (`set -u` exits without the trap), with that block's output.
 */
function locateFailure(blocks: readonly ShellBlock[], output: string, code: number, stateDir: string): BlockFailure {
  const sections = output.split(BLOCK_MARK).slice(1);
  const record = readOptional(join(stateDir, 'failure'));
  const recorded = record ? /^block-(\d+)\.sh:(\d+): (.*)$/.exec(record.trim()) : null;
  const fromBash = [...output.matchAll(/block-(\d+)\.sh: line (\d+): (.*)/g)].pop();
  const match = recorded ?? fromBash ?? null;
  const blockNo = match ? Number(match[1]) : sections.length;
  const block = blocks[blockNo - 1] ?? blocks[blocks.length - 1]!;
  const section = sections[blockNo - 1] ?? output;
  return {
    line: match ? block.fenceLine + Number(match[2]) : null,
    fenceLine: block.fenceLine,
    reason: match ? match[3]! : `the session ended with exit status ${code}`,
    output: section.replace(/^\d+\n/, ''),
  };
}

function readOptional(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

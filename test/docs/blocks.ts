/**
 * The shell examples of a Markdown file, as the docs check runs them (conventions: docs/examples.md).
 * Pure: text in, blocks out, so the rules are unit-tested without a shell or a service.
 */

/** Fence languages the check runs; any other fence (json, text, none) is prose to it. */
const SHELL_LANGUAGES = new Set(['bash', 'sh', 'shell']);

export interface ShellBlock {
  /** 1-based line of the opening fence in the Markdown file. */
  fenceLine: number;
  /** The block's lines, without the fences and without the fence's indentation. */
  lines: string[];
  /** `bash no-run`: shown to readers, never run (its first line says why). */
  noRun: boolean;
}

/** One command of a block as the shell reads it: the lines it spans, and the status its text announces. */
export interface ShellCommand {
  /** 1-based lines within the block. */
  firstLine: number;
  lastLine: number;
  /** The HTTP status announced by `→ NNN` in the command's comments or the comment lines right after it. */
  announcedStatus: number | null;
}

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*(.*)$/;

/** Every fenced bash/sh/shell block of a Markdown text, in order. */
export function extractShellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent = '', marker = '', info = ''] = open;
    const end = closingFence(lines, i + 1, marker);
    const words = info.trim().split(/\s+/);
    if (SHELL_LANGUAGES.has(words[0] ?? '')) {
      blocks.push({
        fenceLine: i + 1,
        lines: lines.slice(i + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart())),
        noRun: words.includes('no-run'),
      });
    }
    i = end;
  }
  return blocks;
}

function closingFence(lines: string[], from: number, marker: string): number {
  for (let j = from; j < lines.length; j++) {
    const close = FENCE.exec(lines[j]!);
    if (close && close[2]!.startsWith(marker[0]!) && close[2]!.length >= marker.length && close[3]!.trim() === '') return j;
  }
  return lines.length;
}

/** Why a block breaks the conventions, or null. A no-run block must open with a comment saying why. */
export function conventionProblem(block: ShellBlock): string | null {
  if (block.noRun && !/^\s*#\s*\S/.test(block.lines[0] ?? '')) {
    return 'a `bash no-run` block must open with a comment saying why it cannot run in the docs check';
  }
  return null;
}

const ANNOUNCED_STATUS = /→\s*([1-5]\d\d)\b/;

/**
 * Splits a block into commands the way the shell does for the cases examples use: a command goes on over
 * a trailing `\`, an open quote, an open `(`/`$(`, or a trailing `|`, `&&`, `||`. Comment-only lines right
 * after a command (no blank line between) are its annotation, where `# → 404` announces its status.
 * Here-documents are not understood: examples do not use them.
 */
export function splitCommands(lines: readonly string[]): ShellCommand[] {
  const commands: ShellCommand[] = [];
  const state: ScanState = { quote: null, depth: 0 };
  let firstLine: number | null = null;
  let comments: string[] = [];
  /** The last complete command, while comment lines right after it may still announce its status. */
  let annotated: ShellCommand | null = null;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (firstLine === null) {
      if (line.trim() === '') {
        annotated = null;
        continue;
      }
      if (/^\s*#/.test(line)) {
        if (annotated) annotated.announcedStatus ??= announced(line);
        continue;
      }
      firstLine = index + 1;
      comments = [];
    }
    const { comment, continues } = scanLine(line, state);
    if (comment !== null) comments.push(comment);
    if (continues && index < lines.length - 1) continue;
    annotated = { firstLine, lastLine: index + 1, announcedStatus: firstAnnounced(comments) };
    commands.push(annotated);
    firstLine = null;
  }
  return commands;
}

function announced(text: string): number | null {
  const match = ANNOUNCED_STATUS.exec(text);
  return match ? Number(match[1]) : null;
}

function firstAnnounced(comments: readonly string[]): number | null {
  for (const comment of comments) {
    const status = announced(comment);
    if (status !== null) return status;
  }
  return null;
}

interface ScanState {
  quote: "'" | '"' | null;
  /** Open `(` and `$(` outside single quotes. */
  depth: number;
}

/** Reads one line, updating the quote state; returns its comment (if any) and whether the command goes on. */
function scanLine(line: string, state: ScanState): { comment: string | null; continues: boolean } {
  let code = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (state.quote === "'") {
      if (ch === "'") state.quote = null;
    } else if (ch === '\\') {
      if (i === line.length - 1) return { comment: null, continues: true };
      i++;
    } else if (state.quote === '"') {
      if (ch === '"') state.quote = null;
      else if (ch === '$' && line[i + 1] === '(') state.depth++;
      else if (ch === ')' && state.depth > 0) state.depth--;
    } else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
      return { comment: line.slice(i), continues: state.depth > 0 || /(\||&&)\s*$/.test(code) };
    } else if (ch === "'" || ch === '"') {
      state.quote = ch;
    } else if (ch === '(') {
      state.depth++;
    } else if (ch === ')' && state.depth > 0) {
      state.depth--;
    }
    code += ch;
  }
  return { comment: null, continues: state.quote !== null || state.depth > 0 || /(\||&&)\s*$/.test(code) };
}

/** Line (within the block) → the status announced for the command on it; lines of unannounced commands are absent. */
export function announcedStatusByLine(commands: readonly ShellCommand[]): Map<number, number> {
  const byLine = new Map<number, number>();
  for (const command of commands) {
    if (command.announcedStatus === null) continue;
    for (let line = command.firstLine; line <= command.lastLine; line++) byLine.set(line, command.announcedStatus);
  }
  return byLine;
}

/** What the check changes in an example before running it: the reader's ports become the check's, and the owner is per file. */
export interface Rewrites {
  /** Literal text → replacement, e.g. `127.0.0.1:8080` → `127.0.0.1:41234`. */
  literals: ReadonlyArray<readonly [string, string]>;
  /** The owner id the docs use (`user-42`) and this file's own. */
  owner: readonly [string, string];
}

export function rewriteLine(line: string, rewrites: Rewrites): string {
  let out = line;
  for (const [from, to] of rewrites.literals) out = out.split(from).join(to);
  const [owner, fresh] = rewrites.owner;
  return out.replace(new RegExp(`(?<![\\w-])${escapeRegExp(owner)}(?![\\w-])`, 'g'), fresh);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

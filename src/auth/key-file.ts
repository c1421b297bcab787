import { readFileSync } from 'node:fs';
import { KeyRing, KeysFileSchema, type KeyLookup, type KeyRingCounts, type KeysFile, type Principal } from './keys.js';

/**
 * The keys of `API_KEYS_FILE`, read at start and again on each `reload` (SIGHUP). A reload builds the whole
 * new ring before it swaps it in, in one assignment, so a request sees either the old ring or the new one:
 * requests already authenticated keep the principal they resolved, the next one meets the new ring. A file
 * that cannot be read or is not valid leaves the ring as it was.
 */
export class KeyFileRing implements KeyLookup {
  private ring: KeyRing;

  constructor(readonly path: string) {
    this.ring = readKeyRing(path);
  }

  authenticate(presented: string): Principal | undefined {
    return this.ring.authenticate(presented);
  }

  placedByPartition(tenant: string): boolean {
    return this.ring.placedByPartition(tenant);
  }

  get counts(): KeyRingCounts {
    return this.ring.counts;
  }

  /** Reads the file again. Thrown when it cannot be read or is invalid (keeping the keys), with why. */
  reload(): KeyRingCounts {
    this.ring = readKeyRing(this.path);
    return this.ring.counts;
  }
}

/** The ring of `API_KEYS_FILE`'s keys (`readKeysFile`). */
export function readKeyRing(path: string): KeyRing {
  return KeyRing.fromKeysFile(readKeysFile(path));
}

/**
 * Reads and validates `API_KEYS_FILE`. Thrown when the file cannot be read, is not JSON or breaks the
 * format; the message names the file and the rule, never a value of it (the file holds keys).
 */
export function readKeysFile(path: string): KeysFile {
  const text = readFileSync(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // eslint-disable-next-line preserve-caught-error -- no cause: V8's message may quote the file, which holds keys.
    throw new Error(`invalid API_KEYS_FILE ${path}: ${jsonProblem(error instanceof Error ? error.message : String(error), text)}`);
  }
  const parsed = KeysFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`invalid API_KEYS_FILE ${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

/**
 * V8's JSON error, without the text V8 quotes when it meets an unexpected token (`Unexpected token 's',
 * "{"key": sk_live_…"... is not valid JSON`), which may be a key; a position becomes a line and column.
 */
export function jsonProblem(message: string, text: string): string {
  if (message.includes('"') || message.startsWith('Unexpected token')) {
    return 'not valid JSON: a value is not a quoted string, number, true, false, null, object or array';
  }
  const at = / at position (\d+)$/.exec(message);
  if (!at) return `not valid JSON: ${message}`;
  const lines = text.slice(0, Number(at[1])).split('\n');
  return `not valid JSON: ${message.slice(0, at.index)} at line ${lines.length}, column ${lines.at(-1)!.length + 1}`;
}

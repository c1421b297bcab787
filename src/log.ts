import { createHmac, hkdfSync } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Structured logs. Authorization headers, keys and Temporal task tokens are redacted by path as a second
 * line of defence; the first is that no code logs owner content or secrets.
 */
export function createLogger(level: string, destination: DestinationStream = stdoutByTurn()): Logger {
  const options = {
    level,
    redact: { paths: ['key', 'apiKey', 'authorization', '*.authorization', 'headers.authorization', 'taskToken', '*.taskToken'], remove: true },
  };
  return pino(options, destination);
}

/** pino's level number of `warn`: lines at it and above are written at once. */
const WARN = 40;
/** A turn's lines are written as soon as they reach this many characters, so a busy turn holds little. */
const TURN_CHARS = 64 * 1024;

let stdout: DestinationStream | undefined;

/**
 * The process's stdout for its log, written once per event-loop turn rather than once per line: a commit
 * batch answers ~20 requests in one turn, and their request lines now go out in one write(2). A write per
 * line cost ~5 µs of the main thread per request under load, most of it in the kernel (bench:facts,
 * README Performance). Warnings and errors are written at once, and what a turn holds is written when the
 * process exits; a process killed outright loses at most its current turn's info lines. pino's own
 * destination does the writing (partial writes, EAGAIN on a full pipe, a reader gone). One for the process,
 * shared by every logger on stdout, so lines keep their order.
 */
function stdoutByTurn(): DestinationStream {
  if (stdout) return stdout;
  const sonic = pino.destination({ dest: 1, sync: true });
  let turn = '';
  let queued = false;
  const flush = (): void => {
    queued = false;
    if (turn === '') return;
    const lines = turn;
    turn = '';
    sonic.write(lines);
  };
  process.on('exit', flush);
  // pino sets `lastLevel` on a destination that asks for the line's metadata, before it writes the line.
  const destination = {
    [pino.symbols.needsMetadataGsym]: true as const,
    lastLevel: 0,
    write(line: string): void {
      turn += line;
      if (destination.lastLevel >= WARN || turn.length >= TURN_CHARS) flush();
      else if (!queued) {
        queued = true;
        setImmediate(flush);
      }
    },
  };
  return (stdout = destination);
}

/**
 * A keyed digest of an owner id for log lines: the lines of one owner correlate, while the id itself (and
 * a dictionary of guessed ids) stays out of the log. The key is derived from the node's master secret
 * (`ENCRYPTION_KEY` or `DATA_DIR/encryption-key`), so it needs no file of its own.
 */
export function ownerDigester(secret: Buffer): (entityId: string) => string {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), Buffer.from('engram-log-owner-v1'), 32));
  // An HMAC costs ~4 µs, on every request of the owners in use: they are few at a time, so their digests are kept.
  const recent = new LRUCache<string, string>({ max: OWNER_DIGESTS_KEPT });
  return (entityId) => {
    let digest = recent.get(entityId);
    if (digest === undefined) {
      digest = createHmac('sha256', key).update(entityId, 'utf8').digest('hex').slice(0, 16);
      recent.set(entityId, digest);
    }
    return digest;
  };
}

const OWNER_DIGESTS_KEPT = 10_000;

/**
 * The logger of lines whose fields are fixed by the code that writes them and are never secret (the
 * request log: ids, route template, status, digests). It skips the redaction walk, ~3 µs a line, which
 * is there for lines that carry objects from elsewhere (errors, SDK contexts).
 */
export function fixedFieldLogger(log: Logger): Logger {
  return log.child({}, { redact: [] });
}

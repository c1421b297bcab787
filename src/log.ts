import { createHmac, hkdfSync } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Structured logs. Authorization headers, keys and Temporal task tokens are redacted by path as a second
 * line of defence; the first is that no code logs owner content or secrets.
 */
export function createLogger(level: string, destination: DestinationStream = bufferedStdout()): Logger {
  const options = {
    level,
    redact: { paths: ['key', 'apiKey', 'authorization', '*.authorization', 'headers.authorization', 'taskToken', '*.taskToken'], remove: true },
  };
  return pino(options, destination);
}

/**
 * Standard output, written `LOG_BUFFER_BYTES` at a time, and at least every `LOG_FLUSH_MS`: with a request
 * log line each, one write per line cost ~2.3 µs of the main thread per request (bench:facts, docs/performance-facts.md).
 * Each write is a task for libuv's thread pool, whose threads share the cores with the main thread and
 * LMDB's commits: at 16 KB rather than 4 KB a loaded service makes a quarter of the writes, and its
 * main thread spent 2-3 µs less per assertion in three alternated A/Bs (docs/performance-facts.md). A
 * busy service's lines are written within milliseconds either way; a quiet service's still appear within
 * `LOG_FLUSH_MS`, and every line is written out when the process exits (pino flushes its destination
 * then); only a `kill -9` loses what the last interval held.
 *
 * The lines are handed to sonic-boom as bytes (`contentMode: 'buffer'`), which it keeps as they came and
 * joins once per write. As text it appends each line to one string and measures that string's bytes,
 * flattening the whole buffer again for every line: ~4 KB allocated per request line (docs/performance-facts.md).
 */
function bufferedStdout(): DestinationStream {
  return (sharedStdout ??= openBufferedStdout());
}

/**
 * One per process: every logger that writes to standard output shares its buffer and its flush timer (a
 * process that makes many loggers, as the tests do, would otherwise run a timer for each).
 */
let sharedStdout: DestinationStream | undefined;

function openBufferedStdout(): DestinationStream {
  const stdout = pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BUFFER_BYTES,
    // sonic-boom refuses a `minLength` that is not below its largest write (16 KB unless told).
    maxWrite: LOG_MAX_WRITE_BYTES,
    periodicFlush: LOG_FLUSH_MS,
    contentMode: 'buffer',
  });
  // Its types say text; in buffer mode it takes bytes. `write` is looked up on every call: when stdout is
  // a pipe closed by its reader (EPIPE), pino swaps the stream's `write` for a no-op.
  return { write: (line: string) => void stdout.write(Buffer.from(line) as unknown as string) };
}

const LOG_BUFFER_BYTES = 16 * 1024;
const LOG_MAX_WRITE_BYTES = 64 * 1024;
const LOG_FLUSH_MS = 100;

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

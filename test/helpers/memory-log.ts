import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.js';

/** The service's logger at `info`, its lines kept in memory, for a test that reads the log. */
export interface MemoryLog {
  log: Logger;
  /** Every line written so far, as written. */
  lines: string[];
  /** The lines parsed. */
  entries(): Array<Record<string, unknown>>;
}

export function memoryLog(): MemoryLog {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { log: createLogger('info', sink), lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

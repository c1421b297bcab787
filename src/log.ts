import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured logs. Authorization headers and keys are redacted by path as a second line of defence;
 * the first is that no code logs owner content or secrets.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ['key', 'apiKey', 'authorization', '*.authorization', 'headers.authorization'], remove: true },
  });
}

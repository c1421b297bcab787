import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Thrown when a command line is not one the tool understands; the message says what to fix. */
export class UsageError extends Error {}

/** `parseArgs` with positionals, whose complaints are UsageErrors (exit 2 with the usage). */
export function parseCommandLine<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Runs a tool's `main`: a failure prints `<tool>: <why>` (and the usage for a bad command line), then exits 2 or 1. */
export function runTool(tool: string, usage: string, main: () => Promise<void> | void): void {
  Promise.resolve()
    .then(main)
    .catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`${tool}: ${message}\n${error instanceof UsageError ? `${usage}\n` : ''}`);
      process.exit(error instanceof UsageError ? 2 : 1);
    });
}

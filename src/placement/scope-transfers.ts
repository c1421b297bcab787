import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { unavailable, type AppError } from '../errors.js';
import { writePrivateFile } from '../store/private-files.js';

/**
 * Where a scope stands on this node during a move (docs/scale-out.md, Moving a scope):
 * - `frozen`: this node is handing the scope over; it serves reads and refuses writes (503, Retry-After),
 *   its activities on the scope are refused as misdirected, whatever the map says, until it is released;
 * - `receiving`: this node is taking the scope: an admin key may declare its fields and import its owners;
 * - `received`: the import is complete: this node serves the scope whatever the map says, so nothing is
 *   refused while the map switches, until the move ends (`none`).
 */
export const TRANSFER_STATES = ['none', 'frozen', 'receiving', 'received'] as const;
export type TransferState = (typeof TRANSFER_STATES)[number];

/** A client retries a write refused by a move after this long: a move's switch takes about a second. */
const MOVE_RETRY_AFTER_S = 2;

/** The answer to a write of a scope being handed over: 503 with Retry-After, so the client writes again after the switch. */
export function scopeMoving(): AppError {
  return unavailable('this scope is being moved to another node; retry shortly', undefined, MOVE_RETRY_AFTER_S);
}

const FileSchema = z.record(z.string(), z.enum(TRANSFER_STATES));

/**
 * The transfer states of this node's scopes, by placement key, kept in DATA_DIR so a restart in the middle
 * of a move keeps a frozen scope frozen (a node that forgot would take writes the move never copies).
 */
export class ScopeTransfers {
  private readonly file: string;
  private states: Map<string, TransferState>;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'scope-transfers.json');
    this.states = new Map(existsSync(this.file) ? Object.entries(FileSchema.parse(JSON.parse(readFileSync(this.file, 'utf8')))) : []);
  }

  stateOf(key: string): TransferState {
    return this.states.get(key) ?? 'none';
  }

  /** Sets a scope's state, on disk before it applies (written beside, then renamed over). */
  set(key: string, state: TransferState): void {
    const next = new Map(this.states);
    if (state === 'none') next.delete(key);
    else next.set(key, state);
    const temp = `${this.file}.tmp`;
    writePrivateFile(temp, JSON.stringify(Object.fromEntries(next)));
    renameSync(temp, this.file);
    this.states = next;
  }
}

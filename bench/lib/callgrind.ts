/**
 * Reading callgrind's output files (valgrind's format, "Callgrind Format Specification") for
 * bench:instructions: a dump's total, and the instructions lmdb-js's commit thread spends spinning.
 *
 * The spin: with overlapping sync (lmdb-js's default), the thread that flushes a commit copies the newest
 * meta page in a loop until the environment's last committed txn id matches it
 * (`do { m = mdb_env_pick_meta(env); … } while (ti->mti_txnid != txn_id)` in mdb_txn_commit). Another
 * commit between writing its meta page and ending its txn keeps it looping. valgrind runs one thread at a
 * time, so a spinning thread loops until valgrind switches threads: in one run of 5,000 assertions that
 * was 5.6 million turns, ~115,000 instructions an assertion, and how many depends on when the switches
 * fall (one reason counts of one build varied by 4-6%). Run natively on two cores, `perf record` finds
 * mdb_txn_commit's own code in 0.04% of the service's samples: the loop is an artefact of counting.
 */

export interface DumpCounts {
  /** Instructions of every function in the dump (the `totals:` or `summary:` line). */
  total: number;
  /** mdb_txn_commit's own instructions and those of the mdb_env_pick_meta calls it makes (see above). */
  commitSpin: number;
}

const SPINNER = 'mdb_txn_commit';
const SPUN = 'mdb_env_pick_meta';

/**
 * Counts a dump made with `--tool=callgrind` and the default event (Ir), with or without string compression.
 * mdb_txn_commit's own instructions are all counted as spin: its code outside the loop runs once a commit,
 * a few hundred instructions against the loop's ~100 a turn, and commits are hundreds per thousand requests.
 */
export function countDump(text: string): DumpCounts {
  const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1] ?? 0);
  const names = new Map<string, string>();
  // "fn=(12) name" defines id 12; "fn=(12)" refers to it; without compression the name stands alone.
  const nameOf = (spec: string): string => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!m) return spec;
    if (m[2] !== undefined) names.set(m[1]!, m[2]);
    return names.get(m[1]!) ?? '';
  };
  let fn = '';
  let callee = '';
  let callCost = false;
  let commitSpin = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) fn = nameOf(line.slice(3));
    else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4));
    else if (line.startsWith('calls=')) callCost = true;
    else if (/^[\d+\-*]/.test(line)) {
      // A cost line: a position, then the event counts (Ir first). After `calls=`, the call's inclusive cost.
      const ir = Number(line.split(' ')[1] ?? 0);
      if (fn === SPINNER && (callCost ? callee === SPUN : true)) commitSpin += ir;
      callCost = false;
    }
  }
  return { total, commitSpin };
}

import type { Key, Store } from '../../store/lmdb.js';
import { markChanged } from './generation.js';
import { KEY_TOP, retiredKey, retiredPrefix, versionPrefixes, type IndexDb } from './layout.js';

/**
 * Marks a version's index entries for deletion; call inside the transaction that stops using it.
 * The entries are deleted afterwards by `collect`, in bounded transactions, so switching a field
 * never holds the write queue for the size of its index.
 */
export function retire(db: IndexDb, t: string, ver: string): void {
  db.meta.put(retiredKey(t, ver), true);
}

/** Deletes retired versions' entries in pages of `pageKeys`; resumes whatever an earlier run left. */
export async function collect(store: Store, db: IndexDb, t: string, pageKeys = 20_000): Promise<void> {
  const prefix = retiredPrefix(t);
  for (const key of [...db.meta.getKeys({ start: prefix, end: [...prefix, KEY_TOP] })]) {
    const ver = (key as Key)[2] as string;
    const owned = versionPrefixes(t, ver);
    for (;;) {
      const removed = await store.transaction(() => {
        let n = 0;
        for (const [from, prefixes] of [[db.bin, owned.bin], [db.meta, owned.meta]] as const) {
          for (const p of prefixes) {
            const keys = [...from.getKeys({ start: p, end: [...p, KEY_TOP], limit: pageKeys - n })];
            for (const k of keys) from.remove(k as Key);
            n += keys.length;
            if (n >= pageKeys) return n;
          }
        }
        if (n === 0) db.meta.remove(retiredKey(t, ver));
        else markChanged(db, t);
        return n;
      });
      if (removed === 0) break;
    }
  }
}

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setMapEntry } from './haproxy-runtime.js';
import { PlacementMap } from './placement-map.js';
import { placementDigest } from './scope-key.js';

/** Written beside, then renamed over: a reader (HAProxy, a node) sees the old file or the new one, whole. */
export function writeAtomically(file: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode });
  renameSync(temp, file);
}

export function readMap(file: string): PlacementMap {
  return PlacementMap.parse(readFileSync(file, 'utf8'));
}

/**
 * Gives a scope a line of its own on `node`: in the running HAProxy first (runtime API), so new requests
 * go there at once, then in the map file, which the nodes follow within a second and HAProxy reads when it
 * restarts.
 */
export async function switchScope(mapFile: string, key: string, node: string, runtimeApi: string | undefined): Promise<void> {
  if (runtimeApi !== undefined) await setMapEntry(runtimeApi, mapFile, placementDigest(key), node);
  writeAtomically(mapFile, readMap(mapFile).withScope(key, node).format());
}

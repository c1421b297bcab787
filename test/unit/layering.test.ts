import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult, type IFlattenedRuleSet } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

// The project's own rule set (.dependency-cruiser.cjs), run over a small tree of deliberately good and
// wrong imports, so a rule that stopped matching (a typo in a path pattern) fails here, not silently.
const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as { forbidden: IFlattenedRuleSet['forbidden'] };

const tree: Record<string, string> = {
  'src/errors.ts': 'export const E = 1;\n',
  'src/domain/rule.ts': "import { E } from '../errors.js';\nexport const rule = E;\n",
  'src/domain/impure.ts': "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;\n",
  'src/domain/climbs.ts': "import { store } from '../store/records.js';\nexport const c = store;\n",
  'src/store/records.ts': "import { rule } from '../domain/rule.js';\nexport const store = rule;\n",
  'src/store/knows-vector.ts': "import { idx } from '../vector/index.js';\nexport const k = idx;\n",
  'src/vector/index.ts': "import { store } from '../store/records.js';\nexport const idx = store;\n",
  'src/jobs/contract.ts': 'export interface OwnerRef { tenant: string }\n',
  'src/http/app.ts': "import { store } from '../store/records.js';\nexport const app = store;\n",
  'src/http/routes/a.ts': "export const a = 1;\n",
  'src/http/routes/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
  'src/temporal/jobs.ts': "import { app } from '../http/app.js';\nexport const jobs = app;\n",
  'src/query/service.ts': "import { inner } from './storage/inner.js';\nexport const q = inner;\n",
  'src/query/storage/inner.ts': 'export const inner = 1;\n',
  'src/actors/owner.ts': "import { q } from '../query/service.js';\nimport { inner } from '../query/storage/inner.js';\nexport const o = [q, inner];\n",
  'activities/good.ts': "import type { OwnerRef } from '../src/jobs/contract.js';\nimport { o } from '../src/actors/owner.js';\nexport const g = (r: OwnerRef) => [r, o];\n",
  'activities/bad.ts': "import { app } from '../src/http/app.js';\nexport const bad = app;\n",
  'workflows/good.ts': "import type { OwnerRef } from '../src/jobs/contract.js';\nexport const w = (r: OwnerRef) => r;\n",
  'workflows/uses-fs.ts': "import { readFileSync } from 'node:fs';\nexport const w2 = readFileSync;\n",
  'workflows/uses-activity.ts': "import { g } from '../activities/good.js';\nexport const w3 = g;\n",
  'src/circle/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
  'src/circle/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
};

const root = mkdtempSync(join(tmpdir(), 'engram-layering-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function violations(): Promise<Array<{ rule: string; from: string; to: string }>> {
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const result = await cruise(['src', 'activities', 'workflows'], {
    baseDir: root,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    tsPreCompilationDeps: true,
  });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe('layering rules (.dependency-cruiser.cjs)', () => {
  it('flag each deliberately wrong import with the rule that forbids it, and nothing else', async () => {
    const found = await violations();
    const expected = [
      { rule: 'activities-not-http-temporal-or-workflows', from: 'activities/bad.ts', to: 'src/http/app.ts' },
      { rule: 'domain-is-pure', from: 'src/domain/impure.ts', to: 'fs' },
      { rule: 'domain-is-pure', from: 'src/domain/climbs.ts', to: 'src/store/records.ts' },
      { rule: 'store-below-engines', from: 'src/store/knows-vector.ts', to: 'src/vector/index.ts' },
      { rule: 'temporal-not-http', from: 'src/temporal/jobs.ts', to: 'src/http/app.ts' },
      { rule: 'no-route-imports-a-route', from: 'src/http/routes/b.ts', to: 'src/http/routes/a.ts' },
      { rule: 'query-engine-has-one-door', from: 'src/actors/owner.ts', to: 'src/query/storage/inner.ts' },
      { rule: 'workflows-no-node-builtins', from: 'workflows/uses-fs.ts', to: 'fs' },
      { rule: 'workflows-import-only-the-contract', from: 'workflows/uses-fs.ts', to: 'fs' },
      { rule: 'workflows-import-only-the-contract', from: 'workflows/uses-activity.ts', to: 'activities/good.ts' },
      { rule: 'no-circular', from: 'src/circle/a.ts', to: 'src/circle/b.ts' },
    ];
    const key = (v: { rule: string; from: string; to: string }) => `${v.rule} ${v.from} -> ${v.to}`;
    expect(found.map(key).sort()).toEqual(expected.map(key).sort());
  });
});

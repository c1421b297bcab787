/**
 * The layering of Engram, written as rules (`npm run lint` checks them; README.md, Layout, draws them).
 *
 * Floors, bottom to top; a folder may import its own floor and the floors below, never one above:
 *   1. src/domain, src/errors.ts, src/clock.ts, src/jobs/contract.ts   pure rules and shapes
 *   2. src/log.ts, src/config.ts, src/ids.ts, src/spawn-worker.ts, src/auth, src/store, src/providers, src/media  I/O at the edge
 *   3. src/query (through service.ts), src/vector, src/search        engines built on the store
 *   4. src/actors                                                      an owner's single writer and its parts
 *   5. activities, src/jobs/port.ts                                    what durable jobs do, and what HTTP asks of them
 *   6. src/http, src/temporal                                          the two shells: web and job engine
 *   7. src/server.ts, src/main.ts, src/cli/                            the composition root and operator commands
 * workflows/ stand apart: deterministic code that Temporal replays, so they import only the jobs contract.
 */
const above = {
  domain: '^src/(log|config|auth|store|providers|media|query|vector|search|actors|http|temporal|server|main|cli/|jobs/port)|^(activities|workflows)/',
  store: '^src/(query|vector|search|actors|http|temporal|server|main|cli/|jobs/port)|^(activities|workflows)/',
  engines: '^src/(actors|http|temporal|server|main|cli/|jobs/port)|^(activities|workflows)/',
  actors: '^src/(http|temporal|server|main|cli/|jobs/port)|^(activities|workflows)/',
  jobs: '^src/(http|temporal|server|main|cli/)|^workflows/',
};

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle makes two modules one; split what both need into a lower module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain holds pure rules: no Node built-ins, no packages (LMDB, Koa, Temporal, file-type...), nothing above it.',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/(domain/|errors\\.ts$)' },
    },
    {
      name: 'contract-is-plain-data',
      severity: 'error',
      comment: 'src/jobs/contract.ts crosses the workflow boundary, and errors.ts and clock.ts are below everything: shapes and pure code only.',
      from: { path: '^src/(jobs/contract|errors|clock)\\.ts$' },
      to: { pathNot: '^src/(domain/|errors\\.ts$)' },
    },
    {
      name: 'workflows-import-only-the-contract',
      severity: 'error',
      comment: 'Workflow code is replayed deterministically in a sandbox: no Node built-ins, no store, no activities files (their types come from src/jobs/contract.ts).',
      from: { path: '^workflows/' },
      to: { pathNot: ['^workflows/', '^src/jobs/contract\\.ts$', '^src/errors\\.ts$', '(^|/)node_modules/@temporalio/(workflow|common)/'] },
    },
    {
      name: 'workflows-no-node-builtins',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'store-below-engines',
      severity: 'error',
      comment: 'src/store is records and keys: it knows no index built on it (vector, query), no actor and no shell.',
      from: { path: '^src/(store|providers|auth|media)/|^src/(log|config|ids|spawn-worker)\\.ts$' },
      to: { path: above.store },
    },
    {
      name: 'engines-below-actors',
      severity: 'error',
      from: { path: '^src/(query|vector|search)/' },
      to: { path: above.engines },
    },
    {
      name: 'actors-below-shells',
      severity: 'error',
      from: { path: '^src/actors/' },
      to: { path: above.actors },
    },
    {
      name: 'activities-not-http-temporal-or-workflows',
      severity: 'error',
      comment: 'An activity is not a client of the HTTP layer, and workflows and activities meet only in src/jobs/contract.ts.',
      from: { path: '^activities/|^src/jobs/port\\.ts$' },
      to: { path: above.jobs },
    },
    {
      name: 'shells-apart',
      severity: 'error',
      comment: 'The web shell and the job engine meet through src/jobs/port.ts, built together only in src/server.ts.',
      from: { path: '^src/http/' },
      to: { path: '^src/(temporal|server|main|cli/)|^(activities|workflows)/' },
    },
    {
      name: 'temporal-not-http',
      severity: 'error',
      from: { path: '^src/temporal/' },
      to: { path: '^src/(http|server|main|cli/)' },
    },
    {
      name: 'query-engine-has-one-door',
      severity: 'error',
      comment: 'Outside src/query, only src/query/service.ts is imported (bench/ may measure the internals).',
      from: { path: '^(src|activities|workflows)/', pathNot: '^src/query/' },
      to: { path: '^src/query/', pathNot: '^src/query/service\\.ts$' },
    },
    {
      name: 'no-route-imports-a-route',
      severity: 'error',
      from: { path: '^src/http/routes/' },
      to: { path: '^src/http/routes/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|\\.tools)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

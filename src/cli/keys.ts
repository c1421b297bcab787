import { parseCommandLine, runTool, UsageError } from './command-line.js';
import { KeyEntrySchema, keyDigest, mintKey } from '../auth/keys.js';

const USAGE = 'usage: npm run keys -- new --tenant <tenant> [--principal <principal>] [--multi-tenant] [--admin]';

/**
 * `npm run keys -- new --tenant T [--principal P] [--multi-tenant] [--admin]`: mints a key from 192 random bits and
 * prints it once, with the `key_sha256` entry for `API_KEYS_FILE`. The file then holds only the digest,
 * never the key; the running service picks the entry up on SIGHUP. Exit 2 on a bad command line.
 */
function main(argv: string[]): void {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (positionals.length !== 1 || positionals[0] !== 'new') {
    throw new UsageError(positionals.length === 0 ? 'a command is required: new' : `unknown command "${positionals.join(' ')}"; the command is: new`);
  }
  if (values.tenant === undefined) throw new UsageError('--tenant is required: the tenant the key belongs to');
  const key = mintKey('live');
  const entry = {
    key_sha256: keyDigest(key),
    tenant: values.tenant,
    ...(values.principal === undefined ? {} : { principal: values.principal }),
    ...(values['multi-tenant'] ? { multi_tenant: true } : {}),
    ...(values.admin ? { admin: true } : {}),
  };
  // The same rules the service applies to the file, so the printed entry is one it accepts.
  const checked = KeyEntrySchema.safeParse(entry);
  if (!checked.success) throw new UsageError(checked.error.issues.map((i) => `--${i.path.join('.').replace('_', '-')}: ${i.message}`).join('; '));
  const principal = values.principal ?? values.tenant;
  process.stdout.write(
    [
      `New API key for tenant ${JSON.stringify(values.tenant)}, principal ${JSON.stringify(principal)}${entry.multi_tenant ? ', multi-tenant' : ''}${entry.admin ? ', admin (exports, imports and erases any owner of the tenant, whatever readers say)' : ''}.`,
      'It is shown only this once and is not stored anywhere: give it to its user now.',
      '',
      `  ${key}`,
      '',
      'Add this entry to the "keys" list of API_KEYS_FILE, then send SIGHUP to the service to load it:',
      '',
      `  ${JSON.stringify(entry)}`,
      '',
    ].join('\n'),
  );
}

const OPTIONS = {
  tenant: { type: 'string' },
  principal: { type: 'string' },
  'multi-tenant': { type: 'boolean' },
  admin: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

runTool('keys', USAGE, () => main(process.argv.slice(2)));

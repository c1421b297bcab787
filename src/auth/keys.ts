import { hash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { privateDir, writePrivateFile } from '../store/private-files.js';

const RateLimitSchema = z.strictObject({
  per_second: z.number().positive(),
  burst: z.number().int().positive(),
});

/** One entry of the file's `keys` list; `npm run keys -- new` validates the entry it prints with it. */
export const KeyEntrySchema = z
  .strictObject({
    key: z.string().min(16).optional(),
    key_sha256: z.string().regex(/^[0-9a-fA-F]{64}$/).optional(),
    tenant: z.string().min(1).max(256),
    principal: z.string().min(1).max(256).optional(),
    multi_tenant: z.boolean().default(false),
    /** An operator's key: may export, import and erase any owner of its tenant, whatever documents' `readers` say. */
    admin: z.boolean().default(false),
    rate_limit: RateLimitSchema.optional(),
  })
  .refine((k) => (k.key === undefined) !== (k.key_sha256 === undefined), {
    message: 'each key needs exactly one of "key" or "key_sha256"',
  });

/** The `API_KEYS_FILE` format (DECISIONS.md). */
export const KeysFileSchema = z.strictObject({
  tenants: z.record(z.string(), z.strictObject({ phi_strict: z.boolean().default(false) })).default({}),
  keys: z.array(KeyEntrySchema).min(1),
});

export type RateLimit = z.infer<typeof RateLimitSchema>;
export type KeysFile = z.infer<typeof KeysFileSchema>;

/** Who is calling, derived from the bearer key; never from the request body or query. */
export interface Principal {
  tenant: string;
  principal: string;
  multiTenant: boolean;
  /** An operator (`"admin": true`): exports, imports and erases any owner of its tenant regardless of `readers`. */
  admin: boolean;
  phiStrict: boolean;
  rateLimit: RateLimit | undefined;
  /** A stable, non-secret label of the key for rate limiting and logs (a hash prefix). */
  keyId: string;
}

/** What the HTTP layer asks of the keys: who a presented bearer key is, if anyone. */
export interface KeyLookup {
  authenticate(presented: string): Principal | undefined;
  /**
   * Whether the tenant's scopes are placed by partition on a deployment of several nodes (docs/scale-out.md):
   * true when any of its keys is multi-tenant, else the tenant is placed whole.
   */
  placedByPartition(tenant: string): boolean;
}

/** How many keys a ring holds and how many tenants they reach: what a log may say about keys. */
export interface KeyRingCounts {
  keys: number;
  tenants: number;
}

/** Bearer keys, held only as SHA-256 digests so the process never keeps plaintext keys around. */
export class KeyRing implements KeyLookup {
  private readonly partitioned: ReadonlySet<string>;

  private constructor(private readonly byDigest: Map<string, Principal>) {
    this.partitioned = new Set([...byDigest.values()].filter((p) => p.multiTenant).map((p) => p.tenant));
  }

  placedByPartition(tenant: string): boolean {
    return this.partitioned.has(tenant);
  }

  /**
   * Resolves a presented key. Lookup is by the key's digest, so timing reveals nothing about stored keys.
   */
  authenticate(presented: string): Principal | undefined {
    return this.byDigest.get(keyDigest(presented));
  }

  get counts(): KeyRingCounts {
    return { keys: this.byDigest.size, tenants: new Set([...this.byDigest.values()].map((p) => p.tenant)).size };
  }

  /** The ring of a parsed `API_KEYS_FILE`, tenant policies applied to each key. */
  static fromKeysFile(file: KeysFile): KeyRing {
    return KeyRing.fromDigests(
      file.keys.map((entry) => ({
        digest: (entry.key_sha256 ?? keyDigest(entry.key ?? '')).toLowerCase(),
        tenant: entry.tenant,
        principal: entry.principal,
        multiTenant: entry.multi_tenant,
        admin: entry.admin,
        phiStrict: file.tenants[entry.tenant]?.phi_strict,
        rateLimit: entry.rate_limit,
      })),
    );
  }

  /** One dev key for tenant `dev`, generated once into `DATA_DIR/dev-api-key` (mode 0600). */
  static devKey(dataDir: string): { ring: KeyRing; key: string; created: boolean } {
    privateDir(dataDir);
    const file = join(dataDir, 'dev-api-key');
    const created = !existsSync(file);
    if (created) writePrivateFile(file, `${mintKey('dev')}\n`);
    const key = readFileSync(file, 'utf8').trim();
    return { ring: KeyRing.fromKeys([{ key, tenant: 'dev', principal: 'dev' }]), key, created };
  }

  /** Builds a ring from plain entries (tests, dev key). */
  static fromKeys(entries: Array<KeyEntry & { key: string }>): KeyRing {
    return KeyRing.fromDigests(entries.map(({ key, ...entry }) => ({ ...entry, digest: keyDigest(key) })));
  }

  private static fromDigests(entries: Array<KeyEntry & { digest: string }>): KeyRing {
    const map = new Map<string, Principal>();
    for (const e of entries) {
      map.set(e.digest, {
        tenant: e.tenant,
        principal: e.principal ?? e.tenant,
        multiTenant: e.multiTenant ?? false,
        admin: e.admin ?? false,
        phiStrict: e.phiStrict ?? false,
        rateLimit: e.rateLimit,
        keyId: e.digest.slice(0, 12),
      });
    }
    return new KeyRing(map);
  }
}

interface KeyEntry {
  tenant: string;
  principal?: string | undefined;
  multiTenant?: boolean | undefined;
  admin?: boolean | undefined;
  phiStrict?: boolean | undefined;
  rateLimit?: RateLimit | undefined;
}

/**
 * A new bearer key: `sk_<kind>_` and 192 random bits (base64url), well past the 16 characters a key needs
 * and within the bearer header's printable-ASCII alphabet.
 */
export function mintKey(kind: 'dev' | 'live'): string {
  return `sk_${kind}_${randomBytes(24).toString('base64url')}`;
}

/** The lowercase hex SHA-256 of a key: its `key_sha256` in `API_KEYS_FILE`. */
export function keyDigest(key: string): string {
  return hash('sha256', key, 'hex');
}

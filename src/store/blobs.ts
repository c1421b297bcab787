import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gcmOpen, gcmSeal } from './aes-gcm.js';
import { PRIVATE_FILE, privateDir } from './private-files.js';
import { TenantKeys } from './tenant-keys.js';

const VERSION = 1;

/**
 * Original media bytes, encrypted at rest with AES-256-GCM. Each tenant has its own key, derived from the
 * master key with HKDF-SHA256 (info = tenant), so one tenant's key never opens another's blobs. The
 * document id is bound as additional authenticated data: a blob copied under another id fails to open.
 *
 * Sealed layout: version (1 byte) | IV (12) | GCM tag (16) | ciphertext.
 */
export class BlobCipher {
  private readonly keys: TenantKeys;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the encryption master key must be 32 bytes');
    this.keys = new TenantKeys(masterKey, 'engram-blob-v1');
  }

  seal(tenant: string, docId: string, plain: Uint8Array): Buffer {
    return gcmSeal(VERSION, this.tenantKey(tenant), Buffer.from(docId, 'utf8'), plain);
  }

  /** Throws when the blob was tampered with, or sealed for another tenant or document. */
  open(tenant: string, docId: string, sealed: Uint8Array): Buffer {
    return gcmOpen(VERSION, this.tenantKey(tenant), Buffer.from(docId, 'utf8'), sealed, 'blob');
  }

  private tenantKey(tenant: string): Buffer {
    return this.keys.get(tenant);
  }
}

/**
 * The master key: `ENCRYPTION_KEY` (base64 of 32 bytes) when set, else one generated on first start into
 * `DATA_DIR/encryption-key` with mode 0600 and reused afterwards.
 */
export function loadMasterKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured !== undefined) {
    const key = Buffer.from(configured, 'base64');
    if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be the base64 of exactly 32 bytes');
    return key;
  }
  privateDir(dataDir);
  const file = join(dataDir, 'encryption-key');
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: PRIVATE_FILE, flag: 'wx' });
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a base64 32-byte key`);
  return key;
}

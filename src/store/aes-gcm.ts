import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** What sealing adds to the plaintext: version (1) | IV (12) | GCM tag (16) | ciphertext. */
export const GCM_OVERHEAD = 1 + IV_BYTES + TAG_BYTES;

/**
 * AES-256-GCM for values sealed now and then, where a cipher context per value costs nothing that matters
 * (media bytes under the tenant key, owners' data keys in their slots; records use src/store/sealed.ts).
 * The version byte names the format; `aad` binds the value to where it belongs.
 */
export function gcmSeal(version: number, key: Buffer, aad: Buffer, plain: Uint8Array): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([version]), iv, cipher.getAuthTag(), body]);
}

/** Throws when the value is not in `version`'s format (naming `what`), was altered, or belongs elsewhere (`aad`). */
export function gcmOpen(version: number, key: Buffer, aad: Buffer, sealed: Uint8Array, what: string): Buffer {
  const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (buf.length < GCM_OVERHEAD || buf[0] !== version) throw new Error(`unknown ${what} format`);
  const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(1, 1 + IV_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(buf.subarray(1 + IV_BYTES, GCM_OVERHEAD));
  return Buffer.concat([decipher.update(buf.subarray(GCM_OVERHEAD)), decipher.final()]);
}

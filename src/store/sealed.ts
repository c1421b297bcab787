import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { Packr } from 'msgpackr';

/**
 * The sealed form of one LMDB record value: msgpack of the record, encrypted with AES-256-GCM under its
 * owner's data key (src/store/owner-keys.ts). The record's LMDB key is the additional authenticated data,
 * so a sealed value copied under another key (another owner, another id) fails to open, as does any change
 * to its bytes.
 *
 * Layout: version (1 byte, SEALED_RECORD) | IV (12) | GCM tag (16) | ciphertext.
 * The version byte tells a sealed value from every other value a record may hold: records in clear are
 * msgpack objects (never bytes), and media sealed with the tenant key by BlobCipher (the format before
 * owner keys) start with 1.
 */
export const SEALED_RECORD = 2;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

/**
 * Self-contained msgpack: no shared structures (they would live outside the sealed bytes, in clear), no
 * records extension; bytes come back as Buffers. One instance: msgpackr reuses its output buffer.
 */
const packr = new Packr({ useRecords: false, moreTypes: false });

/**
 * IVs drawn from a pool filled 4,096 at a time: one `randomBytes(12)` per record cost ~2.5 µs, a third of a
 * seal. Each IV is used once (GCM's requirement under one key): 96 random bits per record.
 */
const ivPool = Buffer.allocUnsafe(IV_BYTES * 4096);
let ivAt = ivPool.length;
function nextIv(): Buffer {
  if (ivAt === ivPool.length) {
    randomFillSync(ivPool);
    ivAt = 0;
  }
  ivAt += IV_BYTES;
  return ivPool.subarray(ivAt - IV_BYTES, ivAt);
}

/** Whether a stored value is in the sealed form (then `openRecord` is needed to read it). */
export function isSealed(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.length >= HEADER_BYTES && value[0] === SEALED_RECORD;
}

/** The record's LMDB key as AAD bytes (keys hold strings and numbers only, so JSON is exact). */
export function keyAad(key: readonly unknown[]): Buffer {
  return Buffer.from(JSON.stringify(key), 'utf8');
}

export function sealRecord(dataKey: Buffer, aad: Buffer, record: unknown): Buffer {
  const plain = packr.pack(record);
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  cipher.setAAD(aad);
  const out = Buffer.allocUnsafe(HEADER_BYTES + plain.length);
  out[0] = SEALED_RECORD;
  iv.copy(out, 1);
  // GCM is a stream mode: the ciphertext is as long as the plaintext and is written in place, no concat.
  const written = cipher.update(plain);
  written.copy(out, HEADER_BYTES);
  cipher.final();
  cipher.getAuthTag().copy(out, 1 + IV_BYTES);
  return out;
}

/** Throws when the value was tampered with, moved under another key, or sealed under another data key. */
export function openRecord(dataKey: Buffer, aad: Buffer, sealed: Uint8Array): unknown {
  const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  const decipher = createDecipheriv('aes-256-gcm', dataKey, buf.subarray(1, 1 + IV_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(buf.subarray(1 + IV_BYTES, HEADER_BYTES));
  const plain = decipher.update(buf.subarray(HEADER_BYTES));
  decipher.final();
  return packr.unpack(plain);
}

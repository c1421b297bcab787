import { randomFillSync } from 'node:crypto';
import { Packr } from 'msgpackr';
import sodium from 'sodium-native';

/**
 * The sealed form of one LMDB record value: msgpack of the record, encrypted with XChaCha20-Poly1305
 * (libsodium, through sodium-native) under its owner's data key (src/store/owner-keys.ts). The record's LMDB
 * key is the additional authenticated data, so a sealed value copied under another key (another owner,
 * another id) fails to open, as does any change to its bytes.
 *
 * Why libsodium and not `node:crypto`'s AES-256-GCM: every record is sealed on its own, and node:crypto
 * builds a cipher context per message (~5 µs in a loop, ~12 µs inside a loaded service), which cost fact
 * assertion 13% of its throughput; libsodium's one-shot AEAD takes ~1 µs and allocates nothing. Its 192-bit
 * nonces are safe to draw at random for every record under one key.
 *
 * Layout: version (1 byte, SEALED_RECORD) | nonce (24) | ciphertext | tag (16).
 * The version byte tells a sealed value from every other value a record may hold: records in clear are
 * msgpack objects (never bytes), and media sealed with the tenant key by BlobCipher (the format before
 * owner keys) start with 1.
 */
export const SEALED_RECORD = 3;
const NONCE_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
const TAG_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_ABYTES;
const HEADER_BYTES = 1 + NONCE_BYTES;

/**
 * Self-contained msgpack: no shared structures (they would live outside the sealed bytes, in clear), no
 * records extension; bytes come back as Buffers. One instance: msgpackr reuses its output buffer.
 */
const packr = new Packr({ useRecords: false, moreTypes: false });

/**
 * Nonces drawn from a pool filled 4,096 at a time (one `randomBytes` call per record cost a third of a
 * seal). Each nonce is used once: 192 random bits per record.
 */
const noncePool = Buffer.allocUnsafe(NONCE_BYTES * 4096);
let nonceAt = noncePool.length;

/** Whether a stored value is in the sealed form (then `openRecord` is needed to read it). */
export function isSealed(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.length >= HEADER_BYTES + TAG_BYTES && value[0] === SEALED_RECORD;
}

/** The record's LMDB key as AAD bytes (keys hold strings and numbers only, so JSON is exact). */
export function keyAad(key: readonly unknown[]): Buffer {
  return Buffer.from(aadText(key), 'utf8');
}

/** The AAD's text: `keyAad` and `transientAad` must seal the same bytes, or records would not open. */
const aadText = (key: readonly unknown[]): string => JSON.stringify(key);

export function sealRecord(dataKey: Buffer, aad: Buffer, record: unknown): Buffer {
  const plain = packr.pack(record);
  return sealInto(Buffer.allocUnsafe(HEADER_BYTES + plain.length + TAG_BYTES), dataKey, aad, plain);
}

/**
 * `sealRecord` under the LMDB key `key`, into buffers the next call reuses: for a value consumed before
 * anything else is sealed. An LMDB put is such a consumer: it copies the value into its own write buffer as
 * it is issued (lmdb-js encodes a Buffer value as msgpack binary), so the ~180 records of a batch of
 * assertions allocate no sealed buffer and no AAD each.
 */
export function sealRecordTransient(dataKey: Buffer, key: readonly unknown[], record: unknown): Buffer {
  const plain = packr.pack(record);
  const size = HEADER_BYTES + plain.length + TAG_BYTES;
  if (size > scratch.length) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
  return sealInto(scratch.subarray(0, size), dataKey, transientAad(key), plain);
}

let scratch = Buffer.allocUnsafe(16 * 1024);
const aadScratch = Buffer.allocUnsafe(2048);

/** `keyAad(key)`, written into a buffer the next call reuses (keys are short: ids are at most 128 characters). */
function transientAad(key: readonly unknown[]): Buffer {
  const text = aadText(key);
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  if (text.length * 3 > aadScratch.length) return Buffer.from(text, 'utf8');
  return aadScratch.subarray(0, aadScratch.write(text, 'utf8'));
}

/** Seals `plain` into `out`, which is exactly its sealed size. */
function sealInto(out: Buffer, dataKey: Buffer, aad: Buffer, plain: Uint8Array): Buffer {
  out[0] = SEALED_RECORD;
  if (nonceAt === noncePool.length) {
    randomFillSync(noncePool);
    nonceAt = 0;
  }
  noncePool.copy(out, 1, nonceAt, (nonceAt += NONCE_BYTES));
  sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(out.subarray(HEADER_BYTES), plain, aad, null, out.subarray(1, HEADER_BYTES), dataKey);
  return out;
}

/** Throws when the value was tampered with, moved under another key, or sealed under another data key. */
export function openRecord(dataKey: Buffer, aad: Buffer, sealed: Uint8Array): unknown {
  const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  const plain = Buffer.allocUnsafe(buf.length - HEADER_BYTES - TAG_BYTES);
  sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(plain, null, buf.subarray(HEADER_BYTES), aad, buf.subarray(1, HEADER_BYTES), dataKey);
  return packr.unpack(plain);
}

// The parts of sodium-native (libsodium bindings, https://github.com/holepunchto/sodium-native) the store
// uses; the package ships no types of its own.
declare module 'sodium-native' {
  export const crypto_aead_xchacha20poly1305_ietf_ABYTES: number;
  export const crypto_aead_xchacha20poly1305_ietf_NPUBBYTES: number;
  /** Writes ciphertext + tag into `ciphertext` (message length + ABYTES); returns the bytes written. */
  export function crypto_aead_xchacha20poly1305_ietf_encrypt(
    ciphertext: Uint8Array,
    message: Uint8Array,
    additionalData: Uint8Array | null,
    nsec: null,
    nonce: Uint8Array,
    key: Uint8Array,
  ): number;
  /** Writes the message into `message` (ciphertext length - ABYTES); throws when the tag does not verify. */
  export function crypto_aead_xchacha20poly1305_ietf_decrypt(
    message: Uint8Array,
    nsec: null,
    ciphertext: Uint8Array,
    additionalData: Uint8Array | null,
    nonce: Uint8Array,
    key: Uint8Array,
  ): number;
}

import { fileTypeFromBuffer } from 'file-type';

/**
 * What the bytes' magic number says they are (the extension `file-type` gives), or undefined.
 * Lives outside src/domain because it reads the bytes asynchronously through `file-type`; the
 * rules that judge the answer are domain/media.ts `judgeMedia`.
 */
export async function sniffExtension(bytes: Uint8Array): Promise<string | undefined> {
  return (await fileTypeFromBuffer(bytes))?.ext;
}

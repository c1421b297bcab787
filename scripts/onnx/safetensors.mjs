// Reads float32 tensors from a .safetensors file: an 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets: [begin, end]}}, then the tensors' bytes (offsets count from the
// end of the header). https://github.com/huggingface/safetensors#format
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

/**
 * @param {string} path
 * @returns {{ names: string[], has: (name: string) => boolean,
 *             float32: (name: string) => { shape: number[], data: Float32Array } }}
 */
export function readSafetensors(path) {
  const file = readFileSync(path);
  const headerLength = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + headerLength).toString('utf8'));
  const dataStart = 8 + headerLength;
  const names = Object.keys(header).filter((k) => k !== '__metadata__');

  function float32(name) {
    const entry = header[name];
    if (!entry) throw new Error(`${path} has no tensor ${name}`);
    if (entry.dtype !== 'F32') throw new Error(`${path}: ${name} is ${entry.dtype}, only F32 is supported`);
    const [begin, end] = entry.data_offsets;
    const count = entry.shape.reduce((a, b) => a * b, 1);
    if (end - begin !== count * 4) throw new Error(`${path}: ${name} holds ${end - begin} bytes for shape ${entry.shape}`);
    // Copied into a fresh, aligned array (offsets in the file need not be multiples of 4). The file is
    // little-endian: a plain byte copy on such hosts, a value-by-value read elsewhere.
    const data = new Float32Array(count);
    const bytes = file.subarray(dataStart + begin, dataStart + end);
    if (LITTLE_ENDIAN_HOST) Buffer.from(data.buffer).set(bytes);
    else for (let i = 0; i < count; i++) data[i] = bytes.readFloatLE(i * 4);
    return { shape: entry.shape, data };
  }

  return { names, has: (name) => name in header, float32 };
}

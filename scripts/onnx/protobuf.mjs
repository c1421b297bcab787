// The few ONNX protobuf messages a BERT graph needs, encoded by hand so the converter runs with Node alone
// (it runs inside `npm install`, before anything else could be relied on). Field numbers are those of
// onnx/onnx.proto3. Every message is a Buffer; the same inputs always give the same bytes.

export const DataType = Object.freeze({ FLOAT: 1, INT64: 7 });

const WIRE_VARINT = 0;
const WIRE_FIXED32 = 5;
const WIRE_BYTES = 2;

function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value)); // negative int64 values take the 10-byte two's-complement form
  const bytes = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v !== 0n);
  return Buffer.from(bytes);
}

const key = (field, wire) => varint((field << 3) | wire);
const int = (field, value) => Buffer.concat([key(field, WIRE_VARINT), varint(value)]);
const bytes = (field, buf) => Buffer.concat([key(field, WIRE_BYTES), varint(buf.length), buf]);
const string = (field, text) => bytes(field, Buffer.from(text, 'utf8'));
function float(field, value) {
  const buf = Buffer.alloc(4);
  buf.writeFloatLE(value);
  return Buffer.concat([key(field, WIRE_FIXED32), buf]);
}

/** TensorProto with its values as little-endian raw bytes. */
export function tensorProto(name, dataType, dims, raw) {
  return Buffer.concat([...dims.map((d) => int(1, d)), int(2, dataType), string(8, name), bytes(9, raw)]);
}

/** AttributeProto of type INT (2), FLOAT (1) or INTS (7), chosen from the value. */
export function attribute(name, value) {
  if (Array.isArray(value)) return Buffer.concat([string(1, name), ...value.map((v) => int(8, v)), int(20, 7)]);
  if (Number.isInteger(value)) return Buffer.concat([string(1, name), int(3, value), int(20, 2)]);
  return Buffer.concat([string(1, name), float(2, value), int(20, 1)]);
}

/** NodeProto. `attrs` maps attribute names to values (see `attribute`), written in sorted order. */
export function nodeProto(opType, inputs, outputs, attrs = {}) {
  return Buffer.concat([
    ...inputs.map((i) => string(1, i)),
    ...outputs.map((o) => string(2, o)),
    string(3, `${opType}:${outputs[0]}`),
    string(4, opType),
    ...Object.keys(attrs)
      .sort()
      .map((k) => bytes(5, attribute(k, attrs[k]))),
  ]);
}

/** ValueInfoProto of a tensor; a dimension is a number (fixed) or a string (symbolic, e.g. "batch"). */
export function valueInfoProto(name, elemType, dims) {
  const shape = Buffer.concat(dims.map((d) => bytes(1, typeof d === 'number' ? int(1, d) : string(2, d))));
  const tensorType = Buffer.concat([int(1, elemType), bytes(2, shape)]);
  return Buffer.concat([string(1, name), bytes(2, bytes(1, tensorType))]);
}

/** GraphProto from encoded nodes, initializers, inputs and outputs (already in their final order). */
export function graphProto({ name, nodes, initializers, inputs, outputs }) {
  return Buffer.concat([
    ...nodes.map((n) => bytes(1, n)),
    string(2, name),
    ...initializers.map((t) => bytes(5, t)),
    ...inputs.map((v) => bytes(11, v)),
    ...outputs.map((v) => bytes(12, v)),
  ]);
}

/** ModelProto: IR version 8 with the default-domain opset `opset` (17 reads every op we emit). */
export function modelProto({ graph, opset, producer, producerVersion, docString }) {
  return Buffer.concat([
    int(1, 8),
    string(2, producer),
    string(3, producerVersion),
    string(6, docString),
    bytes(7, graph),
    bytes(8, Buffer.concat([string(1, ''), int(2, opset)])),
  ]);
}

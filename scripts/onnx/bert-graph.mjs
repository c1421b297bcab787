// Builds an ONNX graph (opset 17, float32) of a BERT encoder with sentence-transformers' mean pooling from
// a Hugging Face `config.json` + `model.safetensors`: the computation of transformers' BertModel in
// inference mode (absolute positions, exact GELU, post-LayerNorm), written op by op.
//
// Inputs : input_ids, attention_mask, token_type_ids   int64 [batch, seq]
// Outputs: sentence_embedding  float [batch, hidden]       mean of the token vectors where attention_mask
//                                                          is 1, then L2-normalised (sentence-transformers'
//                                                          Pooling(mean) + Normalize for all-MiniLM-L6-v2)
//          last_hidden_state   float [batch, seq, hidden]  the encoder's token vectors, for other poolings
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { DataType, graphProto, modelProto, nodeProto, tensorProto, valueInfoProto } from './protobuf.mjs';
import { readSafetensors } from './safetensors.mjs';

const OPSET = 17;
const MASKED_SCORE = -10000; // added to the attention scores of padding tokens (BERT's own constant)

/** Raw little-endian bytes of float32 values (ONNX raw_data is little-endian), whatever the host. */
function float32Bytes(values) {
  if (endianness() === 'LE') return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  const out = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) out.writeFloatLE(values[i], i * 4);
  return out;
}

function int64Bytes(values) {
  const out = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => out.writeBigInt64LE(BigInt(v), i * 8));
  return out;
}

/** Rejects checkpoints whose forward pass differs from the one written below. */
function checkConfig(cfg) {
  const problems = [];
  if (cfg.model_type !== 'bert') problems.push(`model_type is ${cfg.model_type}, not bert`);
  if ((cfg.position_embedding_type ?? 'absolute') !== 'absolute') problems.push('position embeddings are not absolute');
  if (cfg.hidden_act !== 'gelu') problems.push(`hidden_act is ${cfg.hidden_act}, not gelu`);
  if (cfg.hidden_size % cfg.num_attention_heads !== 0) problems.push('hidden_size is not a multiple of the head count');
  if (problems.length > 0) throw new Error(`unsupported model: ${problems.join('; ')}`);
}

/**
 * @param {string} modelDir folder holding config.json and model.safetensors
 * @returns {Buffer} the serialised ModelProto
 */
export function buildBertOnnx(modelDir) {
  const cfg = JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8'));
  checkConfig(cfg);
  const hidden = cfg.hidden_size;
  const heads = cfg.num_attention_heads;
  const headSize = hidden / heads;
  const weights = readSafetensors(join(modelDir, 'model.safetensors'));
  // Checkpoints saved from BertForX carry a "bert." prefix; a bare BertModel (this one) does not.
  const prefix = weights.has('bert.embeddings.word_embeddings.weight') ? 'bert.' : '';
  const weight = (name) => weights.float32(prefix + name);

  const nodes = [];
  const initializers = [];
  const op = (type, inputs, output, attrs) => {
    nodes.push(nodeProto(type, inputs, [output], attrs));
    return output;
  };
  const floatInit = (name, shape, data) => {
    initializers.push(tensorProto(name, DataType.FLOAT, shape, float32Bytes(data)));
    return name;
  };
  const int64Init = (name, values) => {
    initializers.push(tensorProto(name, DataType.INT64, [values.length], int64Bytes(values)));
    return name;
  };
  const scalar = (name, value) => floatInit(name, [], Float32Array.of(value));
  const param = (name) => {
    const t = weight(name);
    return floatInit(name, t.shape, t.data);
  };

  // Dense layers. PyTorch stores Linear weights as [out, in]; MatMul wants [in, out], so they are
  // transposed here once. Several layers reading the same input can be fused column-wise into one MatMul.
  function dense(input, names, output) {
    const parts = names.map((n) => weight(`${n}.weight`));
    const inSize = parts[0].shape[1];
    const outSize = parts.reduce((sum, p) => sum + p.shape[0], 0);
    const matrix = new Float32Array(inSize * outSize);
    const bias = new Float32Array(outSize);
    let column = 0;
    parts.forEach((p, k) => {
      const [rows, cols] = p.shape;
      if (cols !== inSize) throw new Error(`${names[k]} reads ${cols} inputs, expected ${inSize}`);
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) matrix[c * outSize + column + r] = p.data[r * cols + c];
      bias.set(weight(`${names[k]}.bias`).data, column);
      column += rows;
    });
    const w = floatInit(`${output}.weight`, [inSize, outSize], matrix);
    const b = floatInit(`${output}.bias`, [outSize], bias);
    return op('Add', [op('MatMul', [input, w], `${output}.matmul`), b], output);
  }

  const layerNorm = (input, name, output) =>
    op('LayerNormalization', [input, param(`${name}.weight`), param(`${name}.bias`)], output, {
      axis: -1,
      epsilon: cfg.layer_norm_eps ?? 1e-12,
    });

  // Shared constants.
  const axis1 = int64Init('const.axis1', [1]);
  const axis2 = int64Init('const.axis2', [2]);
  const axes12 = int64Init('const.axes12', [1, 2]);
  const zero = int64Init('const.zero', [0]);
  const splitHeads = int64Init('const.split_heads', [0, 0, heads, headSize]);
  const mergeHeads = int64Init('const.merge_heads', [0, 0, hidden]);
  const one = scalar('const.one', 1);
  const half = scalar('const.half', 0.5);
  const invSqrt2 = scalar('const.inv_sqrt2', Math.SQRT1_2);
  const queryScale = scalar('const.query_scale', 1 / Math.sqrt(headSize));
  const maskedScore = scalar('const.masked_score', MASKED_SCORE);
  const minCount = scalar('const.min_count', 1e-9);

  // Embeddings: word + token type + position (positions 0..seq-1, sliced from the table).
  const seqLen = op('Gather', [op('Shape', ['input_ids'], 'input_shape'), axis1], 'seq_len', { axis: 0 });
  const positions = op('Slice', [param('embeddings.position_embeddings.weight'), zero, seqLen, zero], 'position_vectors');
  const words = op('Gather', [param('embeddings.word_embeddings.weight'), 'input_ids'], 'word_vectors', { axis: 0 });
  const types = op('Gather', [param('embeddings.token_type_embeddings.weight'), 'token_type_ids'], 'type_vectors', { axis: 0 });
  const summed = op('Add', [op('Add', [words, types], 'word_type_vectors'), positions], 'embedding_sum');
  let state = layerNorm(summed, 'embeddings.LayerNorm', 'embeddings');

  // Additive attention bias [batch, 1, 1, seq]: 0 for real tokens, MASKED_SCORE for padding.
  const maskFloat = op('Cast', ['attention_mask'], 'mask_float', { to: DataType.FLOAT });
  const maskBias2d = op('Mul', [op('Sub', [one, maskFloat], 'mask_inverted'), maskedScore], 'mask_bias_2d');
  const maskBias = op('Unsqueeze', [maskBias2d, axes12], 'mask_bias');

  for (let l = 0; l < cfg.num_hidden_layers; l++) {
    const p = `encoder.layer.${l}`;
    const s = `layer${l}`;
    // Self-attention, with Q, K and V computed by one MatMul and split.
    const qkv = dense(state, [`${p}.attention.self.query`, `${p}.attention.self.key`, `${p}.attention.self.value`], `${s}.qkv`);
    nodes.push(nodeProto('Split', [qkv], [`${s}.q`, `${s}.k`, `${s}.v`], { axis: 2 }));
    const heads4d = (x) => op('Reshape', [`${s}.${x}`, splitHeads], `${s}.${x}.heads`);
    const q = op('Transpose', [op('Mul', [heads4d('q'), queryScale], `${s}.q.scaled`)], `${s}.q.bhsd`, { perm: [0, 2, 1, 3] });
    const kT = op('Transpose', [heads4d('k')], `${s}.k.bhds`, { perm: [0, 2, 3, 1] });
    const v = op('Transpose', [heads4d('v')], `${s}.v.bhsd`, { perm: [0, 2, 1, 3] });
    const scores = op('Add', [op('MatMul', [q, kT], `${s}.scores.raw`), maskBias], `${s}.scores`);
    const probs = op('Softmax', [scores], `${s}.probs`, { axis: -1 });
    const context = op('Transpose', [op('MatMul', [probs, v], `${s}.context.bhsd`)], `${s}.context.bshd`, { perm: [0, 2, 1, 3] });
    const merged = op('Reshape', [context, mergeHeads], `${s}.context`);
    const attnOut = dense(merged, [`${p}.attention.output.dense`], `${s}.attention_out`);
    const attnState = layerNorm(op('Add', [attnOut, state], `${s}.attention_residual`), `${p}.attention.output.LayerNorm`, `${s}.attention_state`);
    // Feed-forward with exact GELU: 0.5 * x * (1 + erf(x / sqrt 2)).
    const x = dense(attnState, [`${p}.intermediate.dense`], `${s}.intermediate`);
    const erf = op('Erf', [op('Mul', [x, invSqrt2], `${s}.gelu.scaled`)], `${s}.gelu.erf`);
    const gate = op('Mul', [op('Add', [erf, one], `${s}.gelu.gate`), half], `${s}.gelu.half_gate`);
    const gelu = op('Mul', [x, gate], `${s}.gelu`);
    const ffOut = dense(gelu, [`${p}.output.dense`], `${s}.output`);
    const out = l === cfg.num_hidden_layers - 1 ? 'last_hidden_state' : `${s}.state`;
    state = layerNorm(op('Add', [ffOut, attnState], `${s}.output_residual`), `${p}.output.LayerNorm`, out);
  }

  // Mean over the real tokens (the count is floored at 1e-9 like sentence-transformers), then unit length.
  const mask3d = op('Unsqueeze', [maskFloat, axis2], 'mask_3d');
  const sum = op('ReduceSum', [op('Mul', [state, mask3d], 'masked_states'), axis1], 'state_sum', { keepdims: 0 });
  const count = op('Max', [op('ReduceSum', [mask3d, axis1], 'token_count', { keepdims: 0 }), minCount], 'token_count_floored');
  op('LpNormalization', [op('Div', [sum, count], 'mean_pooled')], 'sentence_embedding', { axis: -1, p: 2 });

  const io = (name) => valueInfoProto(name, DataType.INT64, ['batch', 'seq']);
  const graph = graphProto({
    name: 'bert_mean_pooled_encoder',
    nodes,
    initializers,
    inputs: [io('input_ids'), io('attention_mask'), io('token_type_ids')],
    outputs: [
      valueInfoProto('sentence_embedding', DataType.FLOAT, ['batch', hidden]),
      valueInfoProto('last_hidden_state', DataType.FLOAT, ['batch', 'seq', hidden]),
    ],
  });
  return modelProto({
    graph,
    opset: OPSET,
    producer: 'engram scripts/build-onnx.mjs',
    producerVersion: '1',
    docString: `BERT encoder, ${cfg.num_hidden_layers} layers, hidden ${hidden}, mean pooled and L2-normalised`,
  });
}

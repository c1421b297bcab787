import { AppError } from '../errors.js';

export interface MediaProviderCall {
  /** OpenAI-compatible base URL (`/chat/completions` and `/audio/transcriptions` are appended). */
  url: string;
  key?: string | undefined;
  model?: string | undefined;
  timeoutMs: number;
  /** Longest text kept (UTF-8 bytes): the caption or transcript limit. */
  maxBytes: number;
}

const CAPTION_PROMPT =
  'Describe this image for a search index in a few plain sentences: the main subjects, setting, any visible text, and notable details. No preamble.';

/**
 * Image captioning through `/chat/completions` with an image part (a data URL, so the provider needs no
 * access to our storage).
 */
export async function captionImage(call: MediaProviderCall, bytes: Uint8Array, contentType: string): Promise<string> {
  const dataUrl = `data:${contentType};base64,${Buffer.from(bytes).toString('base64')}`;
  const body = {
    model: call.model ?? 'gpt-4o-mini',
    messages: [{ role: 'user', content: [{ type: 'text', text: CAPTION_PROMPT }, { type: 'image_url', image_url: { url: dataUrl } }] }],
    max_tokens: 400,
  };
  const json = (await send(call, '/chat/completions', { 'content-type': 'application/json' }, JSON.stringify(body))) as {
    choices?: Array<{ message?: { content?: unknown } }>;
  };
  return usableText(json.choices?.[0]?.message?.content, call.maxBytes);
}

/** Audio transcription through `/audio/transcriptions` (multipart, as the OpenAI API takes it). */
export async function transcribeAudio(call: MediaProviderCall, bytes: Uint8Array, contentType: string, filename: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: contentType }), filename);
  form.append('model', call.model ?? 'whisper-1');
  form.append('response_format', 'json');
  const json = (await send(call, '/audio/transcriptions', {}, form)) as { text?: unknown };
  return usableText(json.text, call.maxBytes);
}

async function send(call: MediaProviderCall, path: string, headers: Record<string, string>, body: string | FormData): Promise<unknown> {
  const auth: Record<string, string> = call.key ? { authorization: `Bearer ${call.key}` } : {};
  let res: Response;
  try {
    res = await fetch(`${call.url.replace(/\/$/, '')}${path}`, { method: 'POST', headers: { ...headers, ...auth }, body, signal: AbortSignal.timeout(call.timeoutMs) });
  } catch (cause) {
    throw new AppError('provider_error', `the media provider could not be reached (${(cause as Error).name})`, { cause, expose: true });
  }
  if (res.status === 429 || res.status >= 500) {
    throw new AppError('provider_error', `the media provider answered ${res.status}`, { expose: true });
  }
  if (!res.ok) {
    // A 4xx will not change on retry: fail the workflow now.
    throw new AppError('provider_error', `the media provider refused the request (${res.status})`, { expose: true, retryable: false });
  }
  try {
    return await res.json();
  } catch (cause) {
    throw new AppError('provider_error', 'the media provider answered with malformed JSON', { cause, expose: true });
  }
}

/** Trimmed text cut to `maxBytes` of UTF-8 at a character boundary; empty or missing text is a provider error. */
export function usableText(value: unknown, maxBytes: number): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') throw new AppError('provider_error', 'the media provider returned no text', { expose: true, retryable: false });
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

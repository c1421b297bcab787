import { z } from 'zod';
import type { LlmConfig } from '../config.js';
import type { ChatMessage } from './prompt.js';

/** Thrown when the language model's endpoint fails or answers something that is not a chat completion. */
export class LlmError extends Error {
  override name = 'LlmError';
}

const CompletionSchema = z.object({
  model: z.string().optional(),
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
});

const ProviderErrorSchema = z.object({ error: z.union([z.string(), z.object({ message: z.string() })]) });

/** The provider's message for a failed answer, trimmed, with the key removed should it echo it back. */
function providerMessage(text: string, apiKey: string): string {
  let message = text;
  try {
    const parsed = ProviderErrorSchema.safeParse(JSON.parse(text));
    if (parsed.success) message = typeof parsed.data.error === 'string' ? parsed.data.error : parsed.data.error.message;
  } catch {
    // not JSON: keep the text
  }
  return message.split(apiKey).join('[key]').replace(/\s+/g, ' ').trim().slice(0, 300);
}

/**
 * Asks an OpenAI-compatible `/chat/completions` endpoint for an answer. `fetchImpl` is the platform's
 * fetch unless a test passes its own.
 */
export async function complete(llm: LlmConfig, messages: ChatMessage[], fetchImpl: typeof fetch = fetch, timeoutMs = 60_000): Promise<{ answer: string; model: string }> {
  const url = `${llm.baseUrl}/chat/completions`;
  const where = new URL(url).host;
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${llm.apiKey}` },
      body: JSON.stringify({ model: llm.model, messages, temperature: 0.2 }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : 'the connection failed';
    throw new LlmError(`The language model at ${where} could not be reached: ${reason}`);
  }
  const text = await response.text();
  if (!response.ok) throw new LlmError(`The language model at ${where} answered ${response.status}: ${providerMessage(text, llm.apiKey) || response.statusText}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LlmError(`The language model at ${where} answered something that is not JSON`);
  }
  const parsed = CompletionSchema.safeParse(json);
  if (!parsed.success) throw new LlmError(`The language model at ${where} answered without a chat completion (choices[0].message.content)`);
  return { answer: parsed.data.choices[0]!.message.content, model: parsed.data.model ?? llm.model };
}

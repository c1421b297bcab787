import Router from '@koa/router';
import type { Context } from 'koa';
import { complete, LlmError } from '../chat/llm.js';
import { buildMessages } from '../chat/prompt.js';
import type { AppDeps } from '../deps.js';
import { ChatBodySchema } from '../schemas.js';
import { type Source, withTitles } from '../sources.js';
import { parse } from '../validate.js';

const NOT_CONFIGURED = [
  'No language-model key is configured, so the app cannot write an answer; the passages that search found are below.',
  'To get answers, restart the app with LLM_API_KEY (or OPENAI_API_KEY) set, and LLM_BASE_URL and LLM_MODEL for a provider other than OpenAI',
  '(any OpenAI-compatible /chat/completions endpoint).',
].join(' ');

/** Answers an error of the chat route with the passages it retrieved, so that the page can still show them. */
function failWithSources(ctx: Context, status: number, code: string, message: string, question: string, sources: Source[]): void {
  ctx.status = status;
  ctx.body = { error: message, code, request_id: ctx.state.requestId as string, question, sources };
}

/**
 * Retrieval then generation: the question is searched in the owner's documents, and the passages found
 * are given to the language model as its only context. Without a key: 503 `llm_not_configured`; a failing
 * provider: 502 `llm_provider_error`; both still carry the passages.
 */
export function chatRoutes({ owner, config }: AppDeps, fetchImpl: typeof fetch = fetch): Router {
  const router = new Router();
  router.post('/api/chat', async (ctx) => {
    const { question, k } = parse(ChatBodySchema, ctx.request.body, 'body');
    const sources = await withTitles(owner, await owner.recall(question, { k }));
    const { apiKey, baseUrl, model } = config.llm;
    if (apiKey === null) return failWithSources(ctx, 503, 'llm_not_configured', NOT_CONFIGURED, question, sources);
    try {
      const { answer, model: answeredBy } = await complete({ apiKey, baseUrl, model }, buildMessages(question, sources), fetchImpl);
      ctx.body = { question, answer, model: answeredBy, sources };
    } catch (error) {
      if (!(error instanceof LlmError)) throw error;
      failWithSources(ctx, 502, 'llm_provider_error', error.message, question, sources);
    }
  });
  return router;
}

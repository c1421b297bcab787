// @ts-check
import { api, ApiFailure } from './api.js';
import { byId, fill, h } from './dom.js';
import { sourceItem } from './sources.js';

/**
 * The question form: the answer (or why there is none) and the passages it was given, by number.
 * @param {{ configured: boolean, model?: string }} llm
 */
export function setUpChat(llm) {
  const form = /** @type {HTMLFormElement} */ (byId('chat-form'));
  const out = byId('chat-answer');
  if (!llm.configured) out.append(h('p.hint', null, 'No language model is configured: you will see the passages found for your question, and how to get answers.'));

  /** @param {string} question @param {any[]} sources */
  const sourceList = (question, sources) => sources.length === 0
    ? h('p.status', null, 'No passage was found for this question.')
    : h('div', null, h('h3', null, 'Sources'), h('ol.hits', null, ...sources.map((s, i) => sourceItem(s, question, i + 1))));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const question = String(new FormData(form).get('question') ?? '').trim();
    if (!question) return;
    const button = /** @type {HTMLButtonElement} */ (form.querySelector('button'));
    button.disabled = true;
    fill(out, h('p.status', null, 'Searching and asking…'));
    try {
      const reply = await api('/api/chat', { method: 'POST', json: { question } });
      fill(out, h('div.answer', { dataset: { state: 'answered' } }, h('h3', null, 'Answer'), h('p', null, reply.answer), h('p.meta', null, `by ${reply.model}`)), sourceList(question, reply.sources));
    } catch (error) {
      const body = error instanceof ApiFailure ? error.body : null;
      const notice = h('div.notice', { role: 'alert', dataset: { code: body?.code ?? 'error' } },
        h('strong', null, body?.code === 'llm_not_configured' ? 'No answer: no language model is configured' : 'No answer'),
        h('p', null, /** @type {Error} */ (error).message));
      fill(out, notice, ...(Array.isArray(body?.sources) ? [sourceList(question, body.sources)] : []));
    } finally {
      button.disabled = false;
    }
  });
}

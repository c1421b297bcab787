// @ts-check
import { api } from './api.js';
import { byId } from './dom.js';
import { setUpChat } from './chat.js';
import { setUpDocuments } from './documents.js';
import { setUpSearch } from './search.js';

/** Shows the owner's document count (`GET /api/stats`); called after every change to the documents. */
async function refreshCount() {
  const el = byId('doc-count');
  try {
    const { documents } = await api('/api/stats');
    el.textContent = `${documents} document${documents === 1 ? '' : 's'}`;
    el.dataset.count = String(documents);
  } catch (error) {
    el.textContent = `count unavailable (${/** @type {Error} */ (error).message})`;
  }
}

async function start() {
  const info = await api('/api/info').catch(() => ({ owner: '?', llm: { configured: false } }));
  byId('owner-name').textContent = info.owner;
  setUpDocuments(refreshCount);
  setUpSearch();
  setUpChat(info.llm);
  await refreshCount();
}

start();

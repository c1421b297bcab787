// @ts-check
import { api, qs } from './api.js';
import { byId, fill, h } from './dom.js';
import { sourceItem } from './sources.js';

/** The search form: results with scores and highlighted passages, announced to screen readers. */
export function setUpSearch() {
  const form = /** @type {HTMLFormElement} */ (byId('search-form'));
  const results = byId('search-results');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const q = String(data.get('q') ?? '').trim();
    if (!q) return;
    fill(results, h('p.status', null, 'Searching…'));
    try {
      const found = await api(`/api/search${qs({ q, k: String(data.get('k') ?? '5') })}`);
      if (found.count === 0) return fill(results, h('p.status', null, `Nothing found for “${q}”.`));
      fill(results,
        h('p.status', null, `${found.count} result${found.count === 1 ? '' : 's'} for “${q}”`),
        h('ol.hits', null, ...found.results.map((/** @type {any} */ hit) => sourceItem(hit, q))));
    } catch (error) {
      fill(results, h('p.error', { role: 'alert' }, `Search failed: ${/** @type {Error} */ (error).message}`));
    }
  });
}

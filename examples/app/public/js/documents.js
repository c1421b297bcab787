// @ts-check
import { api, qs } from './api.js';
import { byId, fill, h, timeEl } from './dom.js';

const PAGE = 20;
const PREVIEW = 240;

/**
 * The add form and the list of documents: soft delete and restore in place, deleted ones shown on request.
 * @param {() => Promise<void>} onChange called after a document is added, deleted or restored
 */
export function setUpDocuments(onChange) {
  const list = byId('doc-list');
  const status = byId('docs-status');
  const showDeleted = /** @type {HTMLInputElement} */ (byId('show-deleted'));
  const prev = /** @type {HTMLButtonElement} */ (byId('docs-prev'));
  const next = /** @type {HTMLButtonElement} */ (byId('docs-next'));
  let offset = 0;

  async function load() {
    try {
      const page = await api(`/api/documents${qs({ include_deleted: showDeleted.checked, limit: PAGE, offset })}`);
      fill(list, ...page.documents.map(item));
      if (page.documents.length === 0) fill(list, h('li.empty', null, offset === 0 ? 'No documents yet: add one above.' : 'No more documents.'));
      prev.disabled = offset === 0;
      next.disabled = !page.has_more;
    } catch (error) {
      status.textContent = `Could not list the documents: ${/** @type {Error} */ (error).message}`;
    }
  }

  /** @param {any} doc */
  function item(doc) {
    const deleted = doc.deleted_at !== null;
    const text = doc.content ?? doc.derived_text ?? '';
    const action = deleted
      ? h('button', { type: 'button', onclick: () => change(doc, 'restore') }, 'Restore')
      : h('button.danger', { type: 'button', onclick: () => change(doc, 'delete') }, 'Delete');
    action.setAttribute('aria-label', `${deleted ? 'Restore' : 'Delete'} “${doc.title ?? doc.doc_id}”`);
    return h(
      `li.doc${deleted ? '.deleted' : ''}`,
      { dataset: { docId: doc.doc_id, state: deleted ? 'deleted' : 'active' } },
      h('div.doc-head', null,
        h('h3', null, doc.title ?? 'Untitled'),
        deleted ? h('span.badge.badge-deleted', null, 'deleted') : null,
        action),
      h('p.preview', null, text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text),
      h('p.meta', null, 'Added ', timeEl(doc.created_at), ...doc.tags.map((/** @type {string} */ tag) => h('span.tag', null, tag))),
    );
  }

  /** @param {any} doc @param {'delete' | 'restore'} what */
  async function change(doc, what) {
    const name = doc.title ?? doc.doc_id;
    try {
      if (what === 'delete') await api(`/api/documents/${encodeURIComponent(doc.doc_id)}`, { method: 'DELETE' });
      else await api(`/api/documents/${encodeURIComponent(doc.doc_id)}/restore`, { method: 'POST' });
      status.textContent = what === 'delete'
        ? `“${name}” deleted: it no longer appears in search; tick “Show deleted documents” to restore it.`
        : `“${name}” restored.`;
      await Promise.all([load(), onChange()]);
    } catch (error) {
      status.textContent = `Could not ${what} “${name}”: ${/** @type {Error} */ (error).message}`;
    }
  }

  showDeleted.addEventListener('change', () => { offset = 0; load(); });
  prev.addEventListener('click', () => { offset = Math.max(0, offset - PAGE); load(); });
  next.addEventListener('click', () => { offset += PAGE; load(); });

  const form = /** @type {HTMLFormElement} */ (byId('add-form'));
  const addStatus = byId('add-status');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const title = String(data.get('title') ?? '').trim();
    const tags = String(data.get('tags') ?? '').split(',').map((t) => t.trim()).filter(Boolean);
    const body = { content: String(data.get('content') ?? ''), ...(title ? { title } : {}), ...(tags.length ? { tags } : {}) };
    const button = /** @type {HTMLButtonElement} */ (form.querySelector('button[type=submit]'));
    button.disabled = true;
    try {
      const doc = await api('/api/documents', { method: 'POST', json: body });
      addStatus.textContent = `Added “${doc.title ?? doc.doc_id}”.`;
      form.reset();
      offset = 0;
      await Promise.all([load(), onChange()]);
    } catch (error) {
      addStatus.textContent = `Not added: ${/** @type {Error} */ (error).message}`;
    } finally {
      button.disabled = false;
    }
  });

  load();
}

// @ts-check
/** A small element builder: text always goes in as text (never as HTML), so nothing a document says can run. */

/**
 * @param {string} tag  e.g. 'li' or 'span.badge'
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | number | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElement(name || 'div');
  if (classes.length) el.className = classes.join(' ');
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replaces the children of `el`; null and false children are left out. @param {Element} el @param {...(Node | string | null | false)} children */
export function fill(el, ...children) {
  el.replaceChildren(.../** @type {(Node | string)[]} */ (children.filter((child) => child !== null && child !== false)));
}

/** @param {string} id @returns {any} */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A readable local time for an RFC 3339 instant. @param {string} iso */
export function when(iso) {
  return dateTime.format(new Date(iso));
}

/** A `<time>` element showing `iso` in local time, with the instant itself as its machine value. @param {string} iso */
export function timeEl(iso) {
  return h('time', { datetime: iso, title: iso }, when(iso));
}

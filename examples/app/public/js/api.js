// @ts-check
/** Calls of the app's own JSON routes (the browser never talks to Engram, and never holds a key). */

/** Thrown when a route answers an error: `body` is its JSON (`{ error, code, request_id, ... }`). */
export class ApiFailure extends Error {
  /** @param {number} status @param {any} body */
  constructor(status, body) {
    super(typeof body?.error === 'string' ? body.error : `The app answered ${status}`);
    this.status = status;
    this.body = body;
  }
}

/**
 * @param {string} path
 * @param {{ method?: string, json?: unknown }} [options]
 * @returns {Promise<any>}
 */
export async function api(path, options = {}) {
  /** @type {RequestInit} */
  const init = { method: options.method ?? 'GET', headers: { accept: 'application/json' } };
  if (options.json !== undefined) {
    init.body = JSON.stringify(options.json);
    init.headers = { ...init.headers, 'content-type': 'application/json' };
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiFailure(0, { error: 'The app cannot be reached: is it still running?' });
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiFailure(response.status, body);
  return body;
}

/** A query string from the defined values of `params`. @param {Record<string, string | number | boolean | undefined | null>} params */
export function qs(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

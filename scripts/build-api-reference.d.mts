/** The HTML of docs/api-reference.html, rendered from docs/openapi.json (build-api-reference.mjs). */
export function renderApiReference(): string;

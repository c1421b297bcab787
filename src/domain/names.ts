import type { Entity } from './entities.js';

/**
 * The form two entity names are compared in (`GET /v1/memory/entities?name=`): whole value, case-insensitive,
 * Unicode-aware, the same on every platform (no locale).
 *
 * - NFKC first: a letter typed precomposed (é, U+00E9) or decomposed (e + U+0301) is the same letter, and
 *   compatibility forms (ﬁ, full-width Ａ, ℌ) are their plain letters.
 * - Case by lower-, upper- then lower-casing (the full mappings): ß, ẞ, SS and ss are one, ﬀ and FF, final ς
 *   and σ, long ſ and s, the Kelvin sign and k, titlecase ǅ with Ǆ and ǆ (the first lower-casing takes ẞ
 *   to ß, which upper-casing then spells SS). Checked over every code point against Python's
 *   `str.casefold` (Unicode's full default case folding) with NFKC: the same classes, but for one pair:
 * - the Turkish dotted capital İ and dotless ı fold with I and i. Unicode's default keeps ı apart (and
 *   folds İ to i + a combining dot, matching nothing typed on a keyboard without it); without a locale,
 *   a name typed on a Turkish keyboard and the same name typed on another should find each other.
 * - NFKC again, as case mapping may leave a sequence that composes (İ's dot, Greek with diacritics).
 *
 * Nothing else changes: whitespace and punctuation count, so "Ann Lee" does not match "Ann  Lee".
 */
export function foldName(name: string): string {
  return name
    .normalize('NFKC')
    .replace(/[\u0130\u0131]/g, 'i')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC');
}

/** The distinct folded names of a node: its display name and aliases. */
export function entityNameForms(entity: Pick<Entity, 'display_name' | 'aliases'>): Set<string> {
  const forms = new Set<string>();
  if (entity.display_name !== null) forms.add(foldName(entity.display_name));
  for (const alias of entity.aliases) forms.add(foldName(alias));
  return forms;
}

/** Whether a node is called `folded` (a `foldName` result), by its display name or one of its aliases. */
export function entityHasName(entity: Pick<Entity, 'display_name' | 'aliases'>, folded: string): boolean {
  return entityNameForms(entity).has(folded);
}

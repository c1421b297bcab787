/**
 * An object with no prototype, filled from entries whose keys come from users (field names, aggregate
 * names). On a plain `{}`, assigning the key `__proto__` replaces the prototype instead of adding a key,
 * and reading `constructor` or `toString` finds an inherited member; here every key is an own property
 * and nothing else is. `JSON.stringify` writes it like any object.
 */
export function prototypeFree<V>(entries: Iterable<readonly [string, V]> = []): Record<string, V> {
  const out = Object.create(null) as Record<string, V>;
  for (const [key, value] of entries) out[key] = value;
  return out;
}

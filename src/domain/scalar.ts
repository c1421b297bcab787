/** The scalar rule: attribute values and fact values are string, finite number, boolean or null. */
export type Scalar = string | number | boolean | null;
export type ScalarMap = Record<string, Scalar>;

export function isScalar(value: unknown): value is Scalar {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** Names the JSON kind of a value for error messages: `object`, `array`, `string`, ... */
export function describeJsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'non-finite number';
  return typeof value;
}

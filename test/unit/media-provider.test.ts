import { describe, expect, it } from 'vitest';
import { withAppFailures } from '../../activities/failures.js';
import { usableText } from '../../src/providers/media-provider.js';

describe('provider text', () => {
  it('trims and keeps text within the byte limit', () => {
    expect(usableText('  a caption \n', 100)).toBe('a caption');
  });

  it('cuts at a UTF-8 character boundary, never inside a character', () => {
    const cut = usableText('ééééé', 5);
    expect(cut).toBe('éé');
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(5);
  });

  it('refuses empty or missing text as a non-retryable provider error', async () => {
    expect(() => usableText('   ', 10)).toThrow(/no text/);
    expect(() => usableText(undefined, 10)).toThrow(/no text/);
    expect(() => usableText(42, 10)).toThrow(expect.objectContaining({ code: 'provider_error', retryable: false }));
    // What the workflow sees once the activity maps it: a provider_error failure that is not retried.
    const failure = await withAppFailures(async () => usableText(42, 10)).catch((e: unknown) => e);
    expect(failure).toMatchObject({ type: 'provider_error', nonRetryable: true });
  });
});

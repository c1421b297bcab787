import { performance } from 'node:perf_hooks';

/**
 * Samples the event loop's delay: a timer due every `intervalMs` reports how late it fired, in seconds.
 * Each sample goes to `observe` (a Prometheus histogram), so the delay's quantiles can be read over any
 * span, a whole benchmark phase or the last five minutes, not only since the previous scrape. A timer
 * that nothing waits for: it never keeps the process alive.
 */
export function sampleLoopDelay(intervalMs: number, observe: (seconds: number) => void): { stop(): void } {
  let due = performance.now() + intervalMs;
  const timer = setInterval(() => {
    const now = performance.now();
    observe(Math.max(0, now - due) / 1000);
    due = now + intervalMs;
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

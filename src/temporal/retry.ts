import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

type Interceptor = ReturnType<typeof makeGrpcRetryInterceptor>;

/**
 * The client's gRPC retry interceptor, bounded in time: a failing call is retried with the SDK's
 * backoff and retryable codes, but only while the next attempt would start within `budgetMs` of the
 * first failure (and before the call's own deadline).
 *
 * Why: the SDK's default makes 10 attempts (~20 s of backoff), and its retries ignore the call's
 * cancellation, so a route waiting on a workflow result (a long poll without deadline) when Temporal
 * died answered only once they ran out. Bounded by `connect_timeout_ms`, it answers 503 within that.
 */
export function boundedRetryInterceptor(budgetMs: number): Interceptor {
  const backoff = defaultGrpcRetryOptions();
  return (options, nextCall) => {
    let firstFailure: number | null = null;
    let delay = 0;
    const deadline = options.deadline === undefined ? Infinity : Number(options.deadline);
    return makeGrpcRetryInterceptor({
      retryableDecider: (attempt, status) => {
        if (!backoff.retryableDecider(attempt, status)) return false;
        const now = Date.now();
        firstFailure ??= now;
        delay = backoff.delayFunction(attempt, status);
        return now + delay < Math.min(firstFailure + budgetMs, deadline);
      },
      // Called right after a positive decision: the delay that decision was made with.
      delayFunction: () => delay,
    })(options, nextCall);
  };
}

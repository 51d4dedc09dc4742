/**
 * Retries, as docs/api.md asks of a client: a `429` or `503` is sent again after its
 * `Retry-After`; a request that got no answer (a dropped connection, a timeout) is sent again
 * only when sending it twice cannot do a thing twice: a read, or a command, whose
 * `command_id` makes a retry answer the first outcome (`duplicate: true`) and append
 * nothing. Any other status is the answer: a 4xx other than 429 is never retried.
 */

import { NetworkError } from "./errors.js";

export interface RetryPolicy {
  /** Attempts in all, the first included (default 5). */
  attempts?: number;
  /** The longest wait between attempts, in milliseconds (default 30 000): a `Retry-After`
   * beyond it is waited out for this long, then tried. */
  maxDelayMs?: number;
  /** The first wait after a network failure, doubled each time (default 250). */
  baseDelayMs?: number;
}

export type Fetch = (input: Request) => Promise<Response>;

const RETRY_STATUSES = new Set([429, 503]);

export function retrying(fetch: Fetch, policy: RetryPolicy = {}): Fetch {
  const attempts = Math.max(1, policy.attempts ?? 5);
  const maxDelay = policy.maxDelayMs ?? 30_000;
  const base = policy.baseDelayMs ?? 250;
  return async (request) => {
    const replayable = safeToResend(request);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= attempts;
      let response: Response;
      try {
        response = await fetch(last ? request : request.clone());
      } catch (error) {
        if (request.signal.aborted) throw error;
        if (!replayable || last) {
          throw new NetworkError(0, {
            code: "client/network",
            message: `no answer from ${new URL(request.url).origin} after ${attempt} attempt(s): ${String(error)}`,
          }, null, { cause: error });
        }
        await sleep(Math.min(maxDelay, base * 2 ** (attempt - 1) * (0.5 + Math.random())), request.signal);
        continue;
      }
      if (!RETRY_STATUSES.has(response.status) || last) return response;
      const seconds = Number(response.headers.get("Retry-After"));
      const wait = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : base * 2 ** (attempt - 1);
      await response.body?.cancel();
      await sleep(Math.min(maxDelay, wait), request.signal);
    }
  };
}

/** Reads, commands (their id makes a resend a no-op), previews and stream tickets (a second
 * one is merely unused) may be resent after no answer. */
function safeToResend(request: Request): boolean {
  if (request.method === "GET" || request.method === "HEAD") return true;
  const path = new URL(request.url).pathname;
  return request.method === "POST" && /\/(commands|commands\/preview|stream-tickets)$/.test(path);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}

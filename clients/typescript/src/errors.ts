/**
 * Fray's errors as typed exceptions. Every error Fray answers is
 * `{"error": {"code", "message", "rule"?, "details"?}}` (docs/api.md, "Errors"): branch on
 * `code`, show `message`, cite `rule` where the rules gave one.
 */

export interface ErrorBody {
  code: string;
  message: string;
  rule?: string | null;
  details?: unknown;
}

export class FrayError extends Error {
  override name = "FrayError";
  /** The HTTP status; 0 when no answer came (the network failed on every attempt). */
  readonly status: number;
  /** Fray's stable code, e.g. `turn/not-your-turn`, `rate/limited`. */
  readonly code: string;
  /** The rules section a refusal enforces, when the ruleset cites one. */
  readonly rule: string | null;
  readonly details: unknown;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | null;

  constructor(status: number, body: ErrorBody, retryAfter: number | null = null, options?: ErrorOptions) {
    super(body.message, options);
    this.status = status;
    this.code = body.code;
    this.rule = body.rule ?? null;
    this.details = body.details ?? null;
    this.retryAfter = retryAfter;
  }
}

/** A 409: a stale `expected_version` (`encounter/version-conflict`, `details.expected` and
 * `details.actual`), a reused id, an archived encounter, dice awaited, a busy encounter. */
export class ConflictError extends FrayError {
  override name = "ConflictError";
}

/** The network failed (no answer) on every attempt. */
export class NetworkError extends FrayError {
  override name = "NetworkError";
}

/** The error a failed answer stands for: `ConflictError` for a 409, else `FrayError`. */
export async function errorOf(response: Response): Promise<FrayError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    // Not Fray's JSON (a proxy's page): the status is all there is.
  }
  return errorFrom(response, body);
}

/** The error of an answer whose body is already read (`body`: its parsed JSON). */
export function errorFrom(response: Response, body: unknown): FrayError {
  const detail = (body as { error?: Partial<ErrorBody> } | null | undefined)?.error;
  const error: ErrorBody = detail && typeof detail.code === "string" && typeof detail.message === "string"
    ? (detail as ErrorBody)
    : { code: `http/${response.status}`, message: response.statusText || `HTTP ${response.status}` };
  const wait = retryAfterSeconds(response);
  return response.status === 409 ? new ConflictError(409, error, wait) : new FrayError(response.status, error, wait);
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(response: Response): number | null {
  const header = response.headers.get("Retry-After");
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}

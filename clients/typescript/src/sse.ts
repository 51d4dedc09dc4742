/**
 * Following an encounter live over SSE with `fetch` streaming, which works alike in browsers
 * and Node (an `EventSource` cannot resume with a new ticket). Each connection is opened with
 * a fresh single-use stream ticket (docs/api.md, "Stream tickets"), so the credential never
 * travels in a URL and a browser page needs no `Authorization` header on the stream; after a
 * drop it reconnects with `Last-Event-ID`, and Fray resumes with no gap and no duplicate.
 * The server's `retry:` hint sets the wait before reconnecting; its `server/shutting-down`
 * frame (a deploy) ends one connection, not the follow.
 */

import { parseJson, type JsonObject } from "./audit/canonical.js";
import { FrayError, NetworkError, errorOf } from "./errors.js";
import { sleep } from "./retry.js";
import type { components } from "./generated/openapi.js";

export type Event = components["schemas"]["Event"];
export type Receipt = components["schemas"]["Receipt"];

export interface LiveEvent {
  /** The event's version: its SSE `id`. */
  version: number;
  /** The event type: its SSE `event` name. */
  type: string;
  /** The envelope, as the viewer may see it (JSON.parse'd). */
  event: Event;
  /** Fray's signed receipt of this event. */
  receipt: Receipt | null;
  /** The frame's JSON text: `parseJson(raw)` keeps floats as floats, for `auditEnvelopes`. */
  raw: string;
}

export interface FollowOptions {
  /** Start after this version (default 0: the whole history). */
  after?: number;
  /** Stops following (the iterator ends). */
  signal?: AbortSignal;
  /** Open each connection with a stream ticket (default true); false sends the credential
   * in the `Authorization` header instead. */
  tickets?: boolean;
  /** Called when a connection ends and another will be opened: why, and after how long. */
  onReconnect?: (info: { reason: string; delayMs: number; lastEventId: number }) => void;
  /** Reconnections in a row without receiving an event before giving up (default 10). */
  maxFailures?: number;
  /** Milliseconds without a byte (Fray sends a keep-alive every 15 s) after which the
   * connection is taken for dead and replaced (default 45 000). */
  idleMs?: number;
}

export interface Connection {
  url: string;
  ticket: string | null;
  headers: Record<string, string>;
}

export interface FollowHooks {
  /** Mint a stream ticket for one connection. */
  ticket(): Promise<string>;
  /** The URL of the events route, with `after` and `follow` set. */
  url(after: number, ticket: string | null): string;
  authorization: string;
  fetch: (request: Request) => Promise<Response>;
}

const DEFAULT_RETRY_MS = 2000;

/** A live follow: an async iterable of events that reconnects and resumes by itself. */
export class EventStream implements AsyncIterable<LiveEvent> {
  /** The last version received: what the next connection sends as `Last-Event-ID`. */
  lastEventId: number;
  /** Connections opened so far. */
  connections = 0;
  private retryMs = DEFAULT_RETRY_MS;
  private current: AbortController | null = null;
  private readonly stop = new AbortController();

  constructor(private readonly hooks: FollowHooks, private readonly options: FollowOptions = {}) {
    this.lastEventId = options.after ?? 0;
    options.signal?.addEventListener("abort", () => this.close(), { once: true });
  }

  /** Drop the current connection (as a network drop would); the follow reconnects and
   * resumes after `lastEventId`. */
  reconnect(): void {
    this.current?.abort(new Error("reconnect"));
  }

  /** Stop following. */
  close(): void {
    this.stop.abort(new Error("closed"));
    this.current?.abort(new Error("closed"));
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LiveEvent> {
    const useTickets = this.options.tickets ?? true;
    const maxFailures = this.options.maxFailures ?? 10;
    let failures = 0;
    try {
      while (!this.stop.signal.aborted) {
        let reason = "";
        const connection = new AbortController();
        this.current = connection;
        try {
          const response = await this.open(useTickets, connection.signal);
          if (!response.ok) {
            const error = await errorOf(response);
            // A ticket spent or expired between minting and use, a 429 or a 503: try again.
            if (![401, 429, 503].includes(response.status) || (response.status === 401 && !useTickets)) throw error;
            if (error.retryAfter !== null) this.retryMs = error.retryAfter * 1000;
            reason = error.code;
          } else {
            const idleMs = this.options.idleMs ?? 45_000;
            let idle = setTimeout(() => connection.abort(new Error("idle")), idleMs);
            const alive = (): void => {
              clearTimeout(idle);
              idle = setTimeout(() => connection.abort(new Error("idle")), idleMs);
            };
            try {
              for await (const frame of frames(response.body!, alive)) {
                if (frame.retry !== undefined) this.retryMs = frame.retry;
                if (frame.event === "error" && frame.id === undefined) {
                  reason = errorCode(frame.data);
                  break;
                }
                if (frame.id === undefined || frame.data === "") continue;
                const live = this.live(frame);
                failures = 0;
                this.lastEventId = live.version;
                yield live;
              }
            } finally {
              clearTimeout(idle);
            }
            if (reason === "") reason = "the stream ended";
          }
        } catch (error) {
          if (this.stop.signal.aborted) return;
          // A refusal ends the follow; no answer (the server away, a deploy) does not.
          if (error instanceof FrayError && !(error instanceof NetworkError)) throw error;
          const why = connection.signal.reason as Error | undefined;
          reason = why?.message === "reconnect" ? "reconnect asked"
            : why?.message === "idle" ? "no keep-alive" : `connection lost: ${String(error)}`;
        }
        failures++;
        if (failures > maxFailures) {
          throw new FrayError(0, { code: "client/stream-lost", message: `gave up following after ${maxFailures} reconnections without an event (${reason})` });
        }
        const delayMs = reason === "reconnect asked" ? 0 : this.retryMs;
        this.options.onReconnect?.({ reason, delayMs, lastEventId: this.lastEventId });
        try {
          await sleep(delayMs, this.stop.signal);
        } catch {
          return;
        }
      }
    } finally {
      this.current?.abort(new Error("closed"));
    }
  }

  private async open(useTickets: boolean, signal: AbortSignal): Promise<Response> {
    const ticket = useTickets ? await this.hooks.ticket() : null;
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (this.lastEventId > 0) headers["Last-Event-ID"] = String(this.lastEventId);
    if (ticket === null) headers.Authorization = this.hooks.authorization;
    this.connections++;
    const request = new Request(this.hooks.url(this.lastEventId, ticket), { headers, signal });
    return this.hooks.fetch(request);
  }

  private live(frame: Frame): LiveEvent {
    const parsed = JSON.parse(frame.data) as Event & { receipt?: Receipt };
    const { receipt = null, ...event } = parsed;
    return { version: Number(frame.id), type: frame.event ?? "message", event, receipt, raw: frame.data };
  }
}

/** The envelope of a live event read keeping every number's kind, for `auditEnvelopes`. */
export function envelopeOf(live: LiveEvent): JsonObject {
  const value = parseJson(live.raw) as JsonObject;
  delete value.receipt;
  return value;
}

function errorCode(data: string): string {
  try {
    return (JSON.parse(data) as { error: { code: string } }).error.code;
  } catch {
    return "error";
  }
}

interface Frame {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/** The SSE frames of a body (the WHATWG event-stream format: fields, comments, blank
 * lines ending a frame; `retry` alone is a frame of its own here so its hint applies). */
export async function* frames(
  body: ReadableStream<Uint8Array>, onBytes?: () => void,
): AsyncGenerator<Frame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let frame: Frame = { data: "" };
  let data: string[] = [];
  let fields = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      onBytes?.();
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
        if (line === "") {
          if (fields > 0) {
            frame.data = data.join("\n");
            yield frame;
          }
          frame = { data: "" };
          data = [];
          fields = 0;
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        fields++;
        if (name === "data") data.push(value);
        else if (name === "id") frame.id = value;
        else if (name === "event") frame.event = value;
        else if (name === "retry" && /^\d+$/.test(value)) frame.retry = Number(value);
        else fields--;
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

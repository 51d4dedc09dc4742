/**
 * Following an encounter over GraphQL (`encounterEvents`, graphql-transport-ws via
 * graphql-ws), the alternative to SSE. The credential goes in `connection_init`'s payload, as
 * browsers cannot set headers on a websocket. graphql-ws's own reconnection would subscribe
 * again from the first `after` and repeat events, so it is off: after a close (1012: the
 * instance shut down) or a `subscription/too-slow` error, this subscribes again after the
 * last version received, with no gap and no duplicate (docs/api.md, "Subscriptions").
 */

import { createClient, type Client } from "graphql-ws";

import { FrayError } from "./errors.js";
import { sleep } from "./retry.js";
import type { Event as GraphQLEvent } from "./generated/graphql.js";

export type SubscribedEvent = GraphQLEvent;

export const ENCOUNTER_EVENTS = `subscription EncounterEvents($id: String!, $after: Int!) {
  encounterEvents(encounterId: $id, after: $after) {
    version type schema data at commandId actor command rolls prevHash hash
    receipt { kid encounterId version hash sig }
  }
}`;

export interface SubscribeOptions {
  /** Start after this version (default 0). */
  after?: number;
  signal?: AbortSignal;
  /** A WebSocket class where there is no global one (Node 20 without
   * `--experimental-websocket`: the `ws` package's). */
  webSocketImpl?: unknown;
  /** Called before subscribing again: why, and from which version. */
  onResubscribe?: (info: { reason: string; after: number }) => void;
  /** Resubscriptions in a row without an event before giving up (default 10). */
  maxFailures?: number;
  /** The wait before subscribing again, in milliseconds (default 1000). */
  retryMs?: number;
}

/** Errors that end a subscription but not the follow: subscribe again from the last version. */
const RESUMABLE = new Set(["subscription/too-slow", "subscription/interrupted", "store/unavailable"]);

interface GraphQLErrorShape {
  message: string;
  extensions?: { code?: string; status?: number; details?: unknown };
}

export class EventSubscription implements AsyncIterable<SubscribedEvent> {
  /** The last version received: where a new subscription starts. */
  lastVersion: number;
  /** Subscriptions opened so far. */
  subscriptions = 0;
  private client: Client | null = null;
  private closed = false;
  private asked = false;

  constructor(
    private readonly url: string,
    private readonly encounterId: string,
    private readonly authorization: string,
    private readonly options: SubscribeOptions = {},
  ) {
    this.lastVersion = options.after ?? 0;
    options.signal?.addEventListener("abort", () => this.close(), { once: true });
  }

  /** Drop the websocket (as a network drop would); the follow subscribes again. */
  reconnect(): void {
    this.asked = true;
    void this.client?.dispose();
  }

  close(): void {
    this.closed = true;
    void this.client?.dispose();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SubscribedEvent> {
    let failures = 0;
    const maxFailures = this.options.maxFailures ?? 10;
    try {
      while (!this.closed) {
        let reason = "the subscription ended";
        const client = createClient({
          url: this.url,
          connectionParams: { authorization: this.authorization },
          retryAttempts: 0,
          lazy: true,
          ...(this.options.webSocketImpl ? { webSocketImpl: this.options.webSocketImpl } : {}),
        });
        this.client = client;
        this.subscriptions++;
        try {
          const results = client.iterate<{ encounterEvents: SubscribedEvent }>({
            query: ENCOUNTER_EVENTS,
            variables: { id: this.encounterId, after: this.lastVersion },
          });
          for await (const result of results) {
            const error = (result.errors as GraphQLErrorShape[] | undefined)?.[0];
            if (error !== undefined) {
              const code = error.extensions?.code ?? "graphql/error";
              if (!RESUMABLE.has(code)) {
                throw new FrayError(error.extensions?.status ?? 0, {
                  code, message: error.message, details: error.extensions?.details,
                });
              }
              reason = code;
              break;
            }
            const event = result.data!.encounterEvents;
            failures = 0;
            this.lastVersion = event.version;
            yield event;
          }
        } catch (error) {
          if (this.closed) return;
          if (error instanceof FrayError) throw error;
          reason = closeReason(error);
          if (/^44(00|01|03)\b/.test(reason)) {
            // 44xx: the server refused the connection (a bad credential): not a drop.
            throw new FrayError(0, { code: "graphql/refused", message: `the websocket was refused: ${reason}` });
          }
        } finally {
          await client.dispose();
        }
        if (this.asked) reason = "reconnect asked";
        const delay = this.asked ? 0 : this.options.retryMs ?? 1000;
        this.asked = false;
        failures++;
        if (failures > maxFailures) {
          throw new FrayError(0, { code: "client/stream-lost", message: `gave up after ${maxFailures} resubscriptions without an event (${reason})` });
        }
        this.options.onResubscribe?.({ reason, after: this.lastVersion });
        try {
          await sleep(delay, this.options.signal);
        } catch {
          return;
        }
      }
    } finally {
      void this.client?.dispose();
    }
  }
}

function closeReason(error: unknown): string {
  const close = error as { code?: unknown; reason?: unknown } | null;
  if (close && typeof close.code === "number") {
    return `${close.code}${close.reason ? ` ${String(close.reason)}` : ""}`;
  }
  return `connection lost: ${String(error)}`;
}

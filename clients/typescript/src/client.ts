/**
 * The Fray client: a thin layer over openapi-fetch and the types generated from
 * openapi/openapi.yaml. It adds what every integrator otherwise writes by hand (docs/api.md):
 * a `command_id` per command, kept across retries so a command is appended once; `Retry-After`
 * honoured; errors as typed exceptions; paging; and a live follow that resumes.
 */

import createClient, { type Client } from "openapi-fetch";

import { auditExport, keysOf, type AuditReport, type PublicKey } from "./audit/verify.js";
import { errorFrom } from "./errors.js";
import { retrying, type Fetch, type RetryPolicy } from "./retry.js";
import { EventStream, type FollowOptions } from "./sse.js";
import { EventSubscription, type SubscribeOptions } from "./subscriptions.js";
import type { components, operations, paths } from "./generated/openapi.js";

type Schemas = components["schemas"];
export type Command = Schemas["Command"];
export type CommandAccepted = Schemas["CommandAccepted"];
export type CreateEncounter = Schemas["CreateEncounter"];
export type EncounterCreated = Schemas["EncounterCreated"];
export type Encounter = Schemas["Encounter"];
export type EncounterList = Schemas["EncounterList"];
export type EventPage = Schemas["EventPage"];
export type NarrationLine = Schemas["NarrationLine"];
export type NarrationPage = Schemas["NarrationPage"];
export type LegalActions = Schemas["LegalActions"];
export type MintToken = Schemas["MintToken"];
export type TokenMinted = Schemas["TokenMinted"];
export type Event = Schemas["Event"];
export type ListEncountersQuery = NonNullable<operations["listEncounters"]["parameters"]["query"]>;

export interface FrayOptions {
  /** Fray's base URL, e.g. `http://127.0.0.1:8000` (no `/v1`). */
  baseUrl: string;
  /** A tenant API key or an encounter token (`fray1.…`). */
  credential: string;
  /** The `fetch` to use (default: the global one). */
  fetch?: Fetch;
  retry?: RetryPolicy;
}

export interface SendOptions {
  /** The command's id; default a fresh UUID per call. A retry reuses it, so Fray appends
   * the command once and answers a resend with the first outcome (`duplicate: true`). */
  commandId?: string;
  /** Decide only at this version, else `ConflictError` `encounter/version-conflict`. */
  expectedVersion?: number;
  /** Faces rolled at the table, in the order the command rolls them. */
  dice?: number[];
  deckOrders?: number[][];
}

/** A Fray server seen with one credential. */
export class Fray {
  /** The typed openapi-fetch client, for any route this layer does not wrap. */
  readonly api: Client<paths>;
  readonly baseUrl: string;
  private readonly credential: string;
  private readonly fetch: Fetch;
  private readonly options: FrayOptions;

  constructor(options: FrayOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.credential = options.credential;
    this.options = options;
    const base: Fetch = options.fetch ?? ((request) => globalThis.fetch(request));
    this.fetch = retrying(base, options.retry);
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: this.fetch,
      headers: { Authorization: `Bearer ${this.credential}` },
    });
  }

  /** The same server with another credential (a token you minted). */
  as(credential: string, options: Partial<FrayOptions> = {}): Fray {
    return new Fray({ ...this.options, credential, ...options });
  }

  async createEncounter(body: CreateEncounter): Promise<EncounterCreated> {
    return ok(await this.api.POST("/v1/encounters", { body }));
  }

  /** One page of the tenant's encounters; pass `cursor: next_cursor` for the next. */
  async listEncounters(query: ListEncountersQuery = {}): Promise<EncounterList> {
    return ok(await this.api.GET("/v1/encounters", { params: { query } }));
  }

  /** The public keys that sign receipts (`GET /v1/keys`): the keys an audit trusts. */
  async keys(): Promise<PublicKey[]> {
    return keysOf(ok(await this.api.GET("/v1/keys")));
  }

  encounter(encounterId: string): EncounterClient {
    return new EncounterClient(this, encounterId, this.fetch, this.credential);
  }
}

/** One encounter, through one credential. */
export class EncounterClient {
  constructor(
    readonly fray: Fray,
    readonly id: string,
    private readonly fetch: Fetch,
    private readonly credential: string,
  ) {}

  private get path() {
    return { params: { path: { encounter_id: this.id } } } as const;
  }

  /** The encounter as this credential may see it (`asOf`: as of that version). */
  async get(asOf?: number): Promise<Encounter> {
    const query = asOf === undefined ? {} : { as_of: asOf };
    return ok(await this.fray.api.GET("/v1/encounters/{encounter_id}", {
      params: { path: { encounter_id: this.id }, query },
    }));
  }

  /** Send a command. Rejections throw: `ConflictError` (409), else `FrayError` with the
   * rule's `code` and `rule`. The command id is generated here unless given, and a retry
   * (no answer, 429, 503) sends the same id. */
  async send(command: Command, options: SendOptions = {}): Promise<CommandAccepted> {
    const body: Schemas["CommandRequest"] = {
      command_id: options.commandId ?? newCommandId(),
      command,
    };
    if (options.expectedVersion !== undefined) body.expected_version = options.expectedVersion;
    if (options.dice !== undefined) body.dice = options.dice;
    if (options.deckOrders !== undefined) body.deck_orders = options.deckOrders;
    const answer = ok(await this.fray.api.POST("/v1/encounters/{encounter_id}/commands", {
      ...this.path, body,
    }));
    return answer as CommandAccepted;
  }

  /** What `command` would do now, appending nothing: its events, or the refusal, and the
   * table dice it still needs (docs/api.md, "Previewing a command"). */
  async preview(command: Command, options: Omit<SendOptions, "commandId"> = {}): Promise<Schemas["CommandPreview"]> {
    const body: Schemas["CommandRequest"] = { command };
    if (options.expectedVersion !== undefined) body.expected_version = options.expectedVersion;
    if (options.dice !== undefined) body.dice = options.dice;
    if (options.deckOrders !== undefined) body.deck_orders = options.deckOrders;
    return ok(await this.fray.api.POST("/v1/encounters/{encounter_id}/commands/preview", { ...this.path, body }));
  }

  /** Answer a roll request (`dice: "prompt"`) with the faces rolled. */
  async submitRoll(requestId: string, faces: number[], options: SendOptions = {}): Promise<CommandAccepted> {
    return this.send({ type: "submit-roll", request_id: requestId, faces } as Command, options);
  }

  /** One page of events after `after` (a version). */
  async events(after = 0, limit = 100): Promise<EventPage> {
    // The route also answers SSE (text/event-stream); a page is its JSON answer.
    return ok(await this.fray.api.GET("/v1/encounters/{encounter_id}/events", {
      params: { path: { encounter_id: this.id }, query: { after, limit } },
    })) as EventPage;
  }

  /** Every event after `after`, page by page. */
  async *allEvents(after = 0, pageSize = 100): AsyncGenerator<Event> {
    let cursor = after;
    for (;;) {
      const page = await this.events(cursor, pageSize);
      yield* page.events;
      if (!page.has_more) return;
      cursor = page.next_after;
    }
  }

  /** One page of the event log as sentences after `after` (a version): the page `events`
   * answers, each event told as its ruleset tells it, from the copy this credential is sent. */
  async narration(after = 0, limit = 100): Promise<NarrationPage> {
    return ok(await this.fray.api.GET("/v1/encounters/{encounter_id}/narration", {
      params: { path: { encounter_id: this.id }, query: { after, limit } },
    }));
  }

  /** Every line of the narration after `after`, page by page. */
  async *allNarration(after = 0, pageSize = 100): AsyncGenerator<NarrationLine> {
    let cursor = after;
    for (;;) {
      const page = await this.narration(cursor, pageSize);
      yield* page.lines;
      if (!page.has_more) return;
      cursor = page.next_after;
    }
  }

  /** Follow live over SSE: an async iterable that reconnects with a new stream ticket and
   * `Last-Event-ID` after a drop or a server's shutdown, with no gap and no duplicate. */
  follow(options: FollowOptions = {}): EventStream {
    const base = `${this.fray.baseUrl}/v1/encounters/${encodeURIComponent(this.id)}/events`;
    return new EventStream({
      ticket: async () => (await this.streamTicket()).ticket,
      url: (after, ticket) => {
        const query = new URLSearchParams({ follow: "true", after: String(after) });
        if (ticket !== null) query.set("ticket", ticket);
        return `${base}?${query}`;
      },
      authorization: `Bearer ${this.credential}`,
      fetch: this.fetch,
    }, options);
  }

  /** Follow live over GraphQL (`encounterEvents` on `/graphql`, graphql-transport-ws): the
   * events as the GraphQL schema names their fields (`commandId`, `prevHash`, `receipt`). */
  subscribe(options: SubscribeOptions = {}): EventSubscription {
    const url = `${this.fray.baseUrl.replace(/^http/, "ws")}/graphql`;
    return new EventSubscription(url, this.id, `Bearer ${this.credential}`, options);
  }

  /** A single-use ticket that opens this encounter's event stream once, within 60 s. */
  async streamTicket(): Promise<Schemas["StreamTicketMinted"]> {
    return ok(await this.fray.api.POST("/v1/encounters/{encounter_id}/stream-tickets", this.path));
  }

  /** What the viewer may do now: one option per button, with `params_schema`. */
  async legalActions(): Promise<LegalActions> {
    return ok(await this.fray.api.GET("/v1/encounters/{encounter_id}/legal-actions", this.path));
  }

  /** Mint a token for this encounter (with the key or a GM token). */
  async mintToken(body: MintToken): Promise<TokenMinted> {
    return ok(await this.fray.api.POST("/v1/encounters/{encounter_id}/tokens", { ...this.path, body }));
  }

  /** The seed and its commitment (the GM, the key and auditors, before the end). */
  async seed(): Promise<Schemas["Seed"]> {
    return ok(await this.fray.api.GET("/v1/encounters/{encounter_id}/seed", this.path));
  }

  /** The export: a header line, then each envelope's stored bytes, one per line. */
  async export(): Promise<string> {
    const answer = await this.fray.api.GET("/v1/encounters/{encounter_id}/export", {
      ...this.path, parseAs: "text",
    });
    if (answer.error !== undefined || !answer.response.ok) throw errorFrom(answer.response, answer.error);
    return answer.data as unknown as string;
  }

  /** The server's own audit verdict (`GET .../audit`). */
  async serverAudit(): Promise<Schemas["EncounterAudit"]> {
    return ok(await this.fray.api.GET("/v1/encounters/{encounter_id}/audit", this.path));
  }

  /** Audit the export here, with WebCrypto, trusting the keys the server serves now (fetch
   * them yourself from a source you trust to do better) and the seed when it is given. */
  async verify(options: { seed?: string; receipts?: unknown[]; trusted?: PublicKey[] } = {}): Promise<AuditReport> {
    const [text, trusted] = await Promise.all([this.export(), options.trusted ?? this.fray.keys()]);
    return auditExport(text, { ...options, trusted });
  }
}

/** A fresh command id: a random UUID (v4). `crypto.randomUUID` exists only in a secure
 * context (https, localhost); `getRandomValues` everywhere. */
export function newCommandId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of an openapi-fetch answer, or the typed error it stands for. */
function ok<T>(answer: Answer<T>): NonNullable<T> {
  if (answer.error !== undefined || !answer.response.ok) throw errorFrom(answer.response, answer.error);
  return answer.data as NonNullable<T>;
}

/**
 * Fray's client for browsers and Node. `Fray` wraps the REST API (types generated from
 * openapi/openapi.yaml, in `./generated/openapi.js`), `EncounterClient.follow` follows an
 * encounter live over SSE, and the audit verifier (`./audit`) checks a stream with WebCrypto.
 */
export { Fray, EncounterClient, newCommandId } from "./client.js";
export type {
  Command, CommandAccepted, CreateEncounter, Encounter, EncounterCreated, EncounterList, Event,
  EventPage, FrayOptions, LegalActions, ListEncountersQuery, MintToken, NarrationLine, NarrationPage,
  SendOptions, TokenMinted,
} from "./client.js";
export { ConflictError, FrayError, NetworkError } from "./errors.js";
export type { ErrorBody } from "./errors.js";
export { EventStream, envelopeOf, frames } from "./sse.js";
export type { FollowOptions, LiveEvent, Receipt } from "./sse.js";
export { retrying } from "./retry.js";
export type { Fetch, RetryPolicy } from "./retry.js";
export { auditEnvelopes, auditExport, readExport, verifyReceipt } from "./audit/verify.js";
export type { AuditOptions, AuditReport, Check, PublicKey, Verdict } from "./audit/verify.js";
export { auditRedacted } from "./audit/redacted.js";
export type { RedactedReport, Redaction } from "./audit/redacted.js";
export type { components, operations, paths } from "./generated/openapi.js";
export { RULESETS } from "./generated/rulesets.js";
export type { CommandType, EventType, RulesetName } from "./generated/rulesets.js";
export { ENCOUNTER_EVENTS, EventSubscription } from "./subscriptions.js";
export type { SubscribeOptions, SubscribedEvent } from "./subscriptions.js";
export type * as graphql from "./generated/graphql.js";

/**
 * Fray's audit verifier for browsers and Node (docs/audit.md): WebCrypto only.
 * `auditExport` checks an export as `fray audit --file` does, but for the decide re-run;
 * `auditRedacted` checks a player's or an observer's (redacted) export as far as it can be.
 */
export {
  CHECKS, auditEnvelopes, auditExport, commands, envelopeHash, keysOf, readExport, verifyReceipt,
} from "./verify.js";
export { auditRedacted } from "./redacted.js";
export type { RedactedReport, Redaction } from "./redacted.js";
export type {
  AuditOptions, AuditReport, Check, CheckName, Envelope, EnvelopesOptions, Export, PublicKey,
  Receipt, Status, Verdict,
} from "./verify.js";
export {
  JsonFloat, JsonSyntaxError, byCodePoint, canonicalBytes, canonicalJson, parseJson, pythonFloat,
} from "./canonical.js";
export type { JsonObject, JsonValue } from "./canonical.js";
export {
  Ed25519Unsupported, drawer, ed25519Supported, fromBase64url, fromHex, hex, sha256Hex,
  verifyEd25519,
} from "./crypto.js";

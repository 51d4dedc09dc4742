/**
 * The audit's cryptography on WebCrypto alone (`globalThis.crypto.subtle`), so the verifier
 * runs in a browser as in Node: SHA-256, HMAC-SHA256 for draws, Ed25519 for receipts.
 */

const subtle = (): SubtleCrypto => {
  const found = globalThis.crypto?.subtle;
  if (found === undefined) throw new Error("WebCrypto (crypto.subtle) is not available here");
  return found;
};

const utf8 = new TextEncoder();

export function hex(bytes: Uint8Array | ArrayBuffer): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (const b of view) out += b.toString(16).padStart(2, "0");
  return out;
}

/** The bytes of lowercase or uppercase hex; null when it is not hex of whole bytes. */
export function fromHex(text: string): Uint8Array | null {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? utf8.encode(data) : data;
  return hex(await subtle().digest("SHA-256", bytes as BufferSource));
}

const SPAN = 1n << 64n;

/** docs/audit.md, draw(v, n, k): a uniform integer in [0, k) by rejection sampling on
 * HMAC-SHA256(seed, "v:n:a"). The seed's key is imported once per seed (`drawer`). */
export async function drawer(seed: Uint8Array): Promise<(v: number, n: number, k: number) => Promise<number>> {
  const key = await subtle().importKey(
    "raw", seed as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
  );
  return async (v, n, k) => {
    if (!Number.isSafeInteger(k) || k < 1) throw new RangeError(`cannot draw from k=${k}`);
    const range = BigInt(k);
    const limit = SPAN - (SPAN % range);
    for (let a = 0; ; a++) {
      const mac = new Uint8Array(await subtle().sign("HMAC", key, utf8.encode(`${v}:${n}:${a}`)));
      const x = new DataView(mac.buffer).getBigUint64(0, false);
      if (x < limit) return Number(x % range);
    }
  };
}

export function fromBase64url(text: string): Uint8Array | null {
  if (text.length === 0 || !/^[A-Za-z0-9_-]+={0,2}$/.test(text)) return null;
  const plain = text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
  if (plain.length % 4 === 1) return null;
  try {
    const binary = atob(plain + "=".repeat((4 - (plain.length % 4)) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Whether this runtime's WebCrypto verifies Ed25519 (Node 20 and recent browsers do). */
export async function ed25519Supported(): Promise<boolean> {
  try {
    await subtle().importKey("raw", new Uint8Array(32), { name: "Ed25519" }, false, ["verify"]);
    return true;
  } catch (error) {
    return !(error instanceof Error && error.name === "NotSupportedError");
  }
}

export class Ed25519Unsupported extends Error {}

/** Verify an Ed25519 signature; throws `Ed25519Unsupported` where WebCrypto lacks it, so
 * that a caller can say "unsupported" and never "passed". */
export async function verifyEd25519(
  publicKey: Uint8Array, signature: Uint8Array, message: Uint8Array,
): Promise<boolean> {
  let key: CryptoKey;
  try {
    key = await subtle().importKey(
      "raw", publicKey as BufferSource, { name: "Ed25519" }, false, ["verify"],
    );
  } catch (error) {
    if (error instanceof Error && error.name === "NotSupportedError") {
      throw new Ed25519Unsupported("this runtime's WebCrypto does not verify Ed25519");
    }
    return false; // not a valid public key
  }
  try {
    return await subtle().verify(
      { name: "Ed25519" }, key, signature as BufferSource, message as BufferSource,
    );
  } catch {
    return false;
  }
}

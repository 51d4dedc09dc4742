/**
 * Canonical JSON, as docs/audit.md ("Canonical JSON") defines it, and a JSON reader that
 * keeps what `JSON.parse` loses: whether a number was written as a float (`20.0` is not
 * `20`: the two hash differently) and integers past 2^53 (read as `bigint`, exact).
 *
 * An audit re-writes every line it reads and compares the bytes (the `lines` check), so the
 * reader and the writer here must agree with Python's `json.dumps(sort_keys=True,
 * separators=(",", ":"), ensure_ascii=False)` byte for byte.
 */

/** A number written with a `.` or an exponent: Python reads it as a float and keeps it one. */
export class JsonFloat {
  constructor(readonly value: number) {}
}

export type JsonValue =
  | null
  | boolean
  | string
  | number
  | bigint
  | JsonFloat
  | JsonValue[]
  | { [key: string]: JsonValue };

export type JsonObject = { [key: string]: JsonValue };

export class JsonSyntaxError extends Error {}

/** Parse JSON text, keeping floats as `JsonFloat` and unsafe integers as `bigint`.
 * Duplicate keys and lone surrogates are refused: neither can be in a canonical line. */
export function parseJson(text: string): JsonValue {
  const parser = new Parser(text);
  parser.space();
  const value = parser.value(0);
  parser.space();
  if (parser.at < text.length) parser.fail("trailing characters");
  return value;
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const MAX_DEPTH = 512;

class Parser {
  at = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new JsonSyntaxError(`${what} at character ${this.at}`);
  }

  space(): void {
    while (this.at < this.text.length && " \t\n\r".includes(this.text[this.at]!)) this.at++;
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail("nested too deeply");
    const c = this.text[this.at];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    for (const [word, value] of [["true", true], ["false", false], ["null", null]] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    return this.fail("unexpected character");
  }

  object(depth: number): JsonObject {
    const out: JsonObject = Object.create(null) as JsonObject;
    this.at++;
    this.space();
    if (this.text[this.at] === "}") {
      this.at++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') this.fail("expected a key");
      const key = this.string();
      if (Object.prototype.hasOwnProperty.call(out, key)) this.fail(`duplicate key ${key}`);
      this.space();
      if (this.text[this.at] !== ":") this.fail("expected ':'");
      this.at++;
      this.space();
      out[key] = this.value(depth + 1);
      this.space();
      const c = this.text[this.at++];
      if (c === "}") return out;
      if (c !== ",") this.fail("expected ',' or '}'");
    }
  }

  array(depth: number): JsonValue[] {
    const out: JsonValue[] = [];
    this.at++;
    this.space();
    if (this.text[this.at] === "]") {
      this.at++;
      return out;
    }
    for (;;) {
      this.space();
      out.push(this.value(depth + 1));
      this.space();
      const c = this.text[this.at++];
      if (c === "]") return out;
      if (c !== ",") this.fail("expected ',' or ']'");
    }
  }

  string(): string {
    const start = this.at;
    this.at++;
    for (;;) {
      const c = this.text.charCodeAt(this.at);
      if (Number.isNaN(c)) this.fail("unterminated string");
      if (c === 0x22) break;
      if (c < 0x20) this.fail("control character in a string");
      this.at += c === 0x5c ? 2 : 1;
    }
    this.at++;
    // JSON.parse decodes one well-delimited string exactly; it is the escapes' reference.
    let decoded: string;
    try {
      decoded = JSON.parse(this.text.slice(start, this.at)) as string;
    } catch {
      this.at = start;
      return this.fail("bad escape in a string");
    }
    if (!isWellFormed(decoded)) {
      this.at = start;
      this.fail("a lone surrogate in a string");
    }
    return decoded;
  }

  number(): number | bigint | JsonFloat {
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (match === null) return this.fail("bad number");
    this.at += match[0].length;
    if (match[1] !== undefined || match[2] !== undefined) {
      const value = Number(match[0]);
      if (!Number.isFinite(value)) this.fail("a float out of range");
      return new JsonFloat(value);
    }
    const value = Number(match[0]);
    return Number.isSafeInteger(value) ? value : BigInt(match[0]);
  }
}

function isWellFormed(s: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** The canonical JSON text of `value` (encode it as UTF-8 for the bytes). */
export function canonicalJson(value: JsonValue): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join("");
}

export function canonicalBytes(value: JsonValue): Uint8Array {
  return new TextEncoder().encode(canonicalJson(value));
}

function write(value: JsonValue, out: string[]): void {
  if (value === null) out.push("null");
  else if (value === true) out.push("true");
  else if (value === false) out.push("false");
  else if (typeof value === "string") out.push(quote(value));
  else if (typeof value === "bigint") out.push(value.toString());
  else if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new TypeError(`${value} is not an integer: use JsonFloat`);
    out.push(Object.is(value, -0) ? "0" : String(BigInt(value)));
  } else if (value instanceof JsonFloat) out.push(pythonFloat(value.value));
  else if (Array.isArray(value)) {
    out.push("[");
    value.forEach((item, i) => {
      if (i > 0) out.push(",");
      write(item, out);
    });
    out.push("]");
  } else {
    out.push("{");
    Object.keys(value)
      .sort(byCodePoint)
      .forEach((key, i) => {
        if (i > 0) out.push(",");
        out.push(quote(key), ":");
        write(value[key]!, out);
      });
    out.push("}");
  }
}

const ESCAPES: Record<string, string> = {
  '"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r",
};

function quote(s: string): string {
  if (!isWellFormed(s)) throw new TypeError("a lone surrogate cannot be written as UTF-8");
  const escaped = s.replace(/["\\\u0000-\u001f]/g, (c) => {
    return ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
  return `"${escaped}"`;
}

/** Python's string order (code points), not JavaScript's (UTF-16 units): the two differ
 * only where a character above U+FFFF meets one from U+E000 to U+FFFF. Shifting the units so
 * that surrogates sort above U+E000..U+FFFF makes unit order code point order. */
export function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return shift(x) - shift(y);
  }
  return a.length - b.length;
}

function shift(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** `repr(float)` in Python: the shortest digits that read back as the same double,
 * positional when the decimal exponent is from -4 to 15, else scientific. */
export function pythonFloat(x: number): string {
  if (!Number.isFinite(x)) throw new TypeError("NaN and the infinities are not JSON");
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  // toExponential() without digits gives the shortest round-tripping digits, as repr does.
  const [mantissa, exponent] = Math.abs(x).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const e = Number(exponent);
  if (e >= -4 && e < 16) {
    let text: string;
    if (e < 0) text = `0.${"0".repeat(-e - 1)}${digits}`;
    else if (digits.length > e + 1) text = `${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
    else text = `${digits}${"0".repeat(e + 1 - digits.length)}.0`;
    return sign + text;
  }
  const lead = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const magnitude = String(Math.abs(e)).padStart(2, "0");
  return `${sign}${lead}e${e < 0 ? "-" : "+"}${magnitude}`;
}

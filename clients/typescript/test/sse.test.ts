/** The SSE reader on its own: the event-stream format's corners. */
import { test } from "node:test";
import assert from "node:assert/strict";

import { frames } from "../src/index.js";

function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all(stream: ReadableStream<Uint8Array>) {
  const out = [];
  for await (const frame of frames(stream)) out.push(frame);
  return out;
}

test("frames split across chunks, CRLF and CR line ends, comments, multi-line data", async () => {
  const got = await all(body(
    "retry: 2000\n\n: keep-alive\n\nid: 7\nev", "ent: dice-rolled\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n",
    "id: 8\revent: note\rdata:x\r\r",
  ));
  assert.deepEqual(got, [
    { data: "", retry: 2000 },
    { id: "7", event: "dice-rolled", data: "{\"a\":\n1}" },
    { id: "8", event: "note", data: "x" },
  ]);
});

test("a frame cut off by the end of the body is not delivered", async () => {
  const got = await all(body("id: 1\nevent: a\ndata: {}\n\nid: 2\nevent: b\ndata: {"));
  assert.deepEqual(got.map((f) => f.id), ["1"]);
});

test("the goodbye frame: a retry hint and an error without an id", async () => {
  const goodbye = 'retry: 1733\nevent: error\ndata: {"error":{"code":"server/shutting-down","message":"bye"}}\n\n';
  const [frame] = await all(body(goodbye));
  assert.equal(frame!.retry, 1733);
  assert.equal(frame!.event, "error");
  assert.equal(frame!.id, undefined);
});

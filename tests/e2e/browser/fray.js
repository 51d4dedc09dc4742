// A browser client of Fray as an integrator would write one, with nothing but the
// platform: fetch for REST and GraphQL, an EventSource opened with a stream ticket for the
// live events, and a GraphQL subscription over graphql-transport-ws written by hand. The
// page's URL names the server: index.html?fray=http://127.0.0.1:8000.

const base = new URL(location.href).searchParams.get("fray");
const seen = { sse: [], ws: [], wsErrors: [], tickets: [] };
let source = null;

function show(text) {
  const item = document.createElement("li");
  item.textContent = text;
  document.getElementById("log").append(item);
}

// One REST or GraphQL call: what a client reads of the answer, or the error fetch threw
// (a request the browser's CORS check refused throws a TypeError, and reads nothing).
async function call(method, path, credential, body) {
  const headers = { Authorization: `Bearer ${credential}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  try {
    const response = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: response.status,
      location: response.headers.get("Location"),
      body: await response.json(),
    };
  } catch (error) {
    return { failed: `${error.name}: ${error.message}` };
  }
}

function createEncounter(key, encounterId) {
  return call("POST", "/v1/encounters", key, { ruleset: "freeform", encounter_id: encounterId });
}

function command(encounterId, token, body) {
  return call("POST", `/v1/encounters/${encounterId}/commands`, token, { command: body });
}

function graphql(token, query, variables) {
  return call("POST", "/graphql", token, { query, variables });
}

async function ticket(encounterId, token) {
  const minted = await call("POST", `/v1/encounters/${encounterId}/stream-tickets`, token);
  return minted.body.ticket;
}

function eventsUrl(encounterId, streamTicket, after) {
  const query = new URLSearchParams({ follow: "true", after: String(after), ticket: streamTicket });
  return `${base}/v1/encounters/${encounterId}/events?${query}`;
}

// Follow the events after version `after` with a fresh ticket. A ticket opens one
// connection, so the EventSource must not reconnect with it by itself: on any error it is
// closed, and following again means a new ticket and `after` = the last id received.
// Fray names each SSE event by its type, which `onmessage` never sees: listen per type.
async function follow(encounterId, token, after, types) {
  if (source !== null) source.close();
  const streamTicket = await ticket(encounterId, token);
  seen.tickets.push(streamTicket);
  const opened = new EventSource(eventsUrl(encounterId, streamTicket, after));
  source = opened;
  for (const type of types) {
    opened.addEventListener(type, (message) => {
      seen.sse.push({ id: Number(message.lastEventId), type });
      show(`SSE ${message.lastEventId} ${type}`);
    });
  }
  return new Promise((resolve) => {
    opened.onopen = () => resolve("open");
    opened.onerror = () => {
      opened.close();
      resolve("error");
    };
  });
}

// What a spent ticket gets: an EventSource that fails and stays closed, and (read with
// fetch, as the EventSource cannot) the 401 and its code.
async function spent(encounterId, streamTicket) {
  const url = eventsUrl(encounterId, streamTicket, 0);
  const state = await new Promise((resolve) => {
    const again = new EventSource(url);
    again.onopen = () => resolve("open");
    again.onerror = () => resolve(again.readyState === EventSource.CLOSED ? "closed" : "retrying");
  });
  const response = await fetch(url);
  return { state, status: response.status, body: await response.json() };
}

// encounterEvents over graphql-transport-ws: the token in connection_init's payload, as a
// browser's websocket cannot carry an Authorization header.
function subscribe(token, encounterId, after) {
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
  const query = `subscription Events($id: String!, $after: Int!) {
    encounterEvents(encounterId: $id, after: $after) { version type }
  }`;
  return new Promise((resolve) => {
    socket.onopen = () => {
      socket.send(
        JSON.stringify({ type: "connection_init", payload: { Authorization: `Bearer ${token}` } })
      );
    };
    socket.onmessage = (message) => {
      const frame = JSON.parse(message.data);
      if (frame.type === "connection_ack") {
        const payload = { query, variables: { id: encounterId, after } };
        socket.send(JSON.stringify({ id: "events", type: "subscribe", payload }));
        resolve("subscribed");
      } else if (frame.type === "next" && frame.payload.data) {
        const event = frame.payload.data.encounterEvents;
        seen.ws.push({ id: event.version, type: event.type });
        show(`WS ${event.version} ${event.type}`);
      } else if (frame.type === "next" || frame.type === "error") {
        seen.wsErrors.push(frame.payload);
      } else if (frame.type === "ping") {
        socket.send(JSON.stringify({ type: "pong" }));
      }
    };
    socket.onclose = (closed) => resolve(`closed ${closed.code}`);
  });
}

window.fray = { base, seen, createEncounter, command, graphql, ticket, follow, spent, subscribe };

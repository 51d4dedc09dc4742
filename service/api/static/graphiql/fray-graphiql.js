// Starts GraphiQL on Fray's page (page.html). A file, not an inline script, so that the
// page's Content-Security-Policy can allow scripts from 'self' alone.
(function () {
  "use strict";

  // This page's own URL is the GraphQL endpoint, over HTTP and (ws:, wss:) websockets.
  var url = window.location.origin + window.location.pathname;
  var subscriptionUrl = url.replace(/^http/, "ws");

  // The Headers pane starts open with this text. GraphiQL sends the headers with every
  // HTTP request and, as no wsConnectionParams are given, as the payload of a
  // subscription's `connection_init`, where Fray reads `Authorization`.
  var HEADERS = '{\n  "Authorization": "Bearer <your token>"\n}';
  var QUERY = [
    "# Fray GraphQL. First put your API key or token in",
    "# the Headers pane below, in place of <your token>.",
    "# Run with Ctrl-Enter or the ▶ button. The schema",
    "# is in the Docs pane (the book icon on the left).",
    "",
    "{",
    "  rulesets {",
    "    name",
    "  }",
    "}",
    "",
  ].join("\n");

  // GraphiQL's own localStorage (as its default: keys under "graphiql:"), except that the
  // history and favourites are kept without their headers: GraphiQL writes each query's
  // headers there whatever shouldPersistHeaders says, and a token must not be kept.
  var PREFIX = "graphiql:";
  var HISTORY = /^graphiql:(queries|favorites)$/;
  function withoutHeaders(value) {
    try {
      var stored = JSON.parse(value);
      Object.keys(stored).forEach(function (list) {
        if (Array.isArray(stored[list])) {
          stored[list].forEach(function (item) {
            if (item && typeof item === "object") delete item.headers;
          });
        }
      });
      return JSON.stringify(stored);
    } catch (error) {
      return "";
    }
  }
  function keys() {
    return Object.keys(localStorage).filter(function (key) {
      return key.indexOf(PREFIX) === 0;
    });
  }
  var storage = {
    getItem: function (key) {
      return localStorage.getItem(key);
    },
    setItem: function (key, value) {
      localStorage.setItem(key, HISTORY.test(key) ? withoutHeaders(value) : value);
    },
    removeItem: function (key) {
      localStorage.removeItem(key);
    },
    clear: function () {
      keys().forEach(function (key) {
        localStorage.removeItem(key);
      });
    },
    get length() {
      return keys().length;
    },
  };

  var fetcher = GraphiQL.createFetcher({ url: url, subscriptionUrl: subscriptionUrl });
  var root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: QUERY,
      defaultHeaders: HEADERS,
      defaultEditorToolsVisibility: "headers",
      // Tokens stay out of localStorage: not in the tabs, not in the history (storage).
      shouldPersistHeaders: false,
      storage: storage,
    })
  );
})();

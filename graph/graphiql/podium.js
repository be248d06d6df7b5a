// Podium's start of GraphiQL (graph/graphiql.go). A file of its own, not an inline script, so
// that the page's Content-Security-Policy allows scripts from this site only.
(function () {
  "use strict";
  // Typed headers may hold an API key: GraphiQL keeps none of them (shouldPersistHeaders is
  // false), and this storage drops what an older page stored and never writes headers again,
  // should a version of GraphiQL try.
  function stripHeaders(key, value) {
    if (/headers$/i.test(key)) return null;
    if (/tabState$/.test(key)) {
      try {
        var state = JSON.parse(value);
        (state.tabs || []).forEach(function (tab) { delete tab.headers; });
        return JSON.stringify(state);
      } catch (e) {
        return null;
      }
    }
    return value;
  }
  var prefix = "podium:";
  var storage = {
    getItem: function (key) { return localStorage.getItem(prefix + key); },
    setItem: function (key, value) {
      var kept = stripHeaders(key, value);
      if (kept === null) localStorage.removeItem(prefix + key);
      else localStorage.setItem(prefix + key, kept);
    },
    removeItem: function (key) { localStorage.removeItem(prefix + key); },
    clear: function () {
      Object.keys(localStorage).forEach(function (k) { if (k.indexOf(prefix) === 0) localStorage.removeItem(k); });
    },
    get length() { return Object.keys(localStorage).filter(function (k) { return k.indexOf(prefix) === 0; }).length; },
    key: function (i) {
      var keys = Object.keys(localStorage).filter(function (k) { return k.indexOf(prefix) === 0; });
      return i >= 0 && i < keys.length ? keys[i].slice(prefix.length) : null;
    }
  };
  Object.keys(localStorage).forEach(function (k) {
    var kept = stripHeaders(k, localStorage.getItem(k));
    if (kept === null) localStorage.removeItem(k);
    else localStorage.setItem(k, kept);
  });

  var endpoint = location.origin + "/graphql";
  // Subscriptions run over a WebSocket to the same endpoint (graphql-transport-ws, bundled with
  // GraphiQL); its handshake carries the session cookie. A key typed in Headers does not reach it.
  var subscriptions = endpoint.replace(/^http/, "ws");
  ReactDOM.render(
    React.createElement(GraphiQL, {
      fetcher: GraphiQL.createFetcher({ url: endpoint, subscriptionUrl: subscriptions }),
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: false,
      storage: storage,
      inputValueDeprecation: true
    }),
    document.getElementById("graphiql")
  );

  // Who the queries run as: the session's person, when the browser has one.
  var hint = document.getElementById("podium-hint");
  fetch(endpoint, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query: "{ viewer { email } }" })
  }).then(function (r) { return r.json(); }).then(function (body) {
    var email = body && body.data && body.data.viewer && body.data.viewer.email;
    if (!email) return;
    hint.textContent = "";
    hint.append("Signed in as ");
    var who = document.createElement("b");
    who.textContent = email;
    hint.append(who, ": queries run as you, with no key. An API key in Headers is for integrators only: it takes the place of your session. ");
    var out = document.createElement("a");
    out.href = "/me";
    out.textContent = "Your home";
    hint.append(out);
  }).catch(function () {});
})();

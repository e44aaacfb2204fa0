// The MCP Apps bridge of a card view: the host renders this page in an
// iframe and talks JSON-RPC over postMessage. The view asks `ui/initialize`,
// says `ui/notifications/initialized`, then draws the card of each
// `ui/notifications/tool-result` (the call's result; dsh-kit puts the card in
// its `_meta` under DSH_CARD_META_KEY, which the page defines). A result without a card shows its content.
(function () {
  "use strict";
  const root = document.getElementById("dsh-app");
  const status = document.getElementById("dsh-app-status");
  const pending = new Map();
  let nextId = 1;

  function post(message) { window.parent.postMessage(message, "*"); }
  function request(method, params) {
    const id = nextId++;
    post({ jsonrpc: "2.0", id, method, params });
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  }
  function notify(method, params) { post({ jsonrpc: "2.0", method, params: params || {} }); }
  function say(text) { status.textContent = text; }

  function show(result) {
    root.replaceChildren();
    const card = result && result._meta && result._meta[DSH_CARD_META_KEY];
    if (result && result.isError) {
      say("The call failed.");
      root.append(DshCards.renderContent(result.content));
    } else if (card && typeof card === "object") {
      say("");
      root.append(DshCards.render(card));
    } else {
      say("");
      root.append(DshCards.renderContent(result && result.content));
    }
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined && message.id !== undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(message.error); else waiting.resolve(message.result);
      return;
    }
    switch (message.method) {
      case "ui/notifications/tool-input": say("Running\u2026"); root.setAttribute("aria-busy", "true"); break;
      case "ui/notifications/tool-result": root.removeAttribute("aria-busy"); show(message.params); break;
      case "ui/notifications/tool-cancelled": root.removeAttribute("aria-busy"); say("The call was cancelled."); break;
      default:
        // Requests the view has nothing to do for (teardown, ping) get an empty answer.
        if (message.id !== undefined) post({ jsonrpc: "2.0", id: message.id, result: {} });
    }
  });

  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: "dsh-kit card", version: "1" },
    appCapabilities: {},
  }).then(() => {
    notify("ui/notifications/initialized");
    if (typeof ResizeObserver === "function") {
      new ResizeObserver(() => {
        const box = document.documentElement.getBoundingClientRect();
        notify("ui/notifications/size-changed", { width: Math.ceil(box.width), height: Math.ceil(box.height) });
      }).observe(document.documentElement);
    }
  }, (error) => say("The host refused to initialize: " + (error && error.message ? error.message : "unknown error")));
})();

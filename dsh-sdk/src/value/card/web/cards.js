// Renders dsh-kit cards (the `card`-tagged JSON of `dsh_kit::Card`) as HTML.
//
// Self-contained: no dependencies, no build step. Every piece of card text
// goes into the page through `textContent`, never as markup, so a card cannot
// inject anything. Exposes `DshCards.render(card, options)`,
// `DshCards.renderContent(blocks)` and `DshCards.ansi(text)`.
(function (global) {
  "use strict";

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const [name, value] of Object.entries(attrs)) {
        if (value === undefined || value === null || value === false) continue;
        if (name === "text") node.textContent = String(value);
        else if (name === "class") node.className = value;
        else node.setAttribute(name, value === true ? "" : String(value));
      }
    }
    for (const child of children || []) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function str(value) {
    return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
  }

  function lines(text) {
    const parts = str(text).split("\n");
    if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
    return parts;
  }

  // ---- JSON, highlighted and collapsible -------------------------------

  function jsonScalar(value) {
    if (value === null) return el("span", { class: "j-null", text: "null" });
    switch (typeof value) {
      case "string": return el("span", { class: "j-str", text: JSON.stringify(value) });
      case "number": return el("span", { class: "j-num", text: String(value) });
      case "boolean": return el("span", { class: "j-bool", text: String(value) });
      default: return el("span", { text: String(value) });
    }
  }

  function jsonTree(value, depth) {
    const isArray = Array.isArray(value);
    if (value === null || typeof value !== "object") return jsonScalar(value);
    const entries = isArray ? value.map((v, i) => [i, v]) : Object.entries(value);
    const [open, close] = isArray ? ["[", "]"] : ["{", "}"];
    if (entries.length === 0) return el("span", { class: "j-punct", text: open + close });
    const details = el("details", { class: "j-node", open: depth < 3 });
    const count = entries.length + (isArray ? (entries.length === 1 ? " item" : " items") : (entries.length === 1 ? " key" : " keys"));
    details.append(el("summary", {}, [el("span", { class: "j-punct", text: open }), el("span", { class: "j-count", text: " " + count + " " })]));
    const body = el("div", { class: "j-body" });
    entries.forEach(([key, child], index) => {
      const row = el("div", { class: "j-row" });
      if (!isArray) row.append(el("span", { class: "j-key", text: JSON.stringify(key) }), el("span", { class: "j-punct", text: ": " }));
      row.append(jsonTree(child, depth + 1));
      if (index < entries.length - 1) row.append(el("span", { class: "j-punct", text: "," }));
      body.append(row);
    });
    details.append(body, el("span", { class: "j-punct", text: close }));
    return details;
  }

  function json(value) {
    return el("div", { class: "dsh-json" }, [jsonTree(value, 0)]);
  }

  // ---- ANSI colours -----------------------------------------------------

  const BASIC = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];

  function color256(n) {
    if (n < 16) return null;
    if (n >= 232) { const g = 8 + (n - 232) * 10; return `rgb(${g},${g},${g})`; }
    const i = n - 16, steps = [0, 95, 135, 175, 215, 255];
    return `rgb(${steps[Math.floor(i / 36)]},${steps[Math.floor(i / 6) % 6]},${steps[i % 6]})`;
  }

  function applySgr(state, codes) {
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i];
      if (code === 0) { state.fg = state.bg = null; state.bold = state.dim = state.italic = state.underline = false; }
      else if (code === 1) state.bold = true;
      else if (code === 2) state.dim = true;
      else if (code === 3) state.italic = true;
      else if (code === 4) state.underline = true;
      else if (code === 22) state.bold = state.dim = false;
      else if (code === 23) state.italic = false;
      else if (code === 24) state.underline = false;
      else if (code >= 30 && code <= 37) state.fg = { cls: BASIC[code - 30] };
      else if (code >= 90 && code <= 97) state.fg = { cls: "bright-" + BASIC[code - 90] };
      else if (code >= 40 && code <= 47) state.bg = { cls: BASIC[code - 40] };
      else if (code >= 100 && code <= 107) state.bg = { cls: "bright-" + BASIC[code - 100] };
      else if (code === 39) state.fg = null;
      else if (code === 49) state.bg = null;
      else if ((code === 38 || code === 48) && codes[i + 1] === 5 && codes.length > i + 2) {
        const n = codes[i + 2];
        const c = n < 8 ? { cls: BASIC[n] } : n < 16 ? { cls: "bright-" + BASIC[n - 8] } : { rgb: color256(n) };
        if (code === 38) state.fg = c; else state.bg = c;
        i += 2;
      } else if ((code === 38 || code === 48) && codes[i + 1] === 2 && codes.length > i + 4) {
        const rgb = codes.slice(i + 2, i + 5).map((v) => Math.max(0, Math.min(255, v)));
        const c = { rgb: `rgb(${rgb.join(",")})` };
        if (code === 38) state.fg = c; else state.bg = c;
        i += 4;
      }
    }
  }

  // Turns text with ANSI escape sequences into a fragment of styled spans;
  // sequences other than colours and styles (cursor moves, titles) are dropped.
  function ansi(text) {
    const fragment = document.createDocumentFragment();
    const state = { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false };
    // CSI sequences, OSC sequences (ended by BEL or ST), and lone escapes.
    const pattern = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]?/g;
    let last = 0;
    const push = (chunk) => {
      if (!chunk) return;
      const styled = state.fg || state.bg || state.bold || state.dim || state.italic || state.underline;
      if (!styled) { fragment.append(document.createTextNode(chunk)); return; }
      const span = el("span", { text: chunk });
      const classes = [];
      if (state.fg && state.fg.cls) classes.push("ansi-fg-" + state.fg.cls);
      if (state.bg && state.bg.cls) classes.push("ansi-bg-" + state.bg.cls);
      if (state.bold) classes.push("ansi-bold");
      if (state.dim) classes.push("ansi-dim");
      if (state.italic) classes.push("ansi-italic");
      if (state.underline) classes.push("ansi-underline");
      span.className = classes.join(" ");
      if (state.fg && state.fg.rgb) span.style.color = state.fg.rgb;
      if (state.bg && state.bg.rgb) span.style.backgroundColor = state.bg.rgb;
      fragment.append(span);
    };
    for (let match; (match = pattern.exec(text)) !== null;) {
      push(text.slice(last, match.index));
      last = pattern.lastIndex;
      if (match[2] === "m") {
        const codes = match[1] === "" ? [0] : match[1].split(";").map((n) => parseInt(n, 10) || 0);
        applySgr(state, codes);
      }
    }
    push(text.slice(last));
    return fragment;
  }

  // ---- the cards ----------------------------------------------------------

  function header(kind, title, extra) {
    return el("header", { class: "dsh-card-head" }, [
      el("span", { class: "dsh-kind", text: kind }),
      el("h3", { class: "dsh-title", text: title }),
      ...(extra || []),
    ]);
  }

  function badge(text, cls, label) {
    return el("span", { class: "dsh-badge " + (cls || ""), text, "aria-label": label });
  }

  function generic(card) {
    const parts = [header("generic", str(card.title))];
    const section = (name, value, open) => {
      const d = el("details", { class: "dsh-section", open });
      d.append(el("summary", { text: name }), json(value));
      return d;
    };
    parts.push(section("Input", card.input === undefined ? null : card.input, true));
    if (card.output !== undefined) parts.push(section("Output", card.output, true));
    return parts;
  }

  function terminal(card, running) {
    let status;
    if (card.exit_code === undefined || card.exit_code === null) {
      status = running ? badge("running", "dsh-running", "still running") : badge("no exit code", "dsh-warn", "ended without an exit code");
    } else {
      const ok = card.exit_code === 0;
      status = badge("exit " + card.exit_code, ok ? "dsh-ok" : "dsh-bad", "exit code " + card.exit_code);
    }
    const command = el("pre", { class: "dsh-command" }, [el("span", { class: "dsh-prompt", "aria-hidden": "true", text: "$ " }), str(card.command)]);
    const parts = [header("terminal", "Terminal", [status]), command];
    if (str(card.stdout)) parts.push(el("pre", { class: "dsh-output dsh-stdout", "aria-label": "standard output" }, [ansi(str(card.stdout))]));
    if (str(card.stderr)) parts.push(el("pre", { class: "dsh-output dsh-stderr", "aria-label": "standard error" }, [ansi(str(card.stderr))]));
    if (!str(card.stdout) && !str(card.stderr) && !running) parts.push(el("p", { class: "dsh-empty", text: "no output" }));
    return parts;
  }

  function diffHunks(card) {
    if (Array.isArray(card.hunks) && card.hunks.length) return card.hunks;
    // Only the unified text: read its hunks from it.
    const hunks = [];
    let hunk = null;
    for (const line of lines(card.unified_diff)) {
      const head = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (head) {
        hunk = { old_start: +head[1], old_lines: head[2] === undefined ? 1 : +head[2], new_start: +head[3], new_lines: head[4] === undefined ? 1 : +head[4], lines: [] };
        hunks.push(hunk);
      } else if (hunk && /^[ +\-]/.test(line)) hunk.lines.push(line);
    }
    return hunks;
  }

  function diff(card) {
    const hunks = diffHunks(card);
    let added = 0, removed = 0;
    for (const h of hunks) for (const l of h.lines || []) { if (str(l)[0] === "+") added++; else if (str(l)[0] === "-") removed++; }
    const stats = el("span", { class: "dsh-stats" }, [
      el("span", { class: "dsh-added", text: "+" + added, "aria-label": added + " lines added" }), " ",
      el("span", { class: "dsh-removed", text: "\u2212" + removed, "aria-label": removed + " lines removed" }),
    ]);
    if (!hunks.length) return [header("diff", str(card.path), [stats]), el("p", { class: "dsh-empty", text: "no changes" })];
    const unified = el("div", { class: "dsh-scroll dsh-unified" }, [unifiedTable(card, hunks)]);
    const split = el("div", { class: "dsh-scroll dsh-split-view", hidden: true }, [splitTable(card, hunks)]);
    const toggle = el("button", { type: "button", class: "dsh-toggle", "aria-pressed": "false", text: "side by side" });
    toggle.addEventListener("click", () => {
      const on = toggle.getAttribute("aria-pressed") !== "true";
      toggle.setAttribute("aria-pressed", String(on));
      split.hidden = !on;
      unified.hidden = on;
    });
    return [header("diff", str(card.path), [stats, toggle]), unified, split];
  }

  function hunkRow(h, columns) {
    return el("tr", { class: "dsh-hunk" }, [el("td", { colspan: columns, text: `@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@` })]);
  }

  function unifiedTable(card, hunks) {
    const table = el("table", { class: "dsh-diff" });
    table.append(el("caption", { class: "dsh-sr", text: "Changes to " + str(card.path) + ", unified, old and new line numbers" }));
    const head = el("thead", { class: "dsh-sr" }, [el("tr", {}, [el("th", { scope: "col", text: "old line" }), el("th", { scope: "col", text: "new line" }), el("th", { scope: "col", text: "change" }), el("th", { scope: "col", text: "text" })])]);
    table.append(head);
    for (const h of hunks) {
      const body = el("tbody");
      body.append(hunkRow(h, 4));
      let oldNo = h.old_start, newNo = h.new_start;
      for (const raw of h.lines || []) {
        const line = str(raw), sign = line[0] || " ", text = line.slice(1);
        let cls, o = "", n = "", label;
        if (sign === "+") { cls = "dsh-add"; n = newNo++; label = "added"; }
        else if (sign === "-") { cls = "dsh-del"; o = oldNo++; label = "removed"; }
        else { cls = "dsh-ctx"; o = oldNo++; n = newNo++; label = "unchanged"; }
        body.append(el("tr", { class: cls }, [
          el("td", { class: "dsh-ln", text: o }), el("td", { class: "dsh-ln", text: n }),
          el("td", { class: "dsh-sign", "aria-label": label, text: sign === " " ? "" : sign === "-" ? "\u2212" : "+" }),
          el("td", { class: "dsh-code", text }),
        ]));
      }
      table.append(body);
    }
    return table;
  }

  // Old on the left, new on the right: a run of removed lines faces the run
  // of added lines that follows it.
  function splitTable(card, hunks) {
    const table = el("table", { class: "dsh-diff dsh-split" });
    table.append(el("caption", { class: "dsh-sr", text: "Changes to " + str(card.path) + ", side by side, old on the left, new on the right" }));
    const side = (cell, cls, sign) => cell
      ? [el("td", { class: "dsh-ln " + cls, text: cell[0] }), el("td", { class: "dsh-code " + cls, "aria-label": sign ? (sign === "-" ? "removed: " : "added: ") + cell[1] : null, text: cell[1] })]
      : [el("td", { class: "dsh-ln dsh-none" }), el("td", { class: "dsh-code dsh-none" })];
    for (const h of hunks) {
      const body = el("tbody");
      body.append(hunkRow(h, 4));
      let oldNo = h.old_start, newNo = h.new_start;
      const lines = (h.lines || []).map(str);
      for (let i = 0; i < lines.length;) {
        const sign = lines[i][0];
        if (sign !== "-" && sign !== "+") {
          const text = lines[i].slice(1);
          body.append(el("tr", { class: "dsh-ctx" }, [...side([oldNo++, text], "", null), ...side([newNo++, text], "", null)]));
          i++;
          continue;
        }
        const removed = [], added = [];
        while (i < lines.length && lines[i][0] === "-") removed.push(lines[i++].slice(1));
        while (i < lines.length && lines[i][0] === "+") added.push(lines[i++].slice(1));
        for (let k = 0; k < Math.max(removed.length, added.length); k++) {
          const left = k < removed.length ? [oldNo++, removed[k]] : null;
          const right = k < added.length ? [newNo++, added[k]] : null;
          body.append(el("tr", {}, [...side(left, "dsh-del-cell", "-"), ...side(right, "dsh-add-cell", "+")]));
        }
      }
      table.append(body);
    }
    return table;
  }

  function numbered(text, start, caption) {
    const table = el("table", { class: "dsh-lines" });
    table.append(el("caption", { class: "dsh-sr", text: caption }));
    const body = el("tbody");
    lines(text).forEach((line, i) => {
      body.append(el("tr", {}, [el("td", { class: "dsh-ln", text: start + i }), el("td", { class: "dsh-code", text: line })]));
    });
    table.append(body);
    return el("div", { class: "dsh-scroll" }, [table]);
  }

  function read(card) {
    const start = Number.isInteger(card.start_line) && card.start_line > 0 ? card.start_line : 1;
    const range = Number.isInteger(card.start_line) && Number.isInteger(card.end_line)
      ? (card.end_line >= card.start_line ? `lines ${card.start_line}\u2013${card.end_line}` : "no lines")
      : "whole file";
    const parts = [header("read", str(card.path), [badge(range, "", null)])];
    parts.push(str(card.content) ? numbered(card.content, start, str(card.path) + ", " + range + ", numbered") : el("p", { class: "dsh-empty", text: "empty" }));
    return parts;
  }

  // `src/main.rs:12` → ["src/main.rs", 12]; anything else → [location, null].
  function splitLocation(location) {
    const m = /^(.*):(\d+)(?::\d+)?$/.exec(str(location));
    return m ? [m[1], +m[2]] : [str(location), null];
  }

  function search(card, running) {
    const results = Array.isArray(card.results) ? card.results : [];
    const count = running ? badge("searching", "dsh-running", "still searching") : badge(results.length + (results.length === 1 ? " hit" : " hits"), "", null);
    const parts = [header("search", str(card.query), [count])];
    if (!results.length) { if (!running) parts.push(el("p", { class: "dsh-empty", text: "no hits" })); return parts; }
    const groups = new Map();
    for (const hit of results) {
      const [file] = splitLocation(hit.location);
      const key = str(hit.title) || file;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(hit);
    }
    for (const [file, hits] of groups) {
      const group = el("section", { class: "dsh-group" });
      group.append(el("h4", { class: "dsh-file" }, [file, " ", el("span", { class: "dsh-count", text: "(" + hits.length + ")" })]));
      const list = el("ul", { class: "dsh-hits" });
      for (const hit of hits) {
        const [where, line] = splitLocation(hit.location);
        const loc = line !== null ? String(line) : where;
        const isUrl = /^https?:\/\//i.test(where);
        const locNode = isUrl ? el("a", { class: "dsh-ln", href: where, rel: "noopener noreferrer", target: "_blank", text: loc }) : el("span", { class: "dsh-ln", title: str(hit.location), text: loc });
        list.append(el("li", {}, [locNode, el("code", { class: "dsh-code", text: str(hit.snippet) })]));
      }
      group.append(list);
      parts.push(group);
    }
    return parts;
  }

  function web(card, running) {
    const url = str(card.url);
    const safe = /^https?:\/\//i.test(url);
    const link = safe ? el("a", { class: "dsh-url", href: url, rel: "noopener noreferrer", target: "_blank", text: url }) : el("span", { class: "dsh-url", text: url });
    const parts = [header("web", str(card.title) || url, running ? [badge("fetching", "dsh-running", "still fetching")] : []), link];
    if (str(card.excerpt)) parts.push(el("blockquote", { class: "dsh-excerpt", cite: safe ? url : null, text: str(card.excerpt) }));
    else if (!running) parts.push(el("p", { class: "dsh-empty", text: "no text" }));
    return parts;
  }

  const KINDS = { generic, terminal, diff, read, search, web };

  // Renders one card. `options.running`: the card of a call still running
  // (from `present_call`); it is marked busy.
  function render(card, options) {
    const running = !!(options && options.running);
    const kind = card && typeof card === "object" && typeof card.card === "string" ? card.card : "";
    const draw = KINDS[kind];
    const article = el("article", { class: "dsh-card dsh-card-" + (draw ? kind : "unknown"), "data-card": draw ? kind : "unknown", "aria-busy": running ? "true" : null });
    let parts;
    if (draw) {
      try { parts = draw(card, running); }
      catch (error) { parts = [header(kind, "card could not be drawn"), el("p", { class: "dsh-empty", text: String(error) }), json(card)]; }
    } else {
      parts = [header(kind || "card", "unknown card kind"), json(card)];
    }
    article.append(...parts);
    const title = article.querySelector(".dsh-title");
    article.setAttribute("aria-label", (draw ? kind : "unknown") + " card" + (title && title.textContent ? ": " + title.textContent : "") + (running ? " (running)" : ""));
    if (running && !article.querySelector(".dsh-running")) {
      article.querySelector(".dsh-card-head").append(badge("running", "dsh-running", "still running"));
    }
    return article;
  }

  // Renders what the model sees: a result's content blocks.
  function renderContent(blocks) {
    const wrap = el("div", { class: "dsh-content" });
    for (const block of Array.isArray(blocks) ? blocks : []) {
      if (block && block.type === "text") wrap.append(el("pre", { class: "dsh-text", text: str(block.text) }));
      else if (block && block.type === "image" && /^image\/(png|jpeg|gif|webp)$/.test(str(block.mimeType)) && /^[A-Za-z0-9+/=\s]*$/.test(str(block.data))) {
        wrap.append(el("img", { src: "data:" + block.mimeType + ";base64," + str(block.data).replace(/\s/g, ""), alt: "image from the tool" }));
      } else if (block && block.type === "resource_link") {
        wrap.append(el("p", { class: "dsh-link" }, ["resource: ", el("code", { text: str(block.uri) }), " ", str(block.name)]));
      } else wrap.append(json(block));
    }
    return wrap;
  }

  global.DshCards = { render, renderContent, ansi, json };
})(typeof window !== "undefined" ? window : this);

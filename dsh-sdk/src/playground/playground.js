// The dsh playground page: catalog, schema-generated call forms, results
// with their cards, live events, approvals and session logs. Talks to the
// playground server's JSON API; draws cards with DshCards (cards.js).
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "text") node.textContent = String(value);
      else if (name === "class") node.className = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children || []) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  async function api(path, body) {
    const options = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
    const response = await fetch(path, options);
    let data;
    try { data = await response.json(); } catch (error) { data = { error: "the server answered " + response.status + " with no JSON" }; }
    if (!response.ok) throw new Error(data && data.error ? data.error : "the server answered " + response.status);
    return data;
  }

  const state = { tools: [], selected: null, form: null, log: null, logIndex: 0, logSource: null, pendingCall: null };

  // ---- catalog -----------------------------------------------------------

  async function loadCatalog() {
    let catalog;
    try { catalog = await api("/api/tools"); } catch (error) { $("catalog-diagnostics").replaceChildren(el("li", { class: "sev-error", text: error.message })); return; }
    state.tools = catalog.tools;
    if (catalog.session_log && !$("log-path").value) $("log-path").value = catalog.session_log;
    $("catalog-diagnostics").replaceChildren(...catalog.diagnostics.map(diagnostic));
    const list = $("tool-list");
    list.replaceChildren(...catalog.tools.map((tool) => {
      const tags = [];
      if (tool.category) tags.push(el("span", { class: "tag", text: tool.category }));
      for (const [flag, on] of Object.entries(tool.flags)) if (on) tags.push(el("span", { class: "tag " + flag.replace(/_/g, "-"), text: flag.replace(/_/g, " ") }));
      if (tool.presents) tags.push(el("span", { class: "tag", text: "card" }));
      if (tool.status && tool.status !== "available") tags.push(el("span", { class: "tag status-" + tool.status, text: tool.status, title: tool.status_description || "" }));
      const button = el("button", { type: "button", "aria-pressed": String(state.selected === tool.name), onclick: () => selectTool(tool.name) }, [
        el("span", { class: "tool-name", text: tool.name }),
        el("span", { class: "tool-desc", text: tool.description.split("\n")[0] }),
        el("span", {}, tags),
      ]);
      const item = el("li", { "data-tool": tool.name, "data-status": tool.status || "available" }, [button]);
      if (tool.status_description) item.append(el("small", { class: "tool-desc", text: tool.status_description }));
      if (tool.diagnostics.length) item.append(el("ul", { class: "diagnostics" }, tool.diagnostics.map(diagnostic)));
      return item;
    }));
    if (state.selected && !state.tools.some((tool) => tool.name === state.selected)) {
      state.selected = null;
      $("call-title").textContent = "Pick a tool";
      $("tool-description").textContent = "The tool you picked is gone.";
      $("call-form").hidden = true;
    }
  }

  function diagnostic(d) {
    return el("li", { class: "sev-" + d.severity, text: `${d.severity} ${d.code}: ${d.message}` });
  }

  function selectTool(name) {
    const tool = state.tools.find((t) => t.name === name);
    if (!tool) return;
    state.selected = name;
    for (const button of document.querySelectorAll("#tool-list button")) button.setAttribute("aria-pressed", String(button.closest("li").dataset.tool === name));
    $("call-title").textContent = tool.name;
    $("tool-description").textContent = tool.description;
    const root = tool.input_schema;
    state.form = objectFields(root, root, "", true);
    $("fields").replaceChildren(state.form.node);
    clearViolations();
    $("call-form").hidden = false;
    $("call-form").dataset.tool = name;
    preview();
  }

  // ---- forms from JSON Schema ---------------------------------------------

  let uid = 0;

  function resolve(schema, root) {
    for (let hops = 0; schema && typeof schema === "object" && typeof schema.$ref === "string" && hops < 32; hops++) {
      const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(schema.$ref);
      const target = m && root[m[1]] ? root[m[1]][decodeURIComponent(m[2]).replace(/~1/g, "/").replace(/~0/g, "~")] : null;
      if (!target) break;
      const { $ref, ...rest } = schema;
      schema = { ...target, ...rest };
    }
    if (schema && Array.isArray(schema.allOf) && schema.allOf.length === 1) {
      const { allOf, ...rest } = schema;
      schema = { ...resolve(allOf[0], root), ...rest };
    }
    return schema === true || schema === undefined ? {} : schema;
  }

  // Option<T>: `type: ["T", "null"]`, or `anyOf: [T, {type: null}]`.
  function unwrapNull(schema, root) {
    schema = resolve(schema, root);
    if (Array.isArray(schema.type)) {
      const types = schema.type.filter((t) => t !== "null");
      if (types.length === 1) return { ...schema, type: types[0] };
    }
    for (const key of ["anyOf", "oneOf"]) {
      if (Array.isArray(schema[key])) {
        const rest = schema[key].filter((s) => !(s && s.type === "null") && !(s && s.const === null));
        if (rest.length === 1 && rest.length < schema[key].length) {
          const { [key]: _, ...outer } = schema;
          return { ...resolve(rest[0], root), ...outer };
        }
      }
    }
    return schema;
  }

  function choices(schema) {
    if (Array.isArray(schema.enum)) return schema.enum.map((v) => ({ value: v, label: typeof v === "string" ? v : JSON.stringify(v) }));
    for (const key of ["oneOf", "anyOf"]) {
      const list = schema[key];
      if (Array.isArray(list) && list.length && list.every((s) => s && (s.const !== undefined || (Array.isArray(s.enum) && s.enum.length === 1)))) {
        return list.map((s) => {
          const value = s.const !== undefined ? s.const : s.enum[0];
          return { value, label: (typeof value === "string" ? value : JSON.stringify(value)) + (s.description ? " \u2014 " + s.description : "") };
        });
      }
    }
    return null;
  }

  function wrapField(pointer, name, schema, required, control, extra) {
    const id = "f" + ++uid;
    const violationId = id + "-violation";
    const descriptionId = id + "-description";
    control.id = id;
    const described = [schema.description ? descriptionId : null, violationId].filter(Boolean).join(" ");
    control.setAttribute("aria-describedby", described);
    if (required) control.setAttribute("aria-required", "true");
    const label = el("label", { for: id }, [name, required ? el("span", { class: "req", "aria-hidden": "true", text: " *" }) : null]);
    const node = el("div", { class: "field", "data-pointer": pointer }, [
      label,
      schema.description ? el("small", { id: descriptionId, text: schema.description }) : null,
      control,
      extra || null,
      el("p", { class: "violation", id: violationId, hidden: true }),
    ]);
    return node;
  }

  function bounds(schema) {
    const parts = [];
    if (schema.minimum !== undefined) parts.push("\u2265 " + schema.minimum);
    if (schema.exclusiveMinimum !== undefined) parts.push("> " + schema.exclusiveMinimum);
    if (schema.maximum !== undefined) parts.push("\u2264 " + schema.maximum);
    if (schema.exclusiveMaximum !== undefined) parts.push("< " + schema.exclusiveMaximum);
    return parts.join(", ");
  }

  // Each field: { node, read() → {value} | {missing: true} | {error} , check(value) → [messages] }
  function field(rawSchema, root, pointer, name, required, depth) {
    const schema = unwrapNull(rawSchema, root);
    const options = choices(schema);
    const type = Array.isArray(schema.type) ? null : schema.type;
    if (options) {
      const select = el("select", {}, [el("option", { value: "", text: required ? "choose\u2026" : "(none)" }), ...options.map((o, i) => el("option", { value: String(i), text: o.label }))]);
      if (schema.default !== undefined) { const i = options.findIndex((o) => JSON.stringify(o.value) === JSON.stringify(schema.default)); if (i >= 0) select.value = String(i); }
      return { node: wrapField(pointer, name, schema, required, select), read: () => select.value === "" ? { missing: true } : { value: options[+select.value].value } };
    }
    if (type === "boolean") {
      if (required) {
        const box = el("input", { type: "checkbox" });
        if (schema.default === true) box.checked = true;
        return { node: wrapField(pointer, name, schema, required, box), read: () => ({ value: box.checked }) };
      }
      const select = el("select", {}, [el("option", { value: "", text: "(none)" }), el("option", { value: "true", text: "true" }), el("option", { value: "false", text: "false" })]);
      return { node: wrapField(pointer, name, schema, required, select), read: () => select.value === "" ? { missing: true } : { value: select.value === "true" } };
    }
    if (type === "integer" || type === "number") {
      const input = el("input", { type: "number", step: type === "integer" ? "1" : "any", min: schema.minimum, max: schema.maximum, placeholder: bounds(schema) || type, inputmode: type === "integer" ? "numeric" : "decimal" });
      if (schema.default !== undefined && schema.default !== null) input.value = String(schema.default);
      const read = () => {
        const text = input.value.trim();
        if (text === "") return input.validity.badInput ? { error: "not a number" } : { missing: true };
        const value = Number(text);
        if (!Number.isFinite(value)) return { error: "not a number" };
        return { value };
      };
      const check = (value) => {
        const out = [];
        if (type === "integer" && !Number.isInteger(value)) out.push(value + " is not an integer");
        if (schema.minimum !== undefined && value < schema.minimum) out.push(`${value} is less than the minimum of ${schema.minimum}`);
        if (schema.maximum !== undefined && value > schema.maximum) out.push(`${value} is greater than the maximum of ${schema.maximum}`);
        if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) out.push(`${value} must be greater than ${schema.exclusiveMinimum}`);
        if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) out.push(`${value} must be less than ${schema.exclusiveMaximum}`);
        return out;
      };
      const hint = bounds(schema) ? el("small", { text: "bounds: " + bounds(schema) }) : null;
      return { node: wrapField(pointer, name, schema, required, input, hint), read, check };
    }
    if (type === "string") {
      const input = el("input", { type: schema.format === "date" ? "date" : "text", minlength: schema.minLength, maxlength: schema.maxLength, pattern: schema.pattern, placeholder: schema.format || "" });
      if (typeof schema.default === "string") input.value = schema.default;
      const check = (value) => {
        const out = [];
        const length = [...value].length;
        if (schema.minLength !== undefined && length < schema.minLength) out.push(`shorter than ${schema.minLength} characters`);
        if (schema.maxLength !== undefined && length > schema.maxLength) out.push(`longer than ${schema.maxLength} characters`);
        if (schema.pattern) { try { if (!new RegExp(schema.pattern, "u").test(value)) out.push(`does not match ${schema.pattern}`); } catch (e) { /* the server checks it */ } }
        return out;
      };
      return { node: wrapField(pointer, name, schema, required, input), read: () => (input.value === "" ? { missing: true } : { value: input.value }), check };
    }
    if (type === "object" && schema.properties) {
      const inner = objectFields(schema, root, pointer, required, name, depth + 1);
      return inner;
    }
    if (type === "array") return arrayField(schema, root, pointer, name, required, depth);
    // Anything else: JSON text.
    const area = el("textarea", { rows: 3, placeholder: "JSON" });
    if (schema.default !== undefined) area.value = JSON.stringify(schema.default);
    const read = () => {
      if (area.value.trim() === "") return { missing: true };
      try { return { value: JSON.parse(area.value) }; } catch (error) { return { error: "not valid JSON: " + error.message }; }
    };
    return { node: wrapField(pointer, name, schema, required, area, el("small", { text: "any JSON value" })), read };
  }

  function objectFields(schemaIn, root, pointer, required, name, depth) {
    const schema = resolve(schemaIn, root);
    const props = schema.properties || {};
    const requiredNames = new Set(schema.required || []);
    const children = Object.entries(props).map(([key, sub]) => {
      const childPointer = pointer + "/" + key.replace(/~/g, "~0").replace(/\//g, "~1");
      return [key, field(sub, root, childPointer, key, requiredNames.has(key), depth || 0)];
    });
    const body = children.map(([, f]) => f.node);
    const node = name === undefined
      ? el("div", { class: "object", "data-pointer": pointer }, body)
      : el("fieldset", { class: "field", "data-pointer": pointer }, [el("legend", {}, [name, required ? el("span", { class: "req", "aria-hidden": "true", text: " *" }) : null]), schema.description ? el("small", { text: schema.description }) : null, ...body, el("p", { class: "violation", hidden: true })]);
    const read = () => {
      const value = {};
      let any = false;
      for (const [key, f] of children) {
        const got = f.read();
        if (got.error) return got;
        if (!got.missing) { value[key] = got.value; any = true; }
      }
      return !any && name !== undefined && !required ? { missing: true } : { value };
    };
    return { node, read, children, requiredNames };
  }

  function arrayField(schema, root, pointer, name, required, depth) {
    const items = [];
    const list = el("div", { class: "array-items" });
    const add = el("button", { type: "button", text: "Add item", "aria-label": "Add an item to " + name });
    const renumber = () => items.forEach((item, i) => { item.pointer = pointer + "/" + i; item.field.node.dataset.pointer = item.pointer; });
    const addItem = () => {
      const index = items.length;
      const f = field(schema.items === undefined ? {} : schema.items, root, pointer + "/" + index, name + "[" + index + "]", true, depth + 1);
      const row = el("div", { class: "array-item" }, [f.node]);
      const item = { field: f, row, pointer: pointer + "/" + index };
      row.append(el("button", { type: "button", class: "reject", text: "Remove", onclick: () => { items.splice(items.indexOf(item), 1); row.remove(); renumber(); preview(); } }));
      items.push(item);
      list.append(row);
      preview();
    };
    add.addEventListener("click", addItem);
    const limits = [schema.minItems !== undefined ? "at least " + schema.minItems : null, schema.maxItems !== undefined ? "at most " + schema.maxItems : null].filter(Boolean).join(", ");
    const node = el("fieldset", { class: "field", "data-pointer": pointer }, [
      el("legend", {}, [name, required ? el("span", { class: "req", "aria-hidden": "true", text: " *" }) : null]),
      schema.description ? el("small", { text: schema.description }) : null,
      limits ? el("small", { text: "items: " + limits }) : null,
      list, add, el("p", { class: "violation", hidden: true }),
    ]);
    const read = () => {
      const value = [];
      for (const item of items) {
        const got = item.field.read();
        if (got.error) return got;
        value.push(got.missing ? null : got.value);
      }
      return !items.length && !required ? { missing: true } : { value };
    };
    const check = (value) => {
      const out = [];
      if (schema.minItems !== undefined && value.length < schema.minItems) out.push(`has fewer than ${schema.minItems} items`);
      if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push(`has more than ${schema.maxItems} items`);
      return out;
    };
    return { node, read, check, items };
  }

  // The page's own checks, as violations with JSON pointers like the server's.
  function pageViolations(f, pointer, required, out) {
    const got = f.read();
    if (got.error) { out.push({ pointer, message: got.error }); return; }
    if (got.missing) { if (required) out.push({ pointer, message: "required property missing" }); return; }
    if (f.check) for (const message of f.check(got.value)) out.push({ pointer, message });
    if (f.children) for (const [key, child] of f.children) pageViolations(child, child.node.dataset.pointer, f.requiredNames.has(key), out);
    if (f.items) for (const item of f.items) pageViolations(item.field, item.pointer, true, out);
  }

  function readArgs() {
    const got = state.form.read();
    return got.error || got.missing ? {} : got.value;
  }

  function preview() {
    if (!state.form) return;
    $("args-preview").textContent = JSON.stringify(readArgs(), null, 2);
  }

  function clearViolations() {
    for (const node of document.querySelectorAll("#fields .violation")) { node.hidden = true; node.textContent = ""; }
    for (const node of document.querySelectorAll("#fields [aria-invalid]")) node.removeAttribute("aria-invalid");
    $("form-violations").replaceChildren();
  }

  // Shows each violation at the field its pointer names, or at the nearest
  // enclosing field; those about the whole call go under the form.
  function showViolations(violations) {
    clearViolations();
    for (const v of violations) {
      let pointer = v.pointer;
      let target = null;
      for (;;) {
        target = pointer === "" ? null : document.querySelector(`#fields [data-pointer="${CSS.escape(pointer)}"]`);
        if (target || pointer === "") break;
        pointer = pointer.slice(0, pointer.lastIndexOf("/"));
      }
      if (!target || !target.classList.contains("field")) {
        $("form-violations").append(el("li", { text: (v.pointer || "/") + ": " + v.message }));
        continue;
      }
      const slot = target.querySelector(":scope > .violation");
      slot.hidden = false;
      slot.append(el("span", { class: "message", text: (pointer === v.pointer ? "" : v.pointer.slice(pointer.length) + ": ") + v.message }));
      const control = target.querySelector(":scope > input, :scope > select, :scope > textarea");
      if (control) control.setAttribute("aria-invalid", "true");
    }
    const first = document.querySelector("#fields [aria-invalid='true']");
    if (first) first.focus();
  }

  async function submit(event) {
    event.preventDefault();
    if (!state.form || !state.selected) return;
    const tool = state.selected;
    if ($("check-in-page").checked) {
      const found = [];
      pageViolations(state.form, "", true, found);
      if (found.length) { showViolations(found); $("call-form").dataset.checked = "page"; return; }
    }
    clearViolations();
    const args = readArgs();
    const button = $("call-button");
    button.disabled = true;
    state.pendingCall = tool;
    showResultPending(tool);
    try {
      const answer = await api("/api/call", { tool, args });
      $("call-form").dataset.checked = "server";
      if (answer.violations.length) showViolations(answer.violations);
      showResult(answer.result, answer.error_kind);
      showTrace(answer.trace || []);
    } catch (error) {
      $("result-meta").replaceChildren(el("p", { class: "violation", text: error.message }));
    } finally {
      button.disabled = false;
      state.pendingCall = null;
    }
  }

  // ---- results -------------------------------------------------------------

  function showResultPending(tool) {
    $("result-panel").hidden = false;
    $("result-panel").dataset.state = "running";
    $("result-meta").replaceChildren(el("span", { class: "dsh-badge dsh-running", text: "running " + tool }));
    $("result-content").replaceChildren();
    $("result-card").replaceChildren();
    $("trace-panel").hidden = true;
  }

  function micros(us) {
    return us < 1000 ? us + " µs" : (us / 1000).toFixed(us < 100000 ? 2 : 0) + " ms";
  }

  // The call's spans as a waterfall: one row per span, indented under its
  // parent, its bar placed on the call's time line; its events as ticks,
  // and listed below.
  function showTrace(spans) {
    const panel = $("trace-panel");
    if (!spans.length) { panel.hidden = true; return; }
    const end = Math.max(1, ...spans.map((s) => s.end_us ?? s.start_us), ...spans.flatMap((s) => s.events.map((e) => e.at_us)));
    const depth = new Map();
    const pct = (us) => (100 * us / end).toFixed(3) + "%";
    const rows = spans.map((span) => {
      const level = span.parent === null || span.parent === undefined ? 0 : (depth.get(span.parent) ?? 0) + 1;
      depth.set(span.id, level);
      const stop = span.end_us ?? end;
      const bar = el("div", { class: "bar" + (span.error ? " bar-error" : ""), title: span.name + ": " + micros(stop - span.start_us) });
      bar.style.left = pct(span.start_us);
      bar.style.width = "max(2px, " + pct(stop - span.start_us) + ")";
      const ticks = span.events.map((event) => {
        const tick = el("span", { class: "tick", title: event.text });
        tick.style.left = pct(event.at_us);
        return tick;
      });
      const label = el("div", { class: "span-label", text: span.name });
      label.style.paddingLeft = (level * 12) + "px";
      return el("div", { class: "span-row", role: "listitem", "data-span": span.name, "data-error": span.error || "" }, [
        label,
        el("div", { class: "track" }, [bar, ...ticks]),
        el("div", { class: "span-time", text: micros(stop - span.start_us) + (span.error ? " · " + span.error.replace(/_/g, " ") : "") }),
      ]);
    });
    $("result-trace").replaceChildren(...rows);
    $("trace-events").replaceChildren(...spans.flatMap((span) => span.events.map((event) =>
      el("li", {}, [el("span", { class: "at", text: micros(event.at_us) }), " ", el("span", { text: event.text })]))));
    panel.hidden = false;
  }

  function resultMeta(result, errorKind) {
    return el("div", { class: "meta" }, [
      el("span", { class: "status status-" + result.status, "data-status": result.status, text: result.status }),
      el("span", { class: "tool-name", text: result.tool_name }),
      el("span", { class: "duration", text: result.duration + " ms" }),
      errorKind ? el("span", { class: "tag destructive error-kind", text: errorKind.replace(/_/g, " ") }) : null,
      result.truncated ? el("span", { class: "tag", text: "truncated" }) : null,
      el("span", { class: "tag", text: "output: " + result.output_type }),
    ]);
  }

  function showResult(result, errorKind) {
    $("result-panel").hidden = false;
    $("result-panel").dataset.state = "done";
    $("result-panel").dataset.invocation = result.invocation_id;
    $("result-meta").replaceChildren(resultMeta(result, errorKind));
    $("result-content").replaceChildren(DshCards.renderContent(result.content));
    $("result-card").replaceChildren(result.card ? DshCards.render(result.card) : el("p", { class: "dsh-empty", text: "no card: the call did not succeed" }));
  }

  // ---- live events ---------------------------------------------------------

  const MAX_EVENTS = 200, MAX_LIVE = 12;

  function addEvent(type, payload) {
    const list = $("event-list");
    const status = payload.status ? " " + payload.status : payload.stream_type ? " " + payload.stream_type : "";
    const text = type === "tool.catalog.publish" ? ` ${payload.tools.length} tools` : ` ${payload.tool_name}${status}`;
    list.prepend(el("li", { "data-type": type, "data-invocation": payload.invocation_id, "data-tool": payload.tool_name, title: JSON.stringify(payload).slice(0, 2000) }, [
      el("span", { class: "ev-time", text: new Date().toLocaleTimeString() + " " }), el("span", { class: "ev-type", text: type }), text,
    ]));
    while (list.children.length > MAX_EVENTS) list.lastElementChild.remove();
  }

  function liveCall(id, tool) {
    let node = document.querySelector(`#live-calls [data-invocation="${CSS.escape(id)}"]`);
    if (!node) {
      node = el("div", { class: "live-call", "data-invocation": id, "data-tool": tool });
      $("live-calls").prepend(node);
      while ($("live-calls").children.length > MAX_LIVE) $("live-calls").lastElementChild.remove();
    }
    return node;
  }

  // A running terminal card grows with the output its call streams.
  const runningCards = new Map();
  function streamed(chunk) {
    const card = runningCards.get(chunk.invocation_id);
    if (!card || card.card !== "terminal" || (chunk.stream_type !== "stdout" && chunk.stream_type !== "stderr")) return;
    card[chunk.stream_type] = (card[chunk.stream_type] || "") + chunk.chunk;
    const node = document.querySelector(`#live-calls [data-invocation="${CSS.escape(chunk.invocation_id)}"]`);
    if (node) node.replaceChildren(DshCards.render(card, { running: true }));
  }

  function connect() {
    const source = new EventSource("/api/events");
    source.addEventListener("hello", () => { $("connection").textContent = "live"; $("connection").dataset.state = "live"; });
    source.addEventListener("error", () => { $("connection").textContent = "reconnecting\u2026"; $("connection").dataset.state = "down"; });
    source.addEventListener("rawp", (event) => {
      const rawp = JSON.parse(event.data);
      addEvent(rawp.type, rawp.payload);
      if (rawp.type === "tool.catalog.publish") loadCatalog();
      if (rawp.type === "tool.invoke.stream") streamed(rawp.payload);
    });
    source.addEventListener("running", (event) => {
      const running = JSON.parse(event.data);
      const node = liveCall(running.invocation_id, running.tool_name);
      running.card = { ...running.card };
      runningCards.set(running.invocation_id, running.card);
      node.replaceChildren(DshCards.render(running.card, { running: true }));
      if (state.pendingCall === running.tool_name && $("result-panel").dataset.state === "running") {
        $("result-card").replaceChildren(DshCards.render(running.card, { running: true }));
      }
    });
    source.addEventListener("result", (event) => {
      const result = JSON.parse(event.data);
      runningCards.delete(result.invocation_id);
      const node = liveCall(result.invocation_id, result.tool_name);
      node.replaceChildren(resultMeta(result, null), result.card ? DshCards.render(result.card) : DshCards.renderContent(result.content));
    });
    source.addEventListener("tools", () => loadCatalog());
    source.addEventListener("approvals", () => loadApprovals());
    source.addEventListener("lagged", (event) => addEvent("lagged", { tool_name: JSON.parse(event.data).missed + " events missed" }));
  }

  // ---- approvals -------------------------------------------------------------

  async function loadApprovals() {
    let pending;
    try { pending = (await api("/api/approvals")).pending; } catch (error) { return; }
    $("approvals").hidden = pending.length === 0;
    $("approval-list").replaceChildren(...pending.map((p) => el("li", { "data-approval": p.id, "data-tool": p.tool }, [
      el("strong", { text: p.prompt }),
      ...(p.principal ? [" ", el("span", { class: "caller", text: "for " + p.principal.subject + (p.principal.client_id ? " (client " + p.principal.client_id + ")" : "") })] : []),
      el("pre", { text: JSON.stringify(p.args, null, 2) }),
      el("button", { type: "button", class: "approve", text: "Approve", onclick: () => answer(p.id, true) }), " ",
      el("button", { type: "button", class: "reject", text: "Reject", onclick: () => answer(p.id, false) }),
    ])));
  }

  async function answer(id, approve) {
    try { await api("/api/approvals/answer", { id, approve, reason: approve ? null : "rejected in the playground" }); }
    catch (error) { $("approval-list").append(el("li", { class: "violation", text: error.message })); }
    loadApprovals();
  }

  // ---- session logs ------------------------------------------------------------

  async function openLog(source, replay) {
    $("log-status").textContent = replay ? "replaying\u2026" : "opening\u2026";
    try {
      const log = await api("/api/log", { ...source, replay });
      state.log = log;
      state.logSource = source;
      state.logIndex = Math.min(state.logIndex, Math.max(0, log.calls.length - 1));
      if (!replay) state.logIndex = 0;
      $("log-status").textContent = `${log.path}: ${log.calls.length} calls` + (log.warnings.length ? " (" + log.warnings.join("; ") + ")" : "");
      $("log-summary").textContent = log.summary ? "replay: " + log.summary : "";
      $("log-summary").dataset.replayed = log.summary ? "true" : "false";
      $("log-view").hidden = false;
      showLogCall();
    } catch (error) {
      $("log-status").textContent = error.message;
    }
  }

  function showLogCall() {
    const log = state.log;
    if (!log) return;
    $("log-calls").replaceChildren(...log.calls.map((call, i) => {
      const outcome = call.replay ? " \u2014 " + call.replay.outcome : "";
      return el("li", { "aria-current": i === state.logIndex ? "step" : null, class: call.replay ? "outcome-" + call.replay.outcome : null }, [
        el("button", { type: "button", text: `line ${call.line} ${call.tool_name} ${call.result ? call.result.status : "(no result)"}${outcome}`, onclick: () => { state.logIndex = i; showLogCall(); } }),
      ]);
    }));
    const call = log.calls[state.logIndex];
    $("log-position").textContent = log.calls.length ? `call ${state.logIndex + 1} of ${log.calls.length}` : "no calls";
    $("log-prev").disabled = state.logIndex <= 0;
    $("log-next").disabled = state.logIndex >= log.calls.length - 1;
    const view = $("log-call");
    if (!call) { view.replaceChildren(); return; }
    view.dataset.invocation = call.invocation_id;
    const parts = [el("h3", { text: `${call.tool_name} \u00b7 line ${call.line}` })];
    if (call.replay) {
      parts.push(el("p", { class: "replay-outcome outcome-" + call.replay.outcome, "data-outcome": call.replay.outcome, text: "replay: " + call.replay.summary }));
      for (const d of call.replay.differences) parts.push(difference(d));
    }
    parts.push(el("details", {}, [el("summary", { text: "Arguments" }), DshCards.json(call.args)]));
    if (call.running_card) parts.push(el("h3", { text: "While it ran" }), DshCards.render(call.running_card, { running: true }));
    if (call.result) {
      parts.push(el("h3", { text: "Result" }), resultMeta(call.result, null));
      parts.push(el("div", { class: "side-by-side" }, [
        el("div", {}, [el("h3", { text: "What the model saw" }), DshCards.renderContent(call.result.content)]),
        el("div", {}, [el("h3", { text: "Card" }), call.result.card ? DshCards.render(call.result.card) : el("p", { class: "dsh-empty", text: "no card" })]),
      ]));
    }
    view.replaceChildren(...parts);
  }

  // The logged and replayed text, with the part that differs marked.
  function difference(d) {
    const a = d.expected, b = d.actual;
    let start = 0;
    while (start < a.length && start < b.length && a[start] === b[start]) start++;
    let end = 0;
    while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
    const marked = (text) => el("pre", {}, [text.slice(0, start), el("mark", { text: text.slice(start, text.length - end) }), text.slice(text.length - end)]);
    return el("div", { class: "difference", "data-field": d.field }, [
      el("strong", { text: d.field + " differs" }),
      el("div", {}, [el("small", { text: "logged" }), marked(a)]),
      el("div", {}, [el("small", { text: "replayed" }), marked(b)]),
    ]);
  }

  // ---- wiring ---------------------------------------------------------------------

  $("call-form").addEventListener("submit", submit);
  $("call-form").addEventListener("input", preview);
  $("call-form").addEventListener("change", preview);
  $("log-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const path = $("log-path").value.trim();
    if (path) openLog({ path }, false);
  });
  $("log-file").addEventListener("change", () => {
    const file = $("log-file").files[0];
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => openLog({ text: String(reader.result), name: file.name }, false);
    reader.onerror = () => { $("log-status").textContent = "cannot read " + file.name; };
    reader.readAsText(file);
  });
  $("log-prev").addEventListener("click", () => { state.logIndex--; showLogCall(); });
  $("log-next").addEventListener("click", () => { state.logIndex++; showLogCall(); });
  $("log-replay").addEventListener("click", () => { if (state.logSource) openLog(state.logSource, true); });

  connect();
  loadCatalog();
  loadApprovals();
})();

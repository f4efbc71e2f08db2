// agent-server chat page: one session, its event stream, approvals, a per-turn hook timeline.
(function () {
  "use strict";
  const CONFIG = window.AGENT_SERVER_CONFIG || { env: "production", authRequired: false };
  const DEV = CONFIG.env === "development";
  if (DEV) { window.__hooksFired = []; window.__events = []; }

  const $ = (id) => document.getElementById(id);
  const messages = $("messages"), timeline = $("timeline"), input = $("input");
  const statusEl = document.querySelector('[data-testid="session-status"]');
  const sidEl = document.querySelector('[data-testid="session-id"]');
  const EVENT_TYPES = ["session_started", "session_cleared", "turn_started", "turn_ended", "message",
    "assistant_delta", "tool_call", "tool_input_updated", "tool_result", "hook", "system_message",
    "approval_required", "approval_resolved", "subagent_started", "subagent_stopped", "compacted",
    "cwd_changed", "permission_mode_changed", "permission", "error", "session_ended", "events_dropped", "end"];

  const params = new URLSearchParams(location.search);
  if (params.get("mode")) $("mode").value = params.get("mode");
  // Signing in is the server's job: /chat?token=… sets an HttpOnly cookie that every
  // request of this page then carries; the page never sees the token.
  let sessionId = null, source = null, currentTurn = null, streaming = {}, toolCards = {}, approval = null;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function scroll() { messages.scrollTop = messages.scrollHeight; }
  let busy = false;
  function setBusy(value) { busy = value; $("send").disabled = value; }
  function setStatus(s) {
    statusEl.textContent = s; statusEl.className = "status " + s;
    setBusy(!["idle", "completed", "blocked", "stopped", "deferred", "denied", "interrupted", "error", "max_steps"].includes(s));
  }

  async function api(method, path, body) {
    const headers = { "Content-Type": "application/json" };
    const res = await fetch(path, { method, headers, credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body) });
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (res.status === 401) { $("token-bar").hidden = false; }
    if (!res.ok) throw new Error((data && data.error && data.error.message) || ("HTTP " + res.status));
    return data;
  }

  function systemNote(text, level) {
    const node = el("div", "msg system " + (level || "info"), text);
    node.dataset.testid = "system-message";
    messages.appendChild(node); scroll();
  }

  function agentClass(ev) { return ev.agent_id ? " sub" : ""; }

  // -- hook timeline --------------------------------------------------------
  function turnBox(title) {
    const box = el("div", "turn");
    box.dataset.testid = "turn";
    box.appendChild(el("h3", null, title));
    timeline.prepend(box);
    return box;
  }
  function ensureTurn() { if (!currentTurn) currentTurn = turnBox("session"); return currentTurn; }

  function renderHook(ev) {
    if (DEV) window.__hooksFired.push(ev.event);
    const row = el("div", "hook-row " + (ev.blocked ? "blocked" : "ok"));
    row.dataset.testid = "hook-row";
    row.dataset.event = ev.event;
    row.dataset.blocked = String(!!ev.blocked);
    let label = ev.event + (ev.tool_name ? " · " + ev.tool_name : "") + (ev.agent_id ? " · subagent" : "");
    if (ev.decision) label += " → " + ev.decision;
    const head = el("div");
    head.appendChild(el("span", "name", label));
    head.appendChild(el("span", "ms", "  " + ev.duration_ms.toFixed(1) + " ms"));
    row.appendChild(head);
    if (!ev.hooks.length) row.appendChild(el("div", "none", "no hooks configured"));
    const max = Math.max(1, ...ev.hooks.map((h) => h.duration_ms));
    for (const h of ev.hooks) {
      const line = el("div", "hook " + h.status);
      line.dataset.testid = "hook-run";
      line.dataset.status = h.status;
      line.title = h.command + (h.error ? "\n" + h.error : "");
      line.appendChild(el("span", "cmd", h.status + " · " + h.name));
      const bar = el("div", "bar"), fill = el("span");
      fill.style.width = Math.max(1, (100 * h.duration_ms) / max) + "%";
      bar.appendChild(fill); line.appendChild(bar);
      line.appendChild(el("span", "ms", h.duration_ms.toFixed(1) + " ms"));
      row.appendChild(line);
      if (h.error && h.status !== "skipped") row.appendChild(el("div", "reason", h.error));
    }
    if (ev.blocked || (ev.reason && ev.decision)) {
      const why = el("div", "reason", (ev.blocked ? "blocked: " : ev.decision + ": ") + (ev.reason || "no reason given"));
      why.dataset.testid = "blocked-reason";
      row.appendChild(why);
    }
    ensureTurn().appendChild(row);
  }

  // A settings permission rule decided a tool call: which rule, from which file.
  function renderPermission(ev) {
    const row = el("div", "hook-row rule " + ev.behavior);
    row.dataset.testid = "permission-row";
    row.dataset.behavior = ev.behavior;
    const head = el("div");
    head.appendChild(el("span", "name", "permission · " + ev.tool_name + " → " + ev.behavior + (ev.agent_id ? " · subagent" : "")));
    row.appendChild(head);
    const why = el("div", "rule-text", "rule " + ev.rule + " (" + ev.source + " " + ev.location + ")");
    why.dataset.testid = "permission-rule";
    row.appendChild(why);
    ensureTurn().appendChild(row);
  }

  // -- messages ---------------------------------------------------------------
  function renderMessage(ev) {
    const key = ev.agent_id || "main";
    if (ev.role === "assistant") {
      let node = streaming[key];
      delete streaming[key];
      if (!ev.text) { if (node) node.remove(); return; }
      if (!node) { node = el("div", "msg assistant" + agentClass(ev)); messages.appendChild(node); }
      node.textContent = ev.text;
      node.dataset.testid = "assistant-message";
    } else if (ev.role === "user") {
      const node = el("div", "msg user" + agentClass(ev), ev.text);
      node.dataset.testid = ev.agent_id ? "subagent-prompt" : "user-message";
      messages.appendChild(node);
    } else {
      const node = el("div", "msg context" + agentClass(ev), ev.text);
      node.dataset.testid = "context-message";
      node.title = "visible to the model";
      messages.appendChild(node);
    }
    scroll();
  }
  function renderDelta(ev) {
    const key = ev.agent_id || "main";
    let node = streaming[key];
    if (!node) {
      node = el("div", "msg assistant" + agentClass(ev), "");
      node.dataset.testid = "assistant-streaming";
      streaming[key] = node; messages.appendChild(node);
    }
    node.textContent += ev.text; scroll();
  }
  function renderToolCall(ev) {
    const card = el("details", "tool" + agentClass(ev));
    card.dataset.testid = "tool-call";
    card.dataset.tool = ev.tool_name;
    card.open = true;
    card.appendChild(el("summary", null, "⚙ " + ev.tool_name + " " + JSON.stringify(ev.input)));
    toolCards[ev.tool_use_id] = card;
    messages.appendChild(card); scroll();
  }
  function renderToolResult(ev) {
    let card = toolCards[ev.tool_use_id];
    if (!card) { card = el("details", "tool"); card.open = true; messages.appendChild(card); }
    const pre = el("pre", "result" + (ev.is_error ? " error" : ""), ev.content);
    pre.dataset.testid = ev.blocked ? "blocked-tool-result" : "tool-result";
    pre.dataset.error = String(!!ev.is_error);
    card.appendChild(pre); scroll();
  }

  // -- approvals --------------------------------------------------------------
  function showApproval(ev) {
    approval = ev;
    $("approval-tool").textContent = ev.tool_name;
    $("approval-reason").textContent = ev.reason || "This tool needs your permission.";
    $("approval-input").textContent = JSON.stringify(ev.tool_input, null, 2);
    $("approval-remember").checked = false;
    const dlg = $("approval");
    if (!dlg.open) dlg.showModal();
  }
  async function answer(decision) {
    if (!approval) return;
    const a = approval; approval = null;
    $("approval").close();
    try {
      await api("POST", `/sessions/${sessionId}/approvals/${a.approval_id}`,
        { decision, remember: $("approval-remember").checked });
    } catch (e) { systemNote("Approval failed: " + e.message, "error"); }
  }
  $("approve").addEventListener("click", () => answer("allow"));
  $("deny").addEventListener("click", () => answer("deny"));

  // -- event stream -----------------------------------------------------------
  function handle(ev) {
    if (DEV) window.__events.push(ev);
    switch (ev.type) {
      case "session_started":
        sessionId = ev.session_id; sidEl.textContent = ev.session_id; setStatus("idle");
        currentTurn = turnBox("SessionStart (" + ev.source + ")"); break;
      case "session_cleared":
        sessionId = ev.session_id; sidEl.textContent = ev.session_id;
        systemNote("Conversation cleared; new session " + ev.session_id); break;
      case "turn_started":
        setStatus("running"); currentTurn = turnBox("▶ " + ev.text); break;
      case "turn_ended":
        setStatus(ev.status === "completed" ? "idle" : ev.status);
        if (ev.status !== "completed") systemNote("Turn ended: " + ev.status + (ev.reason ? " — " + ev.reason : ""));
        break;
      case "message": renderMessage(ev); break;
      case "assistant_delta": renderDelta(ev); break;
      case "tool_call": renderToolCall(ev); break;
      case "tool_input_updated": systemNote("A hook changed the " + ev.tool_name + " input: " + JSON.stringify(ev.input)); break;
      case "tool_result": renderToolResult(ev); break;
      case "hook": renderHook(ev); break;
      case "permission": renderPermission(ev); break;
      case "system_message": systemNote(ev.text, ev.level); break;
      case "approval_required": setStatus("awaiting_approval"); showApproval(ev); break;
      case "approval_resolved":
        if (approval && approval.approval_id === ev.approval_id) { approval = null; $("approval").close(); }
        break;
      case "subagent_started": systemNote("Subagent started: " + ev.description); break;
      case "subagent_stopped": systemNote("Subagent finished (" + ev.status + ")"); break;
      case "compacted": systemNote("Conversation compacted (" + ev.trigger + ")"); break;
      case "cwd_changed": systemNote("cwd: " + ev.new_cwd); break;
      case "error": systemNote("Error: " + ev.message, "error"); break;
      case "events_dropped":
        systemNote("Events " + ev.from_seq + "–" + ev.to_seq + " are no longer kept and are not shown", "warning");
        break;
      case "session_ended":
        setStatus("closed"); systemNote("Session ended (" + ev.reason + ")");
        currentTurn = turnBox("SessionEnd"); break;
      default: break;
    }
  }

  function connect(id) {
    if (source) source.close();
    source = new EventSource(`/sessions/${id}/events`);
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (msg) => {
        if (type === "end") { source.close(); return; }
        handle(JSON.parse(msg.data));
      });
    }
    source.onerror = () => { if (statusEl.textContent !== "closed") setStatus("reconnecting"); };
  }

  async function newSession() {
    messages.textContent = ""; timeline.textContent = ""; streaming = {}; toolCards = {}; currentTurn = null;
    setStatus("connecting");
    try {
      const s = await api("POST", "/sessions", { permission_mode: $("mode").value });
      sessionId = s.session_id; sidEl.textContent = s.session_id;
      connect(s.session_id);
    } catch (e) { setStatus("error"); systemNote("Cannot start a session: " + e.message, "error"); }
  }

  async function send() {
    const text = input.value;
    if (!text.trim() || !sessionId || busy) return;
    input.value = "";
    setBusy(true);
    try { await api("POST", `/sessions/${sessionId}/messages`, { text }); }
    catch (e) { systemNote(e.message, "error"); input.value = text; setBusy(false); }
  }

  $("composer").addEventListener("submit", (e) => { e.preventDefault(); send(); });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); send(); }
  });
  $("new-session").addEventListener("click", async () => {
    if (sessionId && statusEl.textContent !== "closed") {
      try { await api("DELETE", `/sessions/${sessionId}`); } catch (e) { /* already closed */ }
    }
    newSession();
  });
  $("close-session").addEventListener("click", async () => {
    if (!sessionId) return;
    try { await api("DELETE", `/sessions/${sessionId}`); } catch (e) { systemNote(e.message, "error"); }
  });
  $("mode").addEventListener("change", async () => {
    if (!sessionId || statusEl.textContent === "closed") return;
    try { await api("PATCH", `/sessions/${sessionId}`, { permission_mode: $("mode").value }); }
    catch (e) { systemNote(e.message, "error"); }
  });
  $("token-save").addEventListener("click", () => {
    const q = new URLSearchParams(location.search);
    q.set("token", $("token").value.trim());
    location.assign("/chat?" + q.toString());
  });

  // -- project hooks waiting for trust ----------------------------------------
  let trustItems = [];
  async function loadTrust() {
    let data;
    try { data = await api("GET", "/hooks/trust"); } catch (e) { return; }
    trustItems = data.items.filter((i) => !i.trusted);
    $("trust-count").textContent = String(trustItems.length);
    $("trust-bar").hidden = trustItems.length === 0;
    if (data.store_problem) systemNote(data.store_problem, "error");
  }
  function showTrust() {
    const list = $("trust-list");
    list.textContent = "";
    for (const item of trustItems) {
      const row = el("div", "trust-item");
      row.dataset.testid = "trust-item";
      row.dataset.id = item.id;
      const label = el("label");
      const box = el("input");
      box.type = "checkbox"; box.value = item.id; box.disabled = !!item.problem;
      label.appendChild(box);
      label.appendChild(el("span", null, " " + (item.kind === "hook" ? item.event : "permissions.allow")));
      row.appendChild(label);
      const cmd = el("pre", null, item.command);
      cmd.dataset.testid = "trust-command";
      row.appendChild(cmd);
      row.appendChild(el("div", "where", item.source + " " + item.location));
      for (const [name, sha] of Object.entries(item.files)) {
        row.appendChild(el("div", "where", "script " + name + " sha256:" + sha.slice(0, 16)));
      }
      if (item.problem) row.appendChild(el("div", "problem", item.problem));
      for (const change of item.changes) {
        const c = el("div", "changes", "changed since last trusted: " + change);
        c.dataset.testid = "trust-change";
        row.appendChild(c);
      }
      list.appendChild(row);
    }
    $("trust").showModal();
  }
  $("trust-review").addEventListener("click", showTrust);
  $("trust-cancel").addEventListener("click", () => $("trust").close());
  $("trust-selected").addEventListener("click", async () => {
    const ids = [...$("trust-list").querySelectorAll("input:checked")].map((b) => b.value);
    $("trust").close();
    if (!ids.length) return;
    try {
      const data = await api("POST", "/hooks/trust", { ids });
      systemNote("Trusted " + data.trusted.length + " project hook(s); they run from the next event.");
    } catch (e) { systemNote("Trust failed: " + e.message, "error"); }
    loadTrust();
  });

  if (CONFIG.authRequired) { $("token-bar").hidden = false; setStatus("token needed"); }
  else { loadTrust(); newSession(); }
})();

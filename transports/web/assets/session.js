// One session over the ACP WebSocket: its history replayed, then live;
// the prompt box with the queue and steering; permission requests; the
// usage gauge and the other clients attached.
import { h, clear, money, toast } from "./dom.js";
import { token, api } from "./api.js";
import { ACP } from "./acp.js";
import { render as renderMarkdown } from "./markdown.js";
import { diffView, editOf } from "./diffview.js";

// pendingMode: the approval mode a new session was asked for, set once
// the page attaches to it (REST's create takes none).
export const pendingMode = new Map();

const CLIENT = { name: "troupe-web", version: "1" };

export async function sessionView(root, id, { readonly = false } = {}) {
  const acp = new ACP(token.get());
  const blocks = new Map(); // key → {el, ...state}
  const asks = new Map(); // toolCallId → {rpcId, el}
  let queue = []; // {messageId, prompt, originator}
  let running = ""; // the prompt id running, "" for none
  let busy = false;
  let clientId = "";
  let plan = null;
  let closed = false;
  let poll = 0;
  let gen = 0; // moves at every queue change and turn end
  let attachDone;
  const attached = new Promise((resolve) => { attachDone = resolve; }); // settled once the attach is answered or failed

  const titleEl = h("h1", { class: "title", id: "session-title" }, id);
  const badges = h("div", { class: "badges", id: "session-badges" });
  const gauge = h("meter", { id: "context-gauge", min: 0, max: 1, value: 0, "aria-label": "Context used" });
  const gaugeText = h("span", { class: "muted", id: "usage-text" });
  const clientsEl = h("div", { class: "clients muted", id: "clients" });
  const modeSel = h("select", { id: "mode", "aria-label": "Approval mode", disabled: readonly, onchange: () => setMode(modeSel.value) });
  const log = h("div", { class: "transcript", id: "transcript", role: "log", "aria-live": "polite", "aria-label": "Conversation" });
  const asksEl = h("div", { class: "asks", id: "asks", "aria-live": "assertive" });
  const queueEl = h("ul", { class: "queue", id: "queue", "aria-label": "Queued prompts" });
  const input = h("textarea", {
    id: "prompt", rows: 2, placeholder: "Message… (Enter sends, Shift+Enter for a new line)", "aria-label": "Prompt",
    onkeydown: (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); }
      if (e.key === "Escape" && busy) { e.preventDefault(); stop(); }
    },
  });
  const sendBtn = h("button", { type: "button", id: "send", onclick: () => send() }, "Send");
  const steerBtn = h("button", { type: "button", id: "steer", class: "ghost", onclick: () => steer(), title: "Interrupt the running turn with this message" }, "Steer");
  const stopBtn = h("button", { type: "button", id: "stop", class: "ghost", onclick: () => stop() }, "Stop");
  const box = readonly
    ? h("p", { class: "readonly-note", id: "readonly-note" }, "Read-only view: you can watch this session but not prompt it. ",
      h("a", { href: `#/s/${encodeURIComponent(id)}` }, "Open it to take part"))
    : h("form", { class: "composer", id: "composer", onsubmit: (e) => { e.preventDefault(); send(); } },
      asksEl, queueEl, input, h("div", { class: "row" }, sendBtn, steerBtn, stopBtn));

  clear(root).append(h("section", { class: "session-view" },
    h("div", { class: "session-head" },
      titleEl, badges,
      h("div", { class: "row wrap" }, h("label", { class: "gauge" }, "Context ", gauge, " ", gaugeText), !readonly ? modeSel : null),
      clientsEl),
    log, box));

  // ——— state shown in the header ———
  function setBusy(b) {
    busy = b;
    if (!readonly) { steerBtn.disabled = !b; stopBtn.disabled = !b; }
    drawBadges();
  }
  let status = "live";
  let awaiting = false;
  function drawBadges() {
    clear(badges,
      h("span", { class: `badge ${closed ? "cold" : status === "cold" ? "cold" : "live"}` }, closed ? "closed" : status === "cold" ? "cold" : "live"),
      busy ? h("span", { class: "badge busy", id: "busy-badge" }, "busy") : null,
      awaiting || asks.size ? h("span", { class: "badge awaiting" }, "awaiting input") : null,
      readonly ? h("span", { class: "badge" }, "read-only") : null);
  }
  function usage(used, size, amount, currency) {
    if (size) { gauge.max = size; gauge.value = used || 0; gauge.high = size * 0.8; gauge.optimum = 0; }
    const parts = [];
    if (used !== undefined) parts.push(size ? `${fmt(used)} / ${fmt(size)} tokens` : `${fmt(used)} tokens`);
    const cost = money(amount, currency || "USD");
    if (cost) parts.push(cost);
    gaugeText.textContent = parts.join(" · ");
  }
  // The others' names come with the attach answer; later only their
  // count (REST's attachedClients), shown as names while it matches.
  let names = [];
  function clients(list) {
    names = (list || []).filter((c) => c.clientId !== clientId).map((c) => c.name || c.clientId);
    otherClients(names.length);
  }
  function otherClients(n) {
    if (n === names.length) clientsEl.textContent = n ? `Also attached: ${names.join(", ")}` : "No other clients attached";
    else clientsEl.textContent = `${n} other client${n === 1 ? "" : "s"} attached`;
  }

  // ——— transcript blocks ———
  function block(key, make) {
    let b = blocks.get(key);
    if (!b) {
      b = make();
      blocks.set(key, b);
      log.append(b.el);
    }
    return b;
  }
  function follow() {
    const near = window.innerHeight + window.scrollY >= document.body.scrollHeight - 200;
    if (near) requestAnimationFrame(() => window.scrollTo(0, document.body.scrollHeight));
  }
  function userBlock(pid, text, who) {
    const b = block(`u:${pid}`, () => {
      const body = h("div", { class: "text" });
      return { el: h("article", { class: "msg user", dataset: { id: pid } }, h("div", { class: "who" }, who || "You"), body), body, text: "" };
    });
    if (text !== undefined) { b.text = text; b.body.textContent = text; }
    return b;
  }
  function assistantChunk(mid, text) {
    const b = block(`a:${mid}`, () => {
      const body = h("div", { class: "md" });
      return { el: h("article", { class: "msg assistant" }, body), body, text: "", queued: false };
    });
    b.text += text;
    if (!b.queued) {
      b.queued = true;
      requestAnimationFrame(() => { b.queued = false; renderMarkdown(b.body, b.text); follow(); });
    }
  }
  function thoughtChunk(mid, text) {
    const b = block(`t:${mid}`, () => {
      const body = h("div", { class: "thought-text" });
      return { el: h("details", { class: "thought" }, h("summary", {}, "Thinking"), body), body, text: "" };
    });
    b.text += text;
    b.body.textContent = b.text;
  }
  // toolCall shows a call's whole state. Times are the updates' own
  // (recordedAt, epoch ms), so a replay says how long a call ran as the
  // live view did: from its start, or its permission's answer, to its end.
  function toolCall(u, at = Date.now()) {
    const b = block(`c:${u.toolCallId}`, () => {
      const summary = h("summary", {});
      const body = h("div", { class: "tool-body" });
      return { el: h("details", { class: "tool", dataset: { id: u.toolCallId } }, summary, body), summary, body, state: {}, seen: at, started: 0, ended: 0, waited: 0 };
    });
    Object.assign(b.state, Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)));
    const s = b.state;
    if (s.status === "in_progress" && !b.started) b.started = at;
    if ((s.status === "completed" || s.status === "failed") && !b.ended) { b.ended = at; b.started = b.started || b.seen; }
    drawTool(b);
  }
  function permissionAnswered(callId, at) {
    const b = blocks.get(`c:${callId}`);
    if (!b || b.started) return;
    b.started = at;
    b.waited = at - b.seen;
    drawTool(b);
  }
  function drawTool(b) {
    const s = b.state;
    let dur = b.ended ? ` · ${((b.ended - b.started) / 1000).toFixed(1)} s` : "";
    if (dur && b.waited > 0) dur += ` (after ${(b.waited / 1000).toFixed(1)} s waiting for permission)`;
    b.el.classList.toggle("failed", s.status === "failed");
    clear(b.summary).append(
      h("span", { class: `status ${s.status || "pending"}` }, label(s.status)),
      " ", h("span", { class: "tool-title" }, s.title || "tool"),
      h("span", { class: "muted" }, argsLine(s.rawInput) + dur));
    clear(b.body);
    if (s.rawInput !== undefined) b.body.append(h("div", { class: "k" }, "Arguments"), h("pre", { class: "args", tabIndex: 0 }, JSON.stringify(s.rawInput, null, 2)));
    const edit = editOf(s.title, s.rawInput);
    if (edit) b.body.append(diffView(edit.path, edit.before, edit.after));
    for (const c of s.content || []) {
      if (c.type === "diff") b.body.append(diffView(c.path, c.oldText || "", c.newText || ""));
      else if (c.content && c.content.type === "text") b.body.append(h("div", { class: "k" }, "Output"), h("pre", { class: "output", tabIndex: 0 }, c.content.text));
    }
    if (edit && !b.el.dataset.opened) { b.el.open = true; b.el.dataset.opened = "1"; }
    follow();
  }
  function drawPlan(entries) {
    if (!plan) {
      plan = { el: h("section", { class: "plan", id: "plan", "aria-label": "Plan" }) };
      log.append(plan.el);
    } else if (plan.el.nextSibling) {
      log.append(plan.el); // the newest plan follows the conversation
    }
    clear(plan.el).append(h("h2", {}, "Plan"), h("ol", {}, entries.map((e) =>
      h("li", { class: `plan-${e.status || "pending"}` }, h("span", { class: "status" }, label(e.status)), " ", e.content))));
  }
  function note(text, cls = "") {
    log.append(h("p", { class: `note ${cls}` }, text));
    follow();
  }

  // ——— updates ———
  function onUpdate(p) {
    if (p.sessionId && p.sessionId !== id) return;
    const u = p.update || {};
    const meta = (u._meta && u._meta["hydra-acp"]) || {};
    const mid = meta.acpMessageId || u.messageId || "m";
    const stamp = p._meta && p._meta["hydra-acp"];
    const at = (stamp && stamp.recordedAt) || Date.now();
    switch (u.sessionUpdate) {
      case "user_message_chunk":
        if (meta.compatFor) return;
        if (u.content && u.content.type === "text") {
          const b = userBlock(mid);
          userBlock(mid, (b.text || "") + u.content.text);
        }
        break;
      case "prompt_received": {
        const who = u.sentBy && u.sentBy.clientId !== clientId ? (u.sentBy.name || u.sentBy.clientId) : "You";
        userBlock(mid, text(u.prompt), who);
        break;
      }
      case "agent_message_chunk":
        if (u.content && u.content.type === "text") assistantChunk(mid, u.content.text);
        break;
      case "agent_thought_chunk":
        if (u.content && u.content.type === "text") thoughtChunk(mid, u.content.text);
        break;
      case "tool_call":
      case "tool_call_update":
        toolCall(u, at);
        break;
      case "plan":
        drawPlan(u.entries || []);
        break;
      case "usage_update":
        usage(u.used, u.size, u.cost && u.cost.amount, u.cost && u.cost.currency);
        break;
      case "session_info_update":
        if (u.title) setTitle(u.title);
        break;
      case "current_mode_update":
        modeSel.value = u.currentModeId;
        break;
      case "turn_complete":
        turnEnded(u.stopReason);
        break;
      case "permission_resolved":
        permissionAnswered(u.toolCallId, at);
        withdraw(u.toolCallId, u.resolvedBy, u.chosenOptionId || u.optionId);
        break;
      case "hydra_compaction":
        note(u.phase === "failed" ? `Compaction failed: ${u.error}` : `Compaction ${u.phase}`);
        break;
      case "troupe_retry":
        note(u.phase === "started" ? `Retrying (${u.attempt}/${u.retries}): ${u.error || ""}` : `Retry ${u.phase}`);
        break;
    }
  }
  // turnEnded: the running turn ended (turn_complete to the other
  // clients; the prompt's own answer to the one that sent it).
  function turnEnded(reason) {
    gen++;
    if (reason && reason !== "end_turn") note(`Turn ended: ${reason}`);
    queue = queue.filter((q) => q.messageId !== running);
    running = "";
    setBusy(false);
    drawQueue();
  }
  function setTitle(t) {
    titleEl.textContent = t;
    document.title = `${t} · troupe`;
  }

  // ——— permission requests: first answer wins ———
  function ask(p, rpcId) {
    if (readonly) { acp.respond(rpcId, { outcome: { outcome: "cancelled" } }); return; }
    const tc = p.toolCall || {};
    if (tc.toolCallId) toolCall({ ...tc, status: tc.status || "pending" });
    const edit = editOf(tc.title, tc.rawInput);
    const el = h("section", { class: "ask card", role: "group", "aria-label": `Permission for ${tc.title || "a tool"}`, dataset: { id: tc.toolCallId } },
      h("h2", {}, "Allow ", h("code", {}, tc.title || "tool"), "?"),
      tc.rawInput !== undefined && !edit ? h("pre", { class: "args", tabIndex: 0 }, JSON.stringify(tc.rawInput, null, 2)) : null,
      edit ? diffView(edit.path, edit.before, edit.after) : null,
      h("div", { class: "row wrap" }, (p.options || []).map((o) => h("button", {
        type: "button", class: o.kind && o.kind.startsWith("reject") ? "ghost danger" : "",
        dataset: { option: o.optionId },
        onclick: () => {
          acp.respond(rpcId, { outcome: { outcome: "selected", optionId: o.optionId } });
          remove(tc.toolCallId);
          note(`You chose “${o.name}” for ${tc.title || "the tool"}`);
        },
      }, o.name || o.optionId))));
    asks.set(tc.toolCallId, { rpcId, el });
    asksEl.append(el);
    drawBadges();
    // The first option takes the focus, unless the person is typing: an
    // Enter meant for the prompt must not answer the request.
    const typing = document.activeElement && ["TEXTAREA", "INPUT", "SELECT"].includes(document.activeElement.tagName);
    if (!typing) el.querySelector("button").focus({ preventScroll: true });
    el.scrollIntoView({ block: "nearest" });
  }
  function remove(callId) {
    const a = asks.get(callId);
    if (a) { a.el.remove(); asks.delete(callId); drawBadges(); }
  }
  function withdraw(callId, by, option) {
    if (!asks.has(callId)) return;
    remove(callId);
    note(`${by || "Another client"} answered the permission request${option ? ` (${option})` : ""}`);
  }

  // ——— the queue ———
  function drawQueue() {
    if (readonly) return;
    clear(queueEl).append(...queue.map((q) => {
      const isRunning = q.messageId === running;
      const txt = h("span", { class: "q-text" }, text(q.prompt));
      return h("li", { class: `chip ${isRunning ? "running" : ""}`, dataset: { id: q.messageId } },
        h("span", { class: "muted" }, isRunning ? "running" : "queued"), " ", txt,
        isRunning ? h("button", { type: "button", class: "ghost small", onclick: () => amend(q) }, "Amend")
          : [h("button", { type: "button", class: "ghost small", "aria-label": `Edit the queued prompt “${text(q.prompt)}”`, onclick: () => edit(q) }, "Edit"),
            h("button", { type: "button", class: "ghost small cancel", "aria-label": `Cancel the queued prompt “${text(q.prompt)}”`, onclick: () => cancel(q) }, "Cancel")]);
    }));
  }
  async function edit(q) {
    const t = window.prompt("Edit the queued prompt", text(q.prompt));
    if (t === null) return;
    const res = await acp.call("hydra-acp/prompt/update", { sessionId: id, messageId: q.messageId, prompt: [{ type: "text", text: t }] });
    if (!res.updated) toast(`Not changed: ${res.reason}`, "error");
  }
  async function cancel(q) {
    const res = await acp.call("hydra-acp/prompt/cancel", { sessionId: id, messageId: q.messageId });
    if (!res.cancelled) toast(`Not cancelled: ${res.reason}`, "error");
  }
  async function amend(q) {
    const t = window.prompt("Replace the running prompt with", text(q.prompt));
    if (t === null) return;
    const res = await amendTo(q.messageId, t);
    if (!res.amended) toast(`Not amended: ${res.reason}`, "error");
  }

  // ——— sending ———
  // The daemon tells no one's own turn_complete to the client that sent
  // the prompt: its session/prompt answer is that. Each answer is tied to
  // its prompt's id by order: this connection's prompts are queued as
  // sent, and prompt_queue/added names them in that order.
  const unnamed = []; // sent, id not known yet
  const mine = new Map(); // prompt id → sent
  let amending = 0; // amends under way: their prompts are not sent ones
  async function send() {
    const t = input.value.trim();
    if (!t) return;
    input.value = "";
    // What was typed before the attach finished waits for it.
    await attached;
    if (closed) { input.value = t; toast("Not connected to the session: reload the page", "error"); return; }
    const sent = { messageId: "" };
    unnamed.push(sent);
    acp.call("session/prompt", { sessionId: id, prompt: [{ type: "text", text: t }] })
      .then((r) => {
        const i = unnamed.indexOf(sent);
        if (i >= 0) unnamed.splice(i, 1);
        mine.delete(sent.messageId);
        if (sent.messageId && sent.messageId !== running) {
          queue = queue.filter((q) => q.messageId !== sent.messageId); // cancelled while queued
          drawQueue();
          return;
        }
        turnEnded(r && r.stopReason);
      })
      .catch((e) => toast(`Prompt failed: ${e.message}`, "error"));
  }
  function named(p) {
    if (!p.originator || p.originator.clientId !== clientId || amending > 0 || !unnamed.length) return;
    const sent = unnamed.shift();
    sent.messageId = p.messageId;
    mine.set(p.messageId, sent);
  }
  async function amendTo(target, t) {
    amending++;
    try {
      return await acp.call("hydra-acp/prompt/amend", { sessionId: id, targetMessageId: target, prompt: [{ type: "text", text: t }], onTargetCompleted: "send_anyway" });
    } finally {
      amending--;
    }
  }
  async function steer() {
    await attached;
    const t = input.value.trim();
    if (!t || !running) return send();
    input.value = "";
    try {
      const res = await amendTo(running, t);
      if (!res.amended) toast(`Not steered: ${res.reason}`, "error");
    } catch (e) {
      toast(`Steer failed: ${e.message}`, "error");
    }
  }
  async function stop() {
    await attached;
    acp.call("session/cancel", { sessionId: id }).catch((e) => toast(e.message, "error"));
  }
  async function setMode(m) {
    try { await acp.call("session/set_mode", { sessionId: id, modeId: m }); } catch (e) { toast(e.message, "error"); }
  }

  // ——— the connection ———
  acp.on("session/update", onUpdate);
  acp.onRequest("session/request_permission", ask);
  acp.on("hydra-acp/prompt_queue/added", (p) => {
    if (p.sessionId !== id) return;
    named(p);
    gen++;
    queue = queue.filter((q) => q.messageId !== p.messageId).concat([p]);
    drawQueue();
  });
  acp.on("hydra-acp/prompt_queue/updated", (p) => {
    const q = queue.find((x) => x.messageId === p.messageId);
    if (q) { q.prompt = p.prompt; drawQueue(); }
  });
  acp.on("hydra-acp/prompt_queue/removed", (p) => {
    if (p.sessionId !== id) return;
    const q = queue.find((x) => x.messageId === p.messageId);
    gen++;
    if (p.reason === "started") {
      running = p.messageId;
      setBusy(true);
      if (q) {
        const mine = q.originator && q.originator.clientId === clientId;
        userBlock(p.messageId, text(q.prompt), mine ? "You" : (q.originator && (q.originator.name || q.originator.clientId)) || "");
      }
      // The running prompt stays as a chip (to amend) until its turn ends.
    } else {
      queue = queue.filter((x) => x.messageId !== p.messageId);
    }
    drawQueue();
  });
  acp.on("hydra-acp/prompt/amended", (p) => note(`Prompt amended: ${text(p.prompt)}`));
  acp.on("hydra-acp/session/attention_updated", (p) => { awaiting = (p.flags || []).length > 0; drawBadges(); });
  acp.on("hydra-acp/session/closed", () => {
    closed = true;
    setBusy(false);
    note("The session was stopped; reload to start it again.", "warn");
  });
  acp.onclose = () => {
    if (!closed) note("Disconnected from the daemon; reload to reconnect.", "warn");
    closed = true;
    drawBadges();
  };

  try {
    await acp.open(CLIENT);
    const params = { sessionId: id, historyPolicy: "full", clientInfo: CLIENT };
    if (readonly) params._meta = { "hydra-acp": { readonly: true } };
    const res = await acp.call("session/attach", params);
    clientId = res.clientId;
    const m = (res._meta && res._meta["hydra-acp"]) || {};
    if (m.title) setTitle(m.title);
    status = m.status === "cold" ? "cold" : "live";
    awaiting = !!m.awaitingInput;
    const u = m.currentUsage || {};
    usage(u.used, u.size, u.costAmount, u.costCurrency);
    modeSel.replaceChildren(...(((res.modes && res.modes.availableModes) || m.availableModes || []).map((x) => h("option", { value: x.id }, x.name || x.id))));
    if (res.modes && res.modes.currentModeId) modeSel.value = res.modes.currentModeId;
    clients(res.connectedClients);
    queue = (m.queue || []).slice();
    setBusy(!!m.busy);
    drawQueue();
    const want = pendingMode.get(id);
    if (want && !readonly) { pendingMode.delete(id); modeSel.value = want; await setMode(want); }
  } catch (e) {
    note(`Could not attach: ${e.message}`, "warn");
    closed = true;
  }
  attachDone();
  // Every few seconds REST says who else is attached and whether a turn
  // runs: the end of a turn this page started by amending (Steer, Amend)
  // is told to no one but the others. A reading taken across a queue
  // change (gen moved) is stale for busy.
  poll = setInterval(async () => {
    if (document.hidden || closed) return;
    const before = gen;
    try {
      const e = await api("GET", `/v1/sessions/${id}`);
      otherClients(Math.max(0, (e.attachedClients || 0) - 1));
      if (busy && !e.busy && before === gen && !mine.has(running)) turnEnded("");
      const cu = e.currentUsage || {};
      if (cu.costAmount) usage(cu.used, cu.size, cu.costAmount, cu.costCurrency);
    } catch { /* shown when the socket closes */ }
  }, 5000);
  const idle = !document.activeElement || document.activeElement === document.body || document.activeElement === root;
  if (!readonly && idle) input.focus({ preventScroll: true });
  drawBadges();
  return { close: () => { clearInterval(poll); acp.close(); } };
}

function text(prompt) {
  return (prompt || []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
}
function label(status) {
  return { pending: "pending", in_progress: "running", completed: "done", failed: "failed" }[status] || status || "pending";
}
function argsLine(input) {
  if (!input || typeof input !== "object") return "";
  const v = input.command || input.path || input.file_path || input.pattern || input.url || "";
  return v ? ` ${String(v).slice(0, 80)}` : "";
}
function fmt(n) {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 10000 ? 0 : 1)}k` : String(n || 0);
}

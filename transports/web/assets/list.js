// The session list: every session with its state, search across their
// transcripts, and what can be done to one (new, fork, export, import,
// kill, delete, retitle).
import { h, clear, ago, money, toast } from "./dom.js";
import { api } from "./api.js";
import { pendingMode } from "./session.js";

const MODES = [["default", "Ask before edits and commands"], ["auto_edit", "Edit without asking"], ["yolo", "Run everything without asking"]];

export async function listView(root) {
  let sessions = [];
  let hits = null; // search results by session id, or null
  let timer = 0;
  const rows = h("ul", { class: "sessions", id: "sessions", "aria-label": "Sessions" });
  const status = h("p", { class: "muted", role: "status" });
  const q = h("input", {
    type: "search", id: "search", placeholder: "Search sessions…", "aria-label": "Search across sessions",
    oninput: () => { clearTimeout(searchDelay); searchDelay = setTimeout(search, 250); },
    onkeydown: (e) => { if (e.key === "Enter") { e.preventDefault(); search(); } },
  });
  let searchDelay = 0;
  const file = h("input", { type: "file", accept: ".hydra,.json,application/json", class: "visually-hidden", id: "import-file", onchange: importBundle });

  clear(root).append(
    h("section", { class: "list" },
      h("div", { class: "toolbar" },
        h("h1", {}, "Sessions"),
        q,
        h("button", { type: "button", id: "new-session", onclick: () => newDialog() }, "New session"),
        h("button", { type: "button", class: "ghost", onclick: () => file.click() }, "Import…"),
        file),
      status,
      rows));

  async function load() {
    try {
      const res = await api("GET", "/v1/sessions");
      const next = res.sessions || [];
      // Redrawn only when something changed, so that a refresh takes no
      // focus and no click away; the times are brought up to date.
      if (JSON.stringify(next) !== JSON.stringify(sessions)) {
        sessions = next;
        draw();
      }
      for (const t of rows.querySelectorAll("time")) t.textContent = ago(t.dateTime);
    } catch (e) {
      status.textContent = `Could not list sessions: ${e.message}`;
    }
  }

  async function search() {
    const text = q.value.trim();
    if (!text) { hits = null; draw(); return; }
    try {
      const res = await api("POST", "/v1/sessions/search", { q: text });
      hits = new Map((res.results || []).map((r) => [r.sessionId, r]));
      draw();
    } catch (e) {
      status.textContent = `Search failed: ${e.message}`;
    }
  }

  function draw() {
    const shown = hits ? sessions.filter((s) => hits.has(s.sessionId)) : sessions;
    status.textContent = hits ? `${shown.length} of ${sessions.length} sessions match` : sessions.length ? "" : "No sessions yet: start one with New session.";
    // The focus stays on the same control of the same session.
    const focused = document.activeElement;
    const li = focused && rows.contains(focused) ? focused.closest("li") : null;
    const label = focused && (focused.getAttribute("aria-label") || focused.textContent);
    clear(rows).append(...shown.map((s) => row(s, hits && hits.get(s.sessionId))));
    if (li) {
      const again = [...rows.querySelectorAll(`li[data-id="${CSS.escape(li.dataset.id)}"] a, li[data-id="${CSS.escape(li.dataset.id)}"] button`)]
        .find((el) => (el.getAttribute("aria-label") || el.textContent) === label);
      if (again) again.focus();
    }
  }

  function row(s, hit) {
    const u = s.currentUsage || {};
    const cost = money(u.costAmount ?? u.cost, u.costCurrency || "USD");
    const live = s.status === "warm" || s.status === "live";
    const title = s.title || "(untitled)";
    return h("li", { class: "session", dataset: { id: s.sessionId } },
      h("div", { class: "main" },
        h("a", { href: `#/s/${encodeURIComponent(s.sessionId)}`, class: "title" }, title),
        h("div", { class: "badges" },
          h("span", { class: `badge ${live ? "live" : "cold"}` }, live ? "live" : "cold"),
          s.busy ? h("span", { class: "badge busy" }, "busy") : null,
          s.awaitingInput ? h("span", { class: "badge awaiting" }, "awaiting input") : null,
          s.attachedClients ? h("span", { class: "badge" }, `${s.attachedClients} attached`) : null),
        h("div", { class: "meta" },
          h("span", { class: "cwd", title: s.cwd }, s.cwd),
          h("span", {}, s.currentModel || s.agentId || ""),
          cost ? h("span", { class: "cost" }, cost) : null,
          h("time", { dateTime: s.updatedAt, title: new Date(s.updatedAt).toLocaleString() }, ago(s.updatedAt))),
        hit && hit.snippets && hit.snippets.length
          ? h("p", { class: "snippet" }, `…${hit.snippets[0].text}…`) : null),
      h("div", { class: "actions" },
        h("a", { href: `#/s/${encodeURIComponent(s.sessionId)}/ro`, class: "button ghost", "aria-label": `Watch ${title} read-only` }, "Watch"),
        button("Fork", `Fork ${title}`, () => fork(s)),
        button("Export", `Export ${title}`, () => exportBundle(s)),
        button("Rename", `Rename ${title}`, () => retitle(s)),
        live ? button("Kill", `Stop ${title} (it goes cold)`, () => act("POST", `/v1/sessions/${s.sessionId}/kill`, "stopped")) : null,
        button("Delete", `Delete ${title}`, () => remove(s), "ghost danger")));
  }

  function button(label, aria, fn, cls = "ghost") {
    return h("button", { type: "button", class: cls, "aria-label": aria, onclick: fn }, label);
  }

  async function act(method, path, done, body) {
    try {
      await api(method, path, body);
      toast(done);
      load();
    } catch (e) {
      toast(e.message, "error");
    }
  }

  async function fork(s) {
    try {
      const res = await api("POST", `/v1/sessions/${s.sessionId}/fork`, {});
      location.hash = `#/s/${encodeURIComponent(res.sessionId)}`;
    } catch (e) {
      toast(`Fork failed: ${e.message}`, "error");
    }
  }

  async function exportBundle(s) {
    try {
      const res = await api("GET", `/v1/sessions/${s.sessionId}/export`, undefined, { raw: true });
      const blob = await res.blob();
      const name = (res.headers.get("Content-Disposition") || "").match(/filename="?([^";]+)"?/);
      const a = h("a", { href: URL.createObjectURL(blob), download: name ? name[1] : `${s.sessionId}.hydra` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    } catch (e) {
      toast(`Export failed: ${e.message}`, "error");
    }
  }

  async function importBundle() {
    const f = file.files[0];
    file.value = "";
    if (!f) return;
    try {
      const bundle = JSON.parse(await f.text());
      const res = await api("POST", "/v1/sessions/import", { bundle });
      toast("imported");
      location.hash = `#/s/${encodeURIComponent(res.sessionId)}`;
    } catch (e) {
      toast(`Import failed: ${e.message}`, "error");
    }
  }

  function retitle(s) {
    const input = h("input", { type: "text", id: "retitle", value: s.title || "", required: true, "aria-label": "New title" });
    dialog("Rename session", [input], "Rename", () =>
      act("PATCH", `/v1/sessions/${s.sessionId}`, "renamed", { title: input.value.trim() }));
  }

  function remove(s) {
    dialog("Delete session?", [h("p", {}, `“${s.title || s.sessionId}” and its whole history are deleted. This cannot be undone.`)],
      "Delete", () => act("DELETE", `/v1/sessions/${s.sessionId}`, "deleted"), "danger");
  }

  async function newDialog() {
    let config = {};
    let agents = [];
    try {
      [config, { agents = [] } = {}] = await Promise.all([api("GET", "/v1/config"), api("GET", "/v1/agents")]);
    } catch (e) {
      toast(e.message, "error");
    }
    const cwd = h("input", { type: "text", id: "new-cwd", value: config.defaultCwd || "", required: true, spellcheck: false });
    const pick = h("select", { id: "new-model" });
    for (const a of agents) {
      if (a.models && a.models.length) {
        const group = h("optgroup", { label: a.name || a.id });
        for (const m of a.models) {
          group.append(h("option", { value: JSON.stringify({ agentId: a.id, model: m.id }), selected: !!m.default }, m.name ? `${m.name} (${m.id})` : m.id));
        }
        pick.append(group);
      } else if (a.installed !== "no") {
        pick.append(h("option", { value: JSON.stringify({ agentId: a.id }) }, `${a.name || a.id} (agent)`));
      }
    }
    const mode = h("select", { id: "new-mode" }, MODES.map(([v, label]) => h("option", { value: v }, `${v}: ${label}`)));
    dialog("New session", [
      h("label", { for: "new-cwd" }, "Working directory"), cwd,
      h("label", { for: "new-model" }, "Model or agent"), pick,
      h("label", { for: "new-mode" }, "Approval mode"), mode,
    ], "Create", async () => {
      const choice = pick.value ? JSON.parse(pick.value) : {};
      try {
        const res = await api("POST", "/v1/sessions", { cwd: cwd.value.trim(), ...choice });
        if (mode.value !== "default") pendingMode.set(res.sessionId, mode.value);
        location.hash = `#/s/${encodeURIComponent(res.sessionId)}`;
      } catch (e) {
        toast(`Could not create the session: ${e.message}`, "error");
      }
    });
  }

  load();
  timer = setInterval(() => { if (!document.hidden && !hits) load(); }, 5000);
  return { close: () => clearInterval(timer) };
}

// dialog shows a modal form; ok runs on submit. Escape and Cancel close it.
function dialog(title, fields, okLabel, ok, okClass = "") {
  const d = h("dialog", { class: "modal", "aria-label": title });
  const form = h("form", {
    method: "dialog",
    onsubmit: async (e) => {
      e.preventDefault();
      d.close();
      d.remove();
      await ok();
    },
  },
  h("h2", {}, title),
  fields,
  h("div", { class: "row end" },
    h("button", { type: "button", class: "ghost", onclick: () => { d.close(); d.remove(); } }, "Cancel"),
    h("button", { type: "submit", class: okClass, id: "dialog-ok" }, okLabel)));
  d.append(form);
  d.addEventListener("close", () => d.remove());
  document.body.append(d);
  d.showModal();
}

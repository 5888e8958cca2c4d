// The page: sign-in, then the session list (#/) or one session
// (#/s/<id>, #/s/<id>/ro read-only). The hash holds no credential.
import { h, clear, toast } from "./dom.js";
import { token, login, verify, api } from "./api.js";
import { listView } from "./list.js";
import { sessionView } from "./session.js";

const main = document.getElementById("main");
const bar = document.getElementById("bar");
let current = null; // the view shown: {close()}
let routes = 0; // counts route changes

function show(view) {
  if (current && current.close) current.close();
  current = view;
}

async function route() {
  if (!token.get()) {
    show(null);
    signIn();
    return;
  }
  const m = location.hash.match(/^#\/s\/([^/]+)(\/ro)?$/);
  header(!!m);
  // A view that finished opening after the page moved on is closed.
  const mine = ++routes;
  show(null);
  const view = m ? await sessionView(main, decodeURIComponent(m[1]), { readonly: !!m[2] }) : await listView(main);
  if (mine !== routes) {
    view.close();
    return;
  }
  show(view);
  // The new view starts with the focus, unless the person already put it
  // somewhere in it (typing while the session attached).
  if (!main.contains(document.activeElement) || document.activeElement === main) main.focus({ preventScroll: true });
}

function header(inSession) {
  clear(bar).append(...[
    h("a", { href: "#/", class: "brand", "aria-label": "troupe: all sessions" }, "troupe"),
    inSession ? h("a", { href: "#/", class: "back" }, "← Sessions") : null,
    h("span", { class: "spacer" }),
    h("button", { type: "button", class: "ghost", onclick: signOut }, "Sign out")].filter(Boolean));
}

async function signOut() {
  try { await api("POST", "/v1/auth/logout", {}); } catch { /* the token may be gone already */ }
  token.clear();
  route();
}

function signIn(message) {
  clear(bar).append(h("span", { class: "brand" }, "troupe"));
  const err = h("p", { class: "error", role: "alert" }, message || "");
  const pw = h("input", { type: "password", id: "password", name: "password", autocomplete: "current-password", required: true });
  const tok = h("input", { type: "password", id: "token", name: "token", autocomplete: "off", spellcheck: false });
  const busy = (b) => form.querySelectorAll("button").forEach((x) => { x.disabled = b; });
  const form = h("form", {
    class: "signin card",
    onsubmit: async (e) => {
      e.preventDefault();
      err.textContent = "";
      busy(true);
      try {
        const t = await login(pw.value);
        token.set(t);
        route();
      } catch (x) {
        err.textContent = x.status === 403 ? `${x.message}` : `Sign-in failed: ${x.message}`;
        busy(false);
      }
    },
  },
  h("h1", {}, "Sign in to troupe"),
  h("label", { for: "password" }, "Master password"),
  pw,
  h("button", { type: "submit", id: "signin" }, "Sign in"),
  h("details", { class: "alt" },
    h("summary", {}, "Use a token instead"),
    h("p", { class: "hint" }, "Paste the daemon's token (", h("code", {}, "$TROUPE_HOME/auth-token"), ") or a login's session token."),
    h("label", { for: "token" }, "Token"),
    tok,
    h("button", {
      type: "button", id: "use-token",
      onclick: async () => {
        err.textContent = "";
        const t = tok.value.trim();
        if (!t) return;
        if (await verify(t)) {
          token.set(t);
          route();
        } else {
          err.textContent = "The daemon does not take that token.";
        }
      },
    }, "Use token")),
  err);
  clear(main).append(form);
  pw.focus();
}

window.addEventListener("hashchange", route);
window.addEventListener("troupe:signed-out", () => { show(null); signIn("Signed out: the token expired or was revoked."); });
window.addEventListener("unhandledrejection", (e) => toast(String(e.reason && e.reason.message || e.reason), "error"));
route();

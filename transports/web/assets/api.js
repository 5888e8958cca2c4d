// The daemon's REST API under /v1, with the session token as a bearer.
// The token lives in sessionStorage (this tab, until it closes): never in
// a URL, never in a cookie the browser would send on its own.

const KEY = "troupe.token";

export const token = {
  get: () => sessionStorage.getItem(KEY) || "",
  set: (t) => sessionStorage.setItem(KEY, t),
  clear: () => sessionStorage.removeItem(KEY),
};

// ApiError is a failed call: the HTTP status and the daemon's message.
export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

// api calls the daemon; a JSON body is sent as JSON. It answers the
// parsed JSON (or text, for other types; null for no content). A 401
// signs the page out.
export async function api(method, path, body, { raw = false } = {}) {
  const headers = { Authorization: `Bearer ${token.get()}` };
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (res.status === 401) {
    token.clear();
    window.dispatchEvent(new CustomEvent("troupe:signed-out"));
  }
  if (!res.ok) {
    let msg = res.statusText;
    let data;
    try {
      data = await res.json();
      msg = data.error || msg;
    } catch { /* not JSON */ }
    throw new ApiError(res.status, msg, data);
  }
  if (raw) return res;
  if (res.status === 204 || res.status === 202) return null;
  const type = res.headers.get("Content-Type") || "";
  return type.includes("json") ? res.json() : res.text();
}

// login exchanges the master password for a session token.
export async function login(password) {
  const res = await fetch("/v1/auth/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ password, label: `web ${navigator.userAgent.slice(0, 60)}` }),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data.error || res.statusText, data);
  return data.session_token;
}

// verify reports whether t is a token the daemon takes.
export async function verify(t) {
  const res = await fetch("/v1/auth/verify", { headers: { Authorization: `Bearer ${t}` } });
  return res.ok;
}

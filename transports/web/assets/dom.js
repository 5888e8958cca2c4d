// Small DOM helpers: elements are built with properties and text nodes,
// never from HTML strings (the one exception is sanitized markdown, in
// markdown.js).

// h makes an element: attrs are properties (on* are listeners, class,
// dataset, aria-* and other dashed names are attributes); children are
// nodes or strings (text), null/false skipped, arrays flattened.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") {
      el.addEventListener(k.slice(2), v);
    } else if (k === "class") {
      el.className = v;
    } else if (k === "dataset") {
      Object.assign(el.dataset, v);
    } else if (k.includes("-") || k === "role" || k === "for") {
      el.setAttribute(k, v === true ? "" : String(v));
    } else {
      el[k] = v;
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

// clear empties el, puts children in (as h does: null skipped) and
// returns it.
export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// ago says how long ago a time was, shortly.
export function ago(t) {
  const ms = Date.now() - new Date(t).getTime();
  if (!isFinite(ms)) return "";
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

// money formats a cost; "" when nothing was spent.
export function money(amount, currency = "USD") {
  if (!amount) return "";
  return new Intl.NumberFormat(undefined, { style: "currency", currency, maximumFractionDigits: 4 }).format(amount);
}

// toast shows a short message in the live region.
export function toast(msg, kind = "info") {
  const box = document.getElementById("toast");
  if (!box) return;
  const item = h("div", { class: `toast ${kind}` }, msg);
  box.append(item);
  setTimeout(() => item.remove(), kind === "error" ? 8000 : 4000);
}

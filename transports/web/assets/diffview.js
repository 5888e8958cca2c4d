// An edit as a line diff (jsdiff's diffLines): removed lines, added lines
// and a little context around them.
import { diffLines } from "./vendor/diff/libesm/index.js";
import { h } from "./dom.js";

const CONTEXT = 3;

// diffView is the diff of before and after, as an element.
export function diffView(path, before, after) {
  const rows = [];
  let oldNo = 1;
  let newNo = 1;
  const parts = diffLines(before || "", after || "");
  parts.forEach((part, i) => {
    const lines = part.value.replace(/\n$/, "").split("\n");
    if (!part.added && !part.removed) {
      // Unchanged: keep context next to the changes only.
      const keepHead = i > 0 ? CONTEXT : 0;
      const keepTail = i < parts.length - 1 ? CONTEXT : 0;
      lines.forEach((line, j) => {
        if (j < keepHead || j >= lines.length - keepTail) {
          rows.push(row(" ", oldNo, newNo, line));
        } else if (j === keepHead) {
          rows.push(h("div", { class: "dl gap" }, "…"));
        }
        oldNo++;
        newNo++;
      });
      return;
    }
    for (const line of lines) {
      if (part.removed) rows.push(row("-", oldNo++, "", line));
      else rows.push(row("+", "", newNo++, line));
    }
  });
  const added = parts.filter((p) => p.added).reduce((n, p) => n + p.count, 0);
  const removed = parts.filter((p) => p.removed).reduce((n, p) => n + p.count, 0);
  return h("figure", { class: "diff" },
    h("figcaption", {}, h("span", { class: "path" }, path || "edit"), " ",
      h("span", { class: "add" }, `+${added}`), " ", h("span", { class: "del" }, `−${removed}`)),
    h("div", { class: "lines", tabIndex: 0, role: "region", "aria-label": `diff of ${path || "edit"}` }, rows));
}

function row(sign, oldNo, newNo, text) {
  const kind = sign === "+" ? "add" : sign === "-" ? "del" : "ctx";
  return h("div", { class: `dl ${kind}` },
    h("span", { class: "no", "aria-hidden": "true" }, String(oldNo)),
    h("span", { class: "no", "aria-hidden": "true" }, String(newNo)),
    h("span", { class: "sign" }, sign === "-" ? "−" : sign),
    h("span", { class: "tx" }, text));
}

// editOf reads an edit from a tool call's arguments: the built-in edit
// (old_string → new_string) and write (content), and ACP's and Claude's
// spellings of the same; null when the call is no edit.
export function editOf(title, input) {
  if (!input || typeof input !== "object") return null;
  const path = input.path || input.file_path || input.filePath || "";
  const oldS = input.old_string ?? input.oldText ?? input.old_str;
  const newS = input.new_string ?? input.newText ?? input.new_str;
  if (typeof oldS === "string" && typeof newS === "string") return { path, before: oldS, after: newS };
  if (/write/i.test(title || "") && typeof input.content === "string") return { path, before: "", after: input.content };
  return null;
}

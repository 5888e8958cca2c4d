// Assistant text as markdown: marked renders it, DOMPurify sanitizes the
// HTML (model output is untrusted: no script, no handlers, no forms), and
// highlight.js colours the code blocks after, from their text.
import { marked } from "./vendor/marked/marked.esm.js";
import DOMPurify from "./vendor/dompurify/purify.es.mjs";
import hljs from "./vendor/highlight/highlight.min.js";

marked.setOptions({ gfm: true, breaks: false });

// Links leave the page in a new tab, without an opener or a referrer.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

// render puts text, as sanitized markdown, into el.
export function render(el, text) {
  const html = DOMPurify.sanitize(marked.parse(text || ""), {
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"],
    FORBID_ATTR: ["style"],
  });
  el.innerHTML = html;
  for (const code of el.querySelectorAll("pre code")) {
    hljs.highlightElement(code);
    code.parentElement.tabIndex = 0; // scrollable code is reachable by keyboard
  }
}

// highlight colours one block of code, guessing its language from a path.
export function highlight(el, text, path = "") {
  const ext = (path.match(/\.([a-z0-9]+)$/i) || [])[1];
  const lang = ext && hljs.getLanguage(ext) ? ext : null;
  el.textContent = text;
  if (lang) {
    el.classList.add(`language-${lang}`);
    hljs.highlightElement(el);
  }
}

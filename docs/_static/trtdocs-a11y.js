// Code blocks that scroll (trtdocs-a11y.css says how they look focused): a keyboard reaches
// each block whose lines are wider than the column (tabindex=0, then arrow keys scroll it),
// and a screen reader names it (role=group: a name, no landmark per block). Only blocks that
// scroll get a tab stop, at the width the page has now (a block that fits adds none); a
// block shown later (an opened <details>, another tab of a tab set) is looked at then.
"use strict";
(() => {
  const KINDS = {
    python: "Python code", py: "Python code", ipython3: "Python code", default: "Python code",
    bash: "Shell commands", console: "Shell session", cpp: "C++ code", cmake: "CMake code",
    text: "Text", toml: "TOML", rst: "reStructuredText",
  };
  const kind = (pre) => {
    if (pre.closest(".cell_output")) return "Cell output";
    const box = pre.closest('[class*="highlight-"]');
    const lang = box && [...box.classList].find((c) => c.startsWith("highlight-"));
    return KINDS[lang ? lang.slice("highlight-".length) : ""] || "Code";
  };
  const mark = () => {
    for (const pre of document.querySelectorAll("article .highlight > pre")) {
      const scrolls = pre.scrollWidth > pre.clientWidth + 1 || pre.scrollHeight > pre.clientHeight + 1;
      const marked = pre.hasAttribute("data-trtdocs-scrolls");
      if (scrolls && !marked && !pre.hasAttribute("tabindex")) {
        pre.setAttribute("data-trtdocs-scrolls", "");
        pre.tabIndex = 0;
        pre.setAttribute("role", "group");
        pre.setAttribute("aria-label", kind(pre));
      } else if (!scrolls && marked) {
        for (const a of ["data-trtdocs-scrolls", "tabindex", "role", "aria-label"]) pre.removeAttribute(a);
      }
    }
  };
  let pending = false;
  const later = () => { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; mark(); }); } };
  const start = () => {
    mark();
    // a block's box changes with the window, and from nothing when it is shown
    const sizes = new ResizeObserver(later);
    for (const pre of document.querySelectorAll("article .highlight > pre")) sizes.observe(pre);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
  document.fonts?.ready.then(later);  // widths change when the web fonts arrive
})();

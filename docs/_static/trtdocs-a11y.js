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

// furo's navigation and contents drawers slide off the screen when closed on a narrow
// window. Their links kept the focus there (Tab went through them with nothing seen), and
// their toggles (a <label> for a hidden checkbox: #__navigation, #__toc) took no focus, so a
// keyboard could not open them. A closed drawer that is off the screen is inert; each toggle
// is a button (Enter or Space opens its drawer and moves the focus into it; Escape closes it
// and gives the focus back).
(() => {
  const DRAWERS = [
    [".sidebar-drawer", "__navigation", "Site navigation"],
    [".toc-drawer", "__toc", "Contents of this page"],
  ];
  const away = (el) => {
    const r = el.getBoundingClientRect();
    return r.right <= 0 || r.left >= window.innerWidth;
  };
  const update = () => {
    for (const [selector, toggle] of DRAWERS) {
      const drawer = document.querySelector(selector);
      const box = document.getElementById(toggle);
      if (!drawer || !box) continue;
      drawer.inert = !box.checked && away(drawer);
      for (const icon of document.querySelectorAll(`label[for="${toggle}"][class*="-icon"]`)) {
        icon.setAttribute("aria-expanded", String(box.checked));
      }
    }
  };
  const set = (box, open) => {
    box.checked = open;
    box.dispatchEvent(new Event("change", {bubbles: true}));
  };
  const start = () => {
    for (const [selector, toggle, name] of DRAWERS) {
      const drawer = document.querySelector(selector);
      const box = document.getElementById(toggle);
      if (!drawer || !box) continue;
      const icons = [...document.querySelectorAll(`label[for="${toggle}"][class*="-icon"]`)];
      for (const icon of icons) {
        icon.setAttribute("role", "button");
        icon.tabIndex = 0;
        icon.setAttribute("aria-label", name);
        icon.addEventListener("keydown", (e) => {
          if (e.key !== "Enter" && e.key !== " ") return;
          e.preventDefault();
          set(box, !box.checked);
          if (box.checked) drawer.querySelector("a[href], input, button")?.focus({preventScroll: true});
        });
      }
      drawer.addEventListener("keydown", (e) => {
        if (e.key !== "Escape" || !box.checked) return;
        set(box, false);
        icons.find((i) => i.checkVisibility())?.focus();
      });
      // opened: at once (its links are on their way in); closed: once it has slid away
      box.addEventListener("change", () => {
        if (box.checked) drawer.inert = false;
        update();
      });
      drawer.addEventListener("transitionend", update);
    }
    window.addEventListener("resize", update);
    update();
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();

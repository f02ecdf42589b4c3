// Tables (trtdocs.site.tables): a table marked trtdocs-stack becomes one block per row
// (class trtdocs-stacked, laid out by trtdocs.css) on a phone, and at any width where its
// columns do not fit the page's column. Without scripts, furo's wrapper scrolls it.
"use strict";
(() => {
  const NARROW = window.matchMedia("(max-width: 40em)");
  const lay = () => {
    for (const table of document.querySelectorAll("article table.trtdocs-stack")) {
      table.classList.remove("trtdocs-stacked");
      const box = table.closest(".table-wrapper") || table.parentElement;
      if (NARROW.matches || box.scrollWidth > box.clientWidth + 1) table.classList.add("trtdocs-stacked");
    }
  };
  let pending = false;
  const later = () => { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; lay(); }); } };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", lay); else lay();
  window.addEventListener("resize", later);
  document.fonts?.ready.then(later);  // widths change when the web fonts arrive
})();

// Tichu Arena pages: the light or dark theme. Loaded in the head, so that a chosen theme
// applies before the page is drawn. Until the header's toggle is used the system's choice
// applies (prefers-color-scheme); the toggle flips the theme shown and the browser keeps the
// choice (localStorage) for every page of the site.
(function () {
  "use strict";
  var KEY = "tichu-arena-theme";
  var root = document.documentElement;
  var system = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var picked = null;  // the choice on this page, should the browser refuse to store it

  function chosen() {
    try { return localStorage.getItem(KEY) || picked; } catch (e) { return picked; }
  }

  function shown() {
    var theme = chosen();
    if (theme === "light" || theme === "dark") return theme;
    return system && system.matches ? "dark" : "light";
  }

  function label() {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    var other = shown() === "dark" ? "light" : "dark";
    button.textContent = other === "dark" ? "\u263E Dark theme" : "\u2600 Light theme";
    button.setAttribute("aria-label", "Switch to the " + other + " theme");
  }

  function apply() {
    var theme = chosen();
    if (theme === "light" || theme === "dark") root.setAttribute("data-theme", theme);
    else root.removeAttribute("data-theme");
    label();
  }

  apply();
  if (system && system.addEventListener) system.addEventListener("change", label);
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    label();
    if (!button) return;
    button.addEventListener("click", function () {
      var next = shown() === "dark" ? "light" : "dark";
      picked = next;
      try { localStorage.setItem(KEY, next); } catch (e) { /* kept for this page only */ }
      root.setAttribute("data-theme", next);
      label();
    });
  });
})();

/* The scenario editor (/author): what htmx cannot do by itself. Line numbers beside the text
   (kept in step as you type and scroll, lines with an error marked), the error list's "Line N"
   buttons (put the caret on that line), the preview's view tabs (the ARIA tabs pattern, the view
   kept across checks in the form's `view` field), Copy link, and the save's refusals (4xx)
   shown where the save answers. Everything else is htmx attributes in templates/author/. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };

  function badLines() {
    var found = {};
    document.querySelectorAll("#author-errors li[data-line]").forEach(function (li) {
      found[li.dataset.line] = true;
    });
    return found;
  }

  function number() {
    var text = $("author-text"), gutter = $("author-gutter");
    if (!text || !gutter) return;
    var lines = text.value.split("\n").length, bad = badLines(), parts = [];
    for (var n = 1; n <= lines; n += 1) {
      parts.push(bad[n] ? '<span class="bad">' + n + "</span>" : "<span>" + n + "</span>");
    }
    gutter.innerHTML = parts.join("\n") + "\n";  /* digits and our own tags only */
    gutter.scrollTop = text.scrollTop;
  }

  function gotoLine(line) {
    var text = $("author-text");
    var lines = text.value.split("\n"), start = 0;
    for (var i = 0; i < Math.min(line - 1, lines.length - 1); i += 1) start += lines[i].length + 1;
    var end = start + (lines[Math.min(line - 1, lines.length - 1)] || "").length;
    text.focus();
    text.setSelectionRange(start, end);
    var height = text.scrollHeight / Math.max(1, lines.length);
    text.scrollTop = Math.max(0, (line - 4) * height);
    number();
  }

  function showView(name, focus) {
    var tabs = $("tabs");
    if (!tabs) return;
    tabs.dataset.view = name;
    tabs.querySelectorAll('[role="tab"]').forEach(function (tab) {
      var on = tab.id === "tab-" + name;
      tab.setAttribute("aria-selected", on ? "true" : "false");
      tab.setAttribute("tabindex", on ? "0" : "-1");
      if (on && focus) tab.focus();
    });
    var field = $("author-view");
    if (field) field.value = name;
  }

  function prepare() {
    var lab = $("author-lab"), field = $("author-view");
    if (lab) lab.classList.add("tabbed");
    if (field && $("tabs")) showView(field.value || "overview", false);
    number();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var text = $("author-text");
    if (!text) return;
    text.addEventListener("input", number);
    text.addEventListener("scroll", function () { $("author-gutter").scrollTop = text.scrollTop; });
    prepare();
  });

  document.addEventListener("click", function (event) {
    var t = event.target.closest ? event.target : null;
    if (!t) return;
    var line = t.closest(".goto-line");
    if (line) { gotoLine(Number(line.dataset.line)); return; }
    var tab = t.closest('#tabs [role="tab"]');
    if (tab) { showView(tab.id.replace("tab-", ""), true); return; }
    if (t.closest("#author-copy")) {
      var link = $("author-link"), button = $("author-copy"), head = $("masthead");
      var said = function (ok) {
        button.textContent = head ? head.dataset[ok ? "msgCopied" : "msgCopyFailed"] : button.textContent;
      };
      if (navigator.clipboard) {
        navigator.clipboard.writeText(link.value).then(function () { said(true); }, function () {
          link.select(); said(false);
        });
      } else { link.select(); said(false); }
    }
  });

  /* The ARIA tabs pattern: ← → Home End move between the preview's view tabs. */
  document.addEventListener("keydown", function (event) {
    var tab = event.target.closest && event.target.closest('#tabs [role="tab"]');
    if (!tab || ["ArrowLeft", "ArrowRight", "Home", "End"].indexOf(event.key) < 0) return;
    var tabs = Array.prototype.slice.call(document.querySelectorAll('#tabs [role="tab"]'));
    var at = tabs.indexOf(tab);
    var to = event.key === "ArrowRight" ? (at + 1) % tabs.length
      : event.key === "ArrowLeft" ? (at - 1 + tabs.length) % tabs.length
      : event.key === "Home" ? 0 : tabs.length - 1;
    event.preventDefault();
    showView(tabs[to].id.replace("tab-", ""), true);
  });

  /* A refused save answers 400/403/409: show its sentence where the save answers. */
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "author-saved" && event.detail.xhr.status >= 400) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
  /* A text far past the bound is refused before it is read (413): say so beside the text. */
  document.addEventListener("htmx:responseError", function (event) {
    var status = $("author-status");
    if (status && event.detail.target && event.detail.target.id === "author-result") {
      status.textContent = status.dataset.refused;
    }
  });
  document.addEventListener("htmx:afterSettle", prepare);
})();

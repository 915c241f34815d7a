/* The handout's Print button: the only thing on the page HTML cannot do by itself. */
(function () {
  "use strict";
  var button = document.getElementById("btn-print");
  if (button) button.addEventListener("click", function () { window.print(); });
})();

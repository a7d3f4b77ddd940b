// Tichu Arena live game: keeps the table of a game in progress up to date from the server's
// server-sent events at #live's data-events: a "table" event's data is the table's HTML as
// the server's views wrote it (public information only, every text escaped there), an "end"
// event means the game is over: its data is the line saying how it ended, with the link to
// the full replay (HTML, the server's views'), or "over" when the server has none to say;
// the full replay, with every hand, is at data-replay.
(function () {
  "use strict";
  var box = document.getElementById("live");
  if (!box || !window.EventSource) return;
  var table = document.getElementById("live-table");
  var status = document.getElementById("live-status");
  var source = new EventSource(box.getAttribute("data-events"));

  function say(text, href) {
    status.textContent = text;
    if (href) {
      var link = document.createElement("a");
      link.href = href;
      link.textContent = "Open the replay, with every hand.";
      status.appendChild(document.createTextNode(" "));
      status.appendChild(link);
    }
  }

  source.addEventListener("table", function (e) { table.innerHTML = e.data; });
  source.addEventListener("end", function (e) {
    source.close();
    box.classList.add("over");
    if (e.data && e.data !== "over") status.innerHTML = e.data;
    else say("The game is over.", box.getAttribute("data-replay"));
  });
  source.addEventListener("error", function () {
    if (source.readyState === EventSource.CLOSED) say("The connection to the server is closed: reload the page to follow the game.");
  });
})();

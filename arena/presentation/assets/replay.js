// Tichu Arena replay viewer: steps through a recorded game event by event, trick by trick,
// round by round, showing all four hands (after the game the record is omniscient).
// Game data comes from a script (so that the page works from file://) that calls
// tichuReplay.add(id, base64 of the gzipped JSON of the record's events and outcome): by
// default games/<id>.js for the id in the URL's fragment, or the data-script of #replay.
// The markup is not written here: the page holds it in <template>s written by the same
// Python views as the live pages (arena/presentation/table_view.py), and this script
// clones them and fills the elements marked data-slot.
(function () {
  "use strict";
  var view = { game: null, steps: [], index: 0 };
  var root = document.getElementById("replay");
  var T = window.tichuCards;  // cards.js
  var faces = T.faces, words = T.words, el = T.el, template = T.template;
  var cardNode = T.cardNode, slot = T.slot, fill = T.fill, show = T.show;

  function cards(list, sort) { return T.cards(list, sort === false); }

  function seatEntrant(seat) {
    return view.game.seats ? view.game.seats[seat] : view.game.teams[seat % 2];  // mixed partners: each seat's own
  }

  function seatName(seat) {
    return "Seat " + seat + " (" + seatEntrant(seat) + ")";
  }

  function without(hand, gone) {
    return hand.filter(function (c) { return gone.indexOf(c) < 0; });
  }

  function describe(e) {
    var who = e.seat !== undefined ? seatName(e.seat) : "";
    switch (e.kind) {
      case "round_start": return "Round " + e.round + " begins (scores " + e.scores.join(" : ") + ").";
      case "deal": return who + " is dealt " + e.cards.length + " cards.";
      case "grand_tichu": return e.call ? who + " calls GRAND TICHU!" : who + ": no Grand Tichu.";
      case "exchange": return who + " gives " + e.given.join(", ") + " (to the left, partner, right) and receives " + e.received.join(", ") + ".";
      case "tichu": return who + " calls TICHU!";
      case "play":
        var text = who + " plays " + e.combination.replace(/_/g, " ") + ": " + e.cards.join(" ");
        if (e.phoenix_as) text += " (Phoenix as " + e.phoenix_as + ")";
        if (e.combination === "four_bomb" || e.combination === "straight_flush") text += " \u2014 BOMB" + (e.out_of_turn ? ", out of turn" : "");
        return text + ".";
      case "pass": return who + " passes.";
      case "wish": return who + " wishes for a " + e.rank + ".";
      case "wish_fulfilled": return who + " fulfils the wish for a " + e.rank + ".";
      case "dog": return who + " leads the Dog: the lead goes to " + seatName(e.to) + ".";
      case "trick":
        if (e.taker !== e.seat) return seatName(e.seat) + " wins the trick with the Dragon and gives it to " + seatName(e.taker) + " (" + e.points + " points).";
        return who + " takes the trick (" + e.points + " points).";
      case "out": return who + " goes out (place " + e.place + ").";
      case "round_end":
        return "Round over: card points " + e.card_points.join("/") + ", calls " + e.calls.join("/") +
          (e.double_victory ? ", DOUBLE VICTORY" : "") + "; scores " + e.scores.join(" : ") + ".";
      case "game_end": return "Game over: " + e.scores.join(" : ") + "; " + view.game.teams[e.winner] + " wins.";
      case "fault": return e.failures.map(function (f) {
        return seatName(f.seat) + " forfeits: " + f.kind.replace(/_/g, " ") + " in round " + f.round + ", decision " + f.decision + ".";
      }).join(" ");
      default: return e.kind;
    }
  }

  function fresh() {
    return { round: 0, hands: [[], [], [], []], trick: [], out: [], grand: [false, false, false, false],
      tichu: [false, false, false, false], wish: null, taken: [0, 0, 0, 0], scores: [0, 0],
      exchange: [null, null, null, null], tricks: 0, roundStart: 0, lastTrick: null, mover: -1 };
  }

  function copy(s) {
    return { round: s.round, hands: s.hands.map(function (h) { return h.slice(); }),
      trick: s.trick.slice(), out: s.out.slice(), grand: s.grand.slice(), tichu: s.tichu.slice(),
      wish: s.wish, taken: s.taken.slice(), scores: s.scores.slice(), exchange: s.exchange.slice(),
      tricks: s.tricks, roundStart: s.roundStart, lastTrick: s.lastTrick, mover: s.mover };
  }

  function apply(s, e, index) {
    if (s.lastTrick !== null && e.kind !== "trick" && e.kind !== "dog") { s.trick = []; s.lastTrick = null; }
    s.mover = e.seat === undefined ? -1 : e.seat;
    switch (e.kind) {
      case "round_start":
        var next = fresh();
        next.round = e.round; next.scores = e.scores.slice(); next.roundStart = index;
        return next;
      case "deal": s.hands[e.seat] = s.hands[e.seat].concat(e.cards); break;
      case "grand_tichu": s.grand[e.seat] = e.call; break;
      case "exchange":
        s.hands[e.seat] = without(s.hands[e.seat], e.given).concat(e.received);
        s.exchange[e.seat] = e;
        break;
      case "tichu": s.tichu[e.seat] = true; break;
      case "play":
        s.hands[e.seat] = without(s.hands[e.seat], e.cards);
        s.trick.push(e);
        break;
      case "pass": s.trick.push(e); break;
      case "wish": s.wish = e.rank; break;
      case "wish_fulfilled": s.wish = null; break;
      case "dog": s.lastTrick = e; break;
      case "trick": s.taken[e.taker] += e.points; s.tricks += 1; s.lastTrick = e; break;
      case "out": s.out.push(e.seat); break;
      case "round_end": s.scores = e.scores.slice(); break;
      case "game_end": s.scores = e.scores.slice(); break;
    }
    return s;
  }

  // A game that ended by a fault ends with it: one more step, the table as the fault left it.
  function buildSteps(game) {
    var steps = [], s = fresh();
    game.events.forEach(function (e, index) {
      s = apply(s, e, index);
      steps.push({ event: e, index: index, state: copy(s) });
    });
    if (game.failures && game.failures.length) {
      var fault = { kind: "fault", failures: game.failures };
      s.mover = game.failures[0].seat;
      steps.push({ event: fault, index: game.events.length, state: copy(s) });
    }
    return steps;
  }

  // Where the viewer opens: the first event, or (data-start="dealt") the first hands dealt.
  function firstStep() {
    if (root.getAttribute("data-start") !== "dealt") return 0;
    var dealt = 0, last = 0;
    for (var k = 0; k < view.steps.length && dealt < 4; k++) {
      if (view.steps[k].event.kind === "deal") { dealt += 1; last = k; }
    }
    return last;
  }

  function isBomb(e) {
    return e.combination === "four_bomb" || e.combination === "straight_flush";
  }

  function fillSeat(box, seat, s) {
    fill(box, "name", seatEntrant(seat));
    if (s.mover === seat) box.classList.add("to-move");
    show(box, "grand", s.grand[seat]);
    show(box, "tichu", s.tichu[seat]);
    var place = s.out.indexOf(seat);
    show(box, "out", place >= 0);
    fill(box, "place", String(place + 1));
    fill(box, "hand", cards(s.hands[seat]));
    fill(box, "count", String(s.hands[seat].length));
    fill(box, "taken", String(s.taken[seat]));
    var ex = s.exchange[seat];
    show(box, "exchange", !!ex);
    if (ex) { fill(box, "given", cards(ex.given, false)); fill(box, "received", cards(ex.received, false)); }
  }

  function playTag(e) {
    if (e.kind === "pass") return "pass";
    var text = e.combination === "dog" ? "the Dog" : (words[e.combination] || e.combination);
    if (e.phoenix_as) text += ", Phoenix as " + e.phoenix_as;
    if (e.out_of_turn) text += ", out of turn";
    return text;
  }

  function fillTrick(box, s) {
    var number = s.tricks + (s.lastTrick && s.lastTrick.kind === "trick" ? 0 : 1);
    fill(box, "round", "Round " + s.round);
    fill(box, "trick-number", "trick " + number);
    fill(box, "scores", s.scores.join(" : "));
    show(box, "wish", !!s.wish);
    fill(box, "wish-rank", s.wish || "");
    var top = -1;
    s.trick.forEach(function (e, k) { if (e.kind !== "pass") top = k; });
    var plays = document.createDocumentFragment();
    s.trick.forEach(function (e, k) {
      var line = template("play-template").firstElementChild.cloneNode(true);
      line.className = e.kind === "pass" ? "pass" : "play" + (isBomb(e) ? " bomb" : "") + (k === top ? " top" : "");
      line.setAttribute("data-seat", String(e.seat));
      fill(line, "who", "Seat " + e.seat);
      fill(line, "cards", e.kind === "pass" ? "" : cards(e.cards));
      fill(line, "tag", playTag(e));
      plays.appendChild(line);
    });
    fill(box, "plays", plays);
    show(box, "trick-end", !!s.lastTrick);
    fill(box, "trick-end", s.lastTrick ? describe(s.lastTrick) : "");
  }

  function drawTable(step) {
    var table = template("table-template").firstElementChild.cloneNode(true);
    for (var seat = 0; seat < 4; seat++) fillSeat(table.querySelector("#seat-" + seat), seat, step.state);
    fillTrick(table.querySelector("#trick"), step.state);
    return table;
  }

  function render() {
    var step = view.steps[view.index];
    root.textContent = "";
    root.setAttribute("data-step", String(view.index));
    root.setAttribute("data-kind", step.event.kind);
    var counter = el("div", "counter", "Event " + (view.index + 1) + " of " + view.steps.length);
    counter.id = "step-counter";
    root.appendChild(counter);
    var detail = step.event.kind === "fault" && document.getElementById("fault-event");
    var event = el("div", "event" + (isBomb(step.event) ? " bomb" : "") + (step.event.kind === "fault" ? " fault" : ""),
      detail ? undefined : describe(step.event));
    event.id = "event-text";
    if (detail) {  // the server's words for it: with the bot's output, to its author
      var box = el("div", "fault-detail");
      box.id = "fault-detail";
      box.appendChild(detail.content.cloneNode(true));
      event.appendChild(box);
    }
    root.appendChild(event);
    root.appendChild(drawTable(step));
    root.appendChild(el("h3", "", "This round"));
    var log = el("ol", "log");
    log.id = "round-log";
    for (var k = step.state.roundStart; k < view.steps.length; k++) {
      var e = view.steps[k].event;
      if (k > step.state.roundStart && e.kind === "round_start") break;
      var item = el("li", k === view.index ? "current" : "", describe(e));
      item.setAttribute("data-step", String(k));
      item.addEventListener("click", function () { go(parseInt(this.getAttribute("data-step"), 10)); });
      log.appendChild(item);
    }
    root.appendChild(log);
    var current = log.querySelector(".current");
    if (current) log.scrollTop = current.offsetTop - log.clientHeight / 2;  // the page stays put
  }

  function go(index) {
    view.index = Math.max(0, Math.min(view.steps.length - 1, index));
    render();
  }

  function seek(kind, direction) {
    for (var k = view.index + direction; k >= 0 && k < view.steps.length; k += direction) {
      if (view.steps[k].event.kind === kind) { go(k); return; }
    }
    go(direction > 0 ? view.steps.length - 1 : 0);
  }

  function meta(game) {
    var box = document.getElementById("replay-meta");
    var title = document.getElementById("replay-title");
    if (!title.hasAttribute("data-fixed")) {  // a server's page keeps the title it wrote
      title.textContent = "Replay: " + game.teams[0] + " vs " + game.teams[1];
      document.title = "Replay " + game.game_id;
    }
    var items = [["Game", game.game_id], ["Team 0 (seats 0, 2)", game.teams[0]], ["Team 1 (seats 1, 3)", game.teams[1]],
      ["Final score", game.scores.join(" : ") + (game.winner === null ? "" : ", " + game.teams[game.winner] + " wins")],
      ["Rounds", String(game.rounds)], ["Termination", game.termination + (game.fault ? " (seat " + game.fault.seat + ": " + game.fault.message + ")" : "")],
      ["Seed", String(game.seed)], ["Isolation", game.isolation]];
    var dl = el("dl", "facts");
    items.forEach(function (kv) { dl.appendChild(el("dt", "", kv[0])); dl.appendChild(el("dd", "", kv[1])); });
    box.textContent = "";
    box.appendChild(dl);
  }

  function decode(b64) {
    var binary = atob(b64), bytes = new Uint8Array(binary.length);
    for (var k = 0; k < binary.length; k++) bytes[k] = binary.charCodeAt(k);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  function wanted() {
    return root.getAttribute("data-game") || location.hash.slice(1);
  }

  window.tichuReplay = {
    add: function (id, packed) {
      if (id !== wanted()) return;
      decode(packed).then(function (game) {
        view.game = game;
        view.steps = buildSteps(game);
        meta(game);
        var controls = document.getElementById("replay-controls");
        if (controls) controls.removeAttribute("hidden");
        go(firstStep());
        root.focus({ preventScroll: true });  // the page stays at its top, on its title
      }, function (err) { root.textContent = "Cannot read the replay data: " + err; });
    }
  };

  function load() {
    var id = wanted();
    if (!id) return;
    root.textContent = "Loading " + id + "\u2026";
    var script = document.createElement("script");
    script.src = root.getAttribute("data-script") || "games/" + encodeURIComponent(id) + ".js";
    script.onerror = function () { root.textContent = "No replay data for game " + id + " in this report."; };
    document.body.appendChild(script);
  }

  document.addEventListener("keydown", function (e) {
    if (!view.steps.length || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest && e.target.closest("input, textarea, select")) return;  // typing a token
    var keys = {
      ArrowRight: function () { go(view.index + 1); }, ArrowLeft: function () { go(view.index - 1); },
      ArrowDown: function () { seek("trick", 1); }, PageDown: function () { seek("trick", 1); },
      ArrowUp: function () { seek("trick", -1); }, PageUp: function () { seek("trick", -1); },
      n: function () { seek("round_start", 1); }, p: function () { seek("round_start", -1); },
      Home: function () { go(0); }, End: function () { go(view.steps.length - 1); }
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  var seekKinds = { trick: "trick", round: "round_start" };
  Array.prototype.forEach.call(document.querySelectorAll("#replay-controls button"), function (button) {
    button.addEventListener("click", function () {
      if (!view.steps.length) return;
      var kind = button.getAttribute("data-seek"), direction = parseInt(button.getAttribute("data-direction"), 10);
      if (kind === "event") go(view.index + direction); else seek(seekKinds[kind], direction);
    });
  });
  window.addEventListener("hashchange", load);
  load();
})();

// Tichu Arena replay viewer: steps through a recorded game event by event, trick by trick,
// round by round, showing all four hands (after the game the record is omniscient).
// Game data comes from games/<id>.js (a script, so that the page works from file://):
// tichuReplay.add(id, base64 of the gzipped JSON of the record's events and outcome).
(function () {
  "use strict";
  var ORDER = "23456789TJQKA";
  var SUIT_NAMES = { j: "jade", s: "sword", p: "pagoda", t: "star" };
  var SUIT_MARKS = { j: "\u2663", s: "\u2660", p: "\u2666", t: "\u2605" };
  var view = { game: null, steps: [], index: 0 };
  var root = document.getElementById("replay");

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardValue(card) {
    if (card === "Dog") return 0;
    if (card === "Mahjong") return 1;
    if (card === "Phoenix") return 15;
    if (card === "Dragon") return 16;
    return ORDER.indexOf(card[0]) + 2 + "jspt".indexOf(card[1]) / 10;
  }

  function cardNode(card) {
    if (card.length > 2) return el("span", "card special", card);
    var node = el("span", "card " + card[1], card[0] + SUIT_MARKS[card[1]]);
    node.title = card[0] + " of " + SUIT_NAMES[card[1]];
    return node;
  }

  function cards(list) {
    var span = el("span", "cards");
    list.slice().sort(function (a, b) { return cardValue(a) - cardValue(b); })
      .forEach(function (c) { span.appendChild(cardNode(c)); });
    return span;
  }

  function seatName(seat) {
    var who = view.game.seats ? view.game.seats[seat] : view.game.teams[seat % 2];  // mixed partners: each seat's own
    return "Seat " + seat + " (" + who + ")";
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
    if (s.lastTrick !== null && e.kind !== "trick") { s.trick = []; s.lastTrick = null; }
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
      case "trick": s.taken[e.taker] += e.points; s.tricks += 1; s.lastTrick = e; break;
      case "out": s.out.push(e.seat); break;
      case "round_end": s.scores = e.scores.slice(); break;
      case "game_end": s.scores = e.scores.slice(); break;
    }
    return s;
  }

  function buildSteps(game) {
    var steps = [], s = fresh();
    game.events.forEach(function (e, index) {
      s = apply(s, e, index);
      steps.push({ event: e, index: index, state: copy(s) });
    });
    return steps;
  }

  function seatBox(seat, step) {
    var s = step.state;
    var box = el("div", "seat s" + seat + (s.mover === seat ? " to-move" : ""));
    box.id = "seat-" + seat;
    var title = el("h3", "", seatName(seat));
    if (s.grand[seat]) title.appendChild(el("span", "badge gt", "Grand Tichu"));
    if (s.tichu[seat]) title.appendChild(el("span", "badge", "Tichu"));
    var place = s.out.indexOf(seat);
    if (place >= 0) title.appendChild(el("span", "badge out", "out #" + (place + 1)));
    box.appendChild(title);
    var hand = el("div", "hand");
    hand.appendChild(cards(s.hands[seat]));
    hand.appendChild(el("span", "count", " (" + s.hands[seat].length + ")"));
    box.appendChild(hand);
    box.appendChild(el("div", "taken", "Points taken: " + s.taken[seat]));
    var ex = s.exchange[seat];
    if (ex) box.appendChild(el("div", "exchange", "Exchange: gave " + ex.given.join(" ") + ", got " + ex.received.join(" ")));
    return box;
  }

  function center(step) {
    var s = step.state, box = el("div", "center");
    box.id = "trick";
    box.appendChild(el("div", "", "Round " + s.round + " \u00b7 trick " + (s.tricks + (s.lastTrick ? 0 : 1)) +
      " \u00b7 scores " + s.scores.join(" : ") + (s.wish ? " \u00b7 wish: " + s.wish : "")));
    s.trick.forEach(function (e) {
      var line = el("div", e.kind === "pass" ? "pass" : "play");
      line.appendChild(el("span", "", "Seat " + e.seat + ": "));
      if (e.kind === "pass") line.appendChild(el("span", "", "pass"));
      else {
        line.appendChild(cards(e.cards));
        if (e.combination === "four_bomb" || e.combination === "straight_flush") line.appendChild(el("span", "bomb", " BOMB"));
      }
      box.appendChild(line);
    });
    if (s.lastTrick) box.appendChild(el("div", "taken", describe(s.lastTrick)));
    return box;
  }

  function render() {
    var step = view.steps[view.index];
    root.textContent = "";
    root.setAttribute("data-step", String(view.index));
    root.setAttribute("data-kind", step.event.kind);
    var counter = el("div", "counter", "Event " + (view.index + 1) + " of " + view.steps.length);
    counter.id = "step-counter";
    root.appendChild(counter);
    var event = el("div", "event" + (step.event.combination === "four_bomb" || step.event.combination === "straight_flush" ? " bomb" : ""), describe(step.event));
    event.id = "event-text";
    root.appendChild(event);
    var area = el("div", "table-area");
    [2, 3, 1, 0].forEach(function (seat) { area.appendChild(seatBox(seat, step)); });
    area.appendChild(center(step));
    root.appendChild(area);
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
    document.getElementById("replay-title").textContent = "Replay: " + game.teams[0] + " vs " + game.teams[1];
    document.title = "Replay " + game.game_id;
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

  window.tichuReplay = {
    add: function (id, packed) {
      if (id !== location.hash.slice(1)) return;
      decode(packed).then(function (game) {
        view.game = game;
        view.steps = buildSteps(game);
        meta(game);
        go(0);
        root.focus();
      }, function (err) { root.textContent = "Cannot read the replay data: " + err; });
    }
  };

  function load() {
    var id = location.hash.slice(1);
    if (!id) return;
    root.textContent = "Loading " + id + "\u2026";
    var script = document.createElement("script");
    script.src = "games/" + encodeURIComponent(id) + ".js";
    script.onerror = function () { root.textContent = "No replay data for game " + id + " in this report."; };
    document.body.appendChild(script);
  }

  document.addEventListener("keydown", function (e) {
    if (!view.steps.length || e.altKey || e.ctrlKey || e.metaKey) return;
    var keys = {
      ArrowRight: function () { go(view.index + 1); }, ArrowLeft: function () { go(view.index - 1); },
      ArrowDown: function () { seek("trick", 1); }, PageDown: function () { seek("trick", 1); },
      ArrowUp: function () { seek("trick", -1); }, PageUp: function () { seek("trick", -1); },
      n: function () { seek("round_start", 1); }, p: function () { seek("round_start", -1); },
      Home: function () { go(0); }, End: function () { go(view.steps.length - 1); }
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  window.addEventListener("hashchange", load);
  load();
})();

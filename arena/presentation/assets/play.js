// Tichu Arena seat game: a person plays one seat in the browser.
// The server's events at #play's data-events are the seat's own stream: a "message" event's
// data is one protocol message the referee sent this seat (welcome, events, request, end, as
// protocol/PROTOCOL.md section 5 defines them; its id is the message's index from 0), a
// "status" event's data is {state, text, replay}. Nothing else reaches the page: the table is
// drawn from those messages only, with the live view's markup cloned from <template>s
// (arena/presentation/table_view.py). Answers go to data-answer as JSON
// {request_id, action[, call_tichu][, wish]}; a 400 answer's rule is shown and the person is
// asked again. The server puts to the person only the bomb windows their choice of the start
// form asks about (ask, every, never); those of a trick after "skip" are declined here (a
// pass), as `arena play human` does.
(function () {
  "use strict";
  var root = document.getElementById("play");
  if (!root || !window.EventSource) return;
  var me = parseInt(root.getAttribute("data-seat"), 10);
  var csrf = root.getAttribute("data-csrf");
  var POSITIONS = ["south", "east", "north", "west"];
  var BOMBS = ["four_bomb", "straight_flush"];
  var TRICK_ENDS = ["trick", "dog", "round_start", "round_end"];
  var RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];
  var T = window.tichuCards;  // cards.js
  var faces = T.faces, words = T.words, el = T.el, template = T.template;
  var cardNode = T.cardNode, sorted = T.sorted, cards = T.cards;
  var slot = T.slot, fill = T.fill, show = T.show;
  var s = {
    names: JSON.parse(root.getAttribute("data-names")), target: 1000, last: -1,
    events: [], obs: null, request: null, logFrom: 0, logTo: 0, seen: 0, end: null, status: null,
    selected: [], give: [null, null, null], pending: false, error: "",
    skipFrom: null
  };

  function $(id) { return document.getElementById(id); }

  function cardWords(card) {
    var face = faces[card];
    return face ? face.getAttribute("aria-label") : card;
  }

  function sameSet(a, b) {
    return a.length === b.length && a.every(function (c) { return b.indexOf(c) >= 0; });
  }

  // ----- words ------------------------------------------------------------------------------

  function who(seat) {
    if (seat === me) return "You";
    var role = seat === (me + 2) % 4 ? "partner" : "opponent";
    return "Seat " + seat + " (" + s.names[seat] + ", " + role + ")";
  }

  function combo(e) {
    var text = e.combination === "dog" ? "the Dog" : (words[e.combination] || String(e.combination).replace(/_/g, " "));
    if (e.phoenix_as) text += ", Phoenix as " + e.phoenix_as;
    return text;
  }

  function describe(e) {
    var w = e.seat !== undefined ? who(e.seat) : "";
    switch (e.kind) {
      case "round_start": return "Round " + e.round + " begins; the score is " + e.scores.join(" : ") + ".";
      case "deal": return "You are dealt " + e.cards.length + " cards.";
      case "grand_tichu": return w + (e.call ? " called GRAND TICHU." : ": no Grand Tichu.");
      case "tichu": return w + " called TICHU.";
      case "exchange": return "Exchange: you gave " + e.given.map(cardWords).join(", ") + " and got " + e.received.map(cardWords).join(", ") + ".";
      case "play": return w + " played " + combo(e) + (e.combination === "dog" ? "" : ": " + e.cards.map(cardWords).join(", ")) +
        (BOMBS.indexOf(e.combination) >= 0 ? " (a bomb" + (e.out_of_turn ? ", out of turn)" : ")") : "") + ".";
      case "pass": return w + " passed.";
      case "wish": return w + " wished for " + e.rank + ".";
      case "wish_fulfilled": return w + " fulfilled the wish for " + e.rank + ".";
      case "dog": return w + " led the Dog: the lead goes to " + who(e.to) + ".";
      case "trick":
        if (e.taker !== e.seat) return w + " won the trick with the Dragon and gave it (" + e.points + " points) to " + who(e.taker) + ".";
        return w + " took the trick (" + e.points + " points).";
      case "out": return w + " went out, place " + e.place + ".";
      case "round_end": return "The round is over: card points " + e.card_points.join(" : ") + ", calls " + e.calls.join(" : ") +
        (e.double_victory ? ", a double victory" : "") + "; the score is " + e.scores.join(" : ") + ".";
      case "game_end": return "The game is over: " + e.scores.join(" : ") + ".";
      default: return String(e.kind);
    }
  }

  // ----- the table --------------------------------------------------------------------------

  function roundEvents() {
    var start = 0;
    s.events.forEach(function (e, k) { if (e.kind === "round_start") start = k; });
    return s.events.slice(start);
  }

  function trickNow(events) {
    var start = 0;
    events.forEach(function (e, k) { if (TRICK_ENDS.indexOf(e.kind) >= 0) start = k + 1; });
    return { plays: events.slice(start).filter(function (e) { return e.kind === "play" || e.kind === "pass"; }),
      ended: start > 0 && start === events.length ? events[start - 1] : null };
  }

  function seatFacts(events) {
    // what the events of this round say of each seat (the observation says it at requests)
    var f = { left: [8, 8, 8, 8], taken: [0, 0, 0, 0], grand: [false, false, false, false],
      tichu: [false, false, false, false], place: [null, null, null, null], wish: null, scores: null, tricks: 0, decided: 0 };
    events.forEach(function (e) {
      if (e.kind === "round_start") f.scores = e.scores;
      else if (e.kind === "grand_tichu") { f.grand[e.seat] = e.call; if (++f.decided === 4) f.left = [14, 14, 14, 14]; }
      else if (e.kind === "tichu") f.tichu[e.seat] = true;
      else if (e.kind === "play") f.left[e.seat] = Math.max(0, f.left[e.seat] - e.cards.length);
      else if (e.kind === "trick") { f.taken[e.taker] += e.points; f.tricks += 1; }
      else if (e.kind === "out") f.place[e.seat] = e.place;
      else if (e.kind === "wish") f.wish = e.rank;
      else if (e.kind === "wish_fulfilled") f.wish = null;
      else if (e.kind === "round_end" || e.kind === "game_end") f.scores = e.scores;
    });
    return f;
  }

  function fillSeat(box, seat, f) {
    box.className = "seat " + POSITIONS[(seat - me + 4) % 4] + (seat === me ? " me" : " hidden-hand");
    fill(box, "name", seat === me ? "You" : s.names[seat] + (seat === (me + 2) % 4 ? " (partner)" : ""));
    show(box, "grand", f.grand[seat]);
    show(box, "tichu", f.tichu[seat]);
    show(box, "out", f.place[seat] !== null);
    fill(box, "place", f.place[seat] === null ? "" : String(f.place[seat]));
    var hand = slot(box, "hand");
    hand.textContent = "";
    if (seat !== me) {
      for (var k = 0; k < f.left[seat]; k++) hand.appendChild(el("span", "card back"));
    } else hand.setAttribute("hidden", "");
    fill(box, "count", String(f.left[seat]));
    fill(box, "taken", String(f.taken[seat]));
    var swap = s.obs && s.obs.exchange;
    show(box, "exchange", seat === me && !!swap);
    if (seat === me && swap) {
      fill(box, "given", cards(swap.given, true));
      fill(box, "received", cards(swap.received, true));
    }
  }

  function fillTrick(box, f, trick, round) {
    fill(box, "round", round ? "Round " + round : "");
    fill(box, "trick-number", round ? "trick " + (f.tricks + (trick.ended ? 0 : 1)) : "");
    var scores = f.scores || [0, 0], ours = me % 2;
    fill(box, "scores", "your team " + scores[ours] + " : " + scores[1 - ours] + " theirs (to " + s.target + ")");
    show(box, "wish", !!f.wish);
    fill(box, "wish-rank", f.wish || "");
    var top = -1;
    trick.plays.forEach(function (e, k) { if (e.kind !== "pass") top = k; });
    var plays = document.createDocumentFragment();
    trick.plays.forEach(function (e, k) {
      var line = template("play-template").firstElementChild.cloneNode(true);
      line.className = e.kind === "pass" ? "pass" : "play" + (BOMBS.indexOf(e.combination) >= 0 ? " bomb" : "") + (k === top ? " top" : "");
      line.setAttribute("data-seat", String(e.seat));
      fill(line, "who", e.seat === me ? "You" : "Seat " + e.seat);
      fill(line, "cards", e.kind === "pass" ? "" : cards(e.cards));
      fill(line, "tag", e.kind === "pass" ? "pass" : combo(e) + (e.out_of_turn ? ", out of turn" : ""));
      plays.appendChild(line);
    });
    fill(box, "plays", plays);
    show(box, "trick-end", !!trick.ended);
    fill(box, "trick-end", trick.ended ? describe(trick.ended) : "");
  }

  function drawTable() {
    var events = roundEvents();
    var f = seatFacts(events);
    var round = events.length && events[0].kind === "round_start" ? events[0].round : 0;
    if (s.request && s.obs) {  // the observation is the authority while a decision is open
      f.left = s.obs.hand_counts; f.taken = s.obs.points_taken; f.tichu = s.obs.tichu;
      f.wish = s.obs.wish; f.scores = s.obs.scores;
    }
    var table = template("table-template").firstElementChild.cloneNode(true);
    table.id = "table";
    for (var seat = 0; seat < 4; seat++) fillSeat(table.querySelector("#seat-" + seat), seat, f);
    fillTrick(table.querySelector("#trick"), f, trickNow(events), round);
    var box = $("play-table");
    box.textContent = "";
    box.appendChild(table);
  }

  // ----- the hand ---------------------------------------------------------------------------

  function hand() { return s.obs ? s.obs.hand : []; }

  function drawHand() {
    var box = $("play-hand");
    box.textContent = "";
    var kind = s.request && !s.pending ? s.request.kind : null;
    var picking = kind === "play" || kind === "bomb" || kind === "exchange";
    var held = sorted(hand().filter(function (c) { return s.give.indexOf(c) < 0 || kind !== "exchange"; }));
    held.forEach(function (card) {
      var pick = el("button", "pick");
      pick.type = "button";
      pick.setAttribute("data-card", card);
      var chosen = s.selected.indexOf(card) >= 0;
      pick.setAttribute("aria-pressed", chosen ? "true" : "false");
      pick.setAttribute("aria-label", cardWords(card));
      if (chosen) pick.classList.add("chosen");
      pick.disabled = !picking;
      pick.appendChild(cardNode(card));
      pick.addEventListener("click", function () { pickCard(card); });
      box.appendChild(pick);
    });
    $("play-hand-count").textContent = "(" + hand().length + " cards)";
  }

  function pickCard(card) {
    if (!s.request || s.pending) return;
    if (s.request.kind === "exchange") {
      var free = s.give.indexOf(null);
      if (free >= 0) s.give[free] = card;
    } else {
      var at = s.selected.indexOf(card);
      if (at >= 0) s.selected.splice(at, 1); else s.selected.push(card);
    }
    s.error = "";
    draw();
    var again = $("play-hand").querySelector('[data-card="' + card + '"]');
    if (again) again.focus({ preventScroll: true });
  }

  // ----- the decision -----------------------------------------------------------------------

  function button(text, id, action) {
    var b = el("button", "play-button", text);
    b.type = "button";
    if (id) b.id = id;
    b.addEventListener("click", action);
    return b;
  }

  function optionButton(option, k) {
    var b = el("button", "option" + (s.selected.length && sameSet(option.cards, s.selected) ? " chosen" : ""));
    b.type = "button";
    b.setAttribute("data-option", String(k));
    b.appendChild(el("span", "tag", combo(option)));
    b.appendChild(cards(option.cards));
    b.addEventListener("click", function () {
      s.selected = option.cards.slice();
      s.error = "";
      draw();
    });
    return b;
  }

  function matching() {
    var options = s.request.options || [];
    var found = [];
    options.forEach(function (o, k) { if (o.action === "play" && sameSet(o.cards, s.selected)) found.push(k); });
    return found;
  }

  function tichuBox(words) {
    if (!s.request.may_call_tichu) return null;
    var label = el("label", "play-check");
    var box = el("input");
    box.type = "checkbox";
    box.id = "play-call-tichu";
    label.appendChild(box);
    label.appendChild(document.createTextNode(" Call Tichu " + words));
    return label;
  }

  function wishBox() {
    var label = el("label", "play-wish", "Wish for ");
    var select = el("select");
    select.id = "play-wish";
    var none = el("option", "", "no wish");
    none.value = "";
    select.appendChild(none);
    RANKS.forEach(function (r) { var o = el("option", "", r); o.value = r; select.appendChild(o); });
    label.appendChild(select);
    return label;
  }

  function phoenixBox(found) {
    var label = el("label", "play-wish", "The Phoenix stands for ");
    var select = el("select");
    select.id = "play-phoenix";
    found.forEach(function (k) {
      var o = el("option", "", s.request.options[k].phoenix_as || "itself");
      o.value = String(k);
      select.appendChild(o);
    });
    label.appendChild(select);
    return label;
  }

  function flags() {
    var call = $("play-call-tichu"), wish = $("play-wish");
    return { call: !!(call && call.checked), wish: wish && wish.value ? wish.value : null };
  }

  function prompt(text) { $("play-prompt").textContent = text; }

  function onTable() {
    var t = s.obs.table;
    return t ? who(t.seat) + ": " + combo(t) + ", " + t.cards.map(cardWords).join(", ") : "";
  }

  function drawCall(kind) {
    var grand = kind === "grand_tichu";
    prompt(grand ? "Grand Tichu? You have seen your first 8 cards." : "Call Tichu? (100 points if you go out first)");
    var actions = $("play-actions");
    actions.appendChild(button(grand ? "No Grand Tichu" : "No call", "play-no-call", function () { answer(s.request.options[0]); }));
    actions.appendChild(button(grand ? "Call Grand Tichu" : "Call Tichu", "play-call", function () { answer(s.request.options[1]); }));
  }

  function drawExchange() {
    prompt("Exchange: tap three cards of your hand, one for each seat below.");
    var box = $("play-exchange");
    box.removeAttribute("hidden");
    var to = [(me + 1) % 4, (me + 2) % 4, (me + 3) % 4];
    to.forEach(function (seat, k) {
      var place = el("button", "give" + (s.give[k] ? " full" : ""));
      place.type = "button";
      place.id = "play-give-" + k;
      place.appendChild(el("span", "tag", "To " + who(seat)));
      if (s.give[k]) place.appendChild(cardNode(s.give[k]));
      else place.appendChild(el("span", "empty", "(tap a card)"));
      place.addEventListener("click", function () { s.give[k] = null; draw(); });
      box.appendChild(place);
    });
    var call = tichuBox("with the exchange");
    if (call) $("play-extra").appendChild(call);
    var give = button("Give these three cards", "play-give", function () {
      answer({ action: "exchange", give: s.give.slice() }, flags());
    });
    give.disabled = s.give.indexOf(null) >= 0;
    $("play-actions").appendChild(give);
  }

  function drawPlays(kind) {
    var options = s.request.options || [];
    var lead = !s.obs.table;
    if (kind === "bomb") prompt("Bomb window: on the table " + onTable() + ". Bomb now, out of turn?");
    else prompt(lead ? "You lead: choose cards, or one of the plays below." : "Your turn: beat " + onTable() + ", or pass.");
    var list = $("play-options");
    options.forEach(function (o, k) { if (o.action === "play") list.appendChild(optionButton(o, k)); });
    var found = s.selected.length ? matching() : [];
    var extra = $("play-extra");
    if (found.length > 1) extra.appendChild(phoenixBox(found));
    if (s.selected.indexOf("Mahjong") >= 0) extra.appendChild(wishBox());
    var call = tichuBox("with this decision");
    if (call) extra.appendChild(call);
    var actions = $("play-actions");
    var play = button(kind === "bomb" ? "Bomb with the chosen cards" : "Play the chosen cards", "play-play", playChosen);
    play.disabled = !s.selected.length;
    actions.appendChild(play);
    if (options.length && options[0].action === "pass") {
      actions.appendChild(button(kind === "bomb" ? "No bomb" : "Pass", "play-pass", function () { answer(options[0], flags()); }));
    }
    if (kind === "bomb") actions.appendChild(button("Skip: no bomb until this trick ends", "play-skip", skip));
    if (s.selected.length) actions.appendChild(button("Clear", "play-clear", function () { s.selected = []; draw(); }));
  }

  function playChosen() {
    var found = matching();
    var choice = $("play-phoenix");
    var k = choice ? parseInt(choice.value, 10) : found[0];
    var action = k !== undefined ? s.request.options[k]
      : { action: "play", cards: sorted(s.selected), phoenix_as: null, combination: null };
    answer(action, flags());
  }

  function drawDragon() {
    prompt("You won the trick with the Dragon: give it to an opponent.");
    s.request.options.forEach(function (o, k) {
      $("play-actions").appendChild(button("Give it to " + who(o.to), "play-dragon-" + k, function () { answer(o); }));
    });
  }

  function drawDecision() {
    var box = $("play-decision");
    ["play-options", "play-extra", "play-actions", "play-exchange"].forEach(function (id) { $(id).textContent = ""; });
    $("play-exchange").setAttribute("hidden", "");
    var error = $("play-error");
    error.textContent = s.error;
    if (s.error) error.removeAttribute("hidden"); else error.setAttribute("hidden", "");
    if (s.end) { box.setAttribute("hidden", ""); return; }
    box.removeAttribute("hidden");
    if (!s.request || s.pending) {
      box.removeAttribute("data-kind");
      prompt(s.pending ? "Sent: waiting for the other seats..." : "Waiting for the other seats...");
      return;
    }
    var kind = s.request.kind;
    box.setAttribute("data-kind", kind);
    if (kind === "grand_tichu" || kind === "tichu") drawCall(kind);
    else if (kind === "exchange") drawExchange();
    else if (kind === "dragon_gift") drawDragon();
    else drawPlays(kind);
  }

  function drawLog() {
    var log = $("play-log");
    log.textContent = "";
    s.events.slice(s.logFrom, s.logTo).forEach(function (e) {
      if (e.kind === "deal") return;
      var item = el("li", e.kind === "play" && BOMBS.indexOf(e.combination) >= 0 ? "bomb" : "", describe(e));
      item.setAttribute("data-kind", e.kind);
      log.appendChild(item);
    });
    log.scrollTop = log.scrollHeight;
  }

  function draw() {
    drawTable();
    drawHand();
    drawDecision();
    drawLog();
  }

  // ----- answering --------------------------------------------------------------------------

  function answer(action, extra) {
    var request = s.request;
    if (!request || s.pending) return;
    var body = { request_id: request.id, action: action };
    if (extra && extra.call) body.call_tichu = true;
    if (extra && extra.wish && action.cards && action.cards.indexOf("Mahjong") >= 0) body.wish = extra.wish;
    s.pending = true;
    s.error = "";
    draw();
    fetch(root.getAttribute("data-answer"), {
      method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (s.request !== request) return;  // the next message came first
        if (response.ok) { s.selected = []; s.give = [null, null, null]; return; }
        s.pending = false;
        if (response.status === 409) { s.error = data.error || "That decision is no longer open."; }
        else s.error = (data.error || "The server refused that answer.") + " Choose again.";
        draw();
      });
    }, function () {
      if (s.request !== request) return;
      s.pending = false;
      s.error = "The answer did not reach the server: try again.";
      draw();
    });
  }

  function skip() {
    s.skipFrom = s.events.length;
    answer({ action: "pass" });
  }

  function trickOverSince(start) {
    return s.events.slice(start).some(function (e) { return TRICK_ENDS.indexOf(e.kind) >= 0; });
  }

  function skipping() {
    // a bomb window after "skip", in the same trick: declined here
    if (s.skipFrom === null) return false;
    if (!trickOverSince(s.skipFrom)) return true;
    s.skipFrom = null;
    return false;
  }

  // ----- the stream -------------------------------------------------------------------------

  function take(message) {
    var type = message.type;
    if (type === "welcome") {
      s.names = message.settings.names.slice();
      s.target = message.settings.target;
      s.events = []; s.logFrom = s.logTo = s.seen = 0; s.end = null;
    } else if (type === "events") {
      s.events = s.events.concat(message.events);
    } else if (type === "request") {
      s.events = s.events.concat(message.events);
      s.request = message; s.obs = message.observation;
      s.pending = false; s.error = ""; s.selected = []; s.give = [null, null, null];
      var asked = message.kind !== "bomb" || !skipping();
      if (asked) { s.logFrom = s.seen; s.seen = s.events.length; }
      s.logTo = s.events.length;
      if (!asked) {
        s.pending = true;  // declined for the person (not drawn as a decision)
        setTimeout(function () { if (s.request === message) { s.pending = false; answer({ action: "pass" }); } }, 30);
      }
    } else if (type === "end") {
      s.events = s.events.concat(message.events);
      s.logFrom = s.seen; s.seen = s.logTo = s.events.length;
      s.end = message; s.request = null;
      result();
    }
    if (type !== "request") s.request = null;  // an events message comes after the answer
    root.setAttribute("data-messages", String(s.last + 1));
    root.setAttribute("data-request", s.request ? String(s.request.id) : "");
    root.setAttribute("data-kind", s.request ? s.request.kind : "");
    draw();
  }

  function result() {
    var end = s.end;
    var box = $("play-result");
    box.removeAttribute("hidden");
    var ours = me % 2;
    var text = end.reason !== "game_over" ? "The game was stopped before its end." :
      (end.winner === ours ? "Your team wins, " : "Your team loses, ") + end.scores[ours] + " to " + end.scores[1 - ours] + ".";
    $("play-result-text").textContent = text;
  }

  function status(data) {
    s.status = data;
    var line = $("play-status");
    line.textContent = data.text;
    root.setAttribute("data-state", data.state);
    if (data.state === "over" || data.state === "left" || data.state === "failed") {
      var box = $("play-result");
      box.removeAttribute("hidden");
      if (!s.end) $("play-result-text").textContent = data.text;
      s.request = null;
      draw();
      $("play-decision").setAttribute("hidden", "");
    }
    var link = $("play-replay");
    if (data.replay) { link.href = data.replay; link.removeAttribute("hidden"); }
  }

  var source = new EventSource(root.getAttribute("data-events"));
  source.addEventListener("message", function (e) {
    var index = e.lastEventId === "" ? s.last + 1 : parseInt(e.lastEventId, 10);
    if (index <= s.last) return;  // seen already (a stream that started again)
    s.last = index;
    take(JSON.parse(e.data));
  });
  source.addEventListener("status", function (e) {
    var data = JSON.parse(e.data);
    status(data);
    if (data.state === "over" || data.state === "left" || data.state === "failed") source.close();
  });
  source.addEventListener("error", function () {
    if (source.readyState === EventSource.CLOSED && !s.status) $("play-status").textContent = "The connection to the server is closed: reload the page to come back to your game.";
  });

  $("play-leave").addEventListener("click", function () {
    if (!window.confirm("Leave the game? Your team forfeits it.")) return;
    var form = new URLSearchParams();
    form.set("csrf", csrf);
    fetch(root.getAttribute("data-leave"), { method: "POST", credentials: "same-origin", body: form });
  });
})();

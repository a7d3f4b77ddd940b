// Tichu Arena cards: what the replay viewer (replay.js) and the seat game's page (play.js)
// share to draw a table. The page holds the card faces and the combinations' words in
// <template>s (arena/presentation/table_view.py); this script reads them once, and clones
// a face for each card drawn. Load it before either script.
window.tichuCards = (function () {
  "use strict";
  var faces = {}, order = {}, words = {};

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function template(id) {
    var node = document.getElementById(id);
    return node ? node.content : document.createDocumentFragment();
  }

  // The card faces, in the order a hand is sorted, and the combinations' words.
  Array.prototype.forEach.call(template("card-faces").children, function (face, k) {
    faces[face.getAttribute("data-card")] = face;
    order[face.getAttribute("data-card")] = k;
  });
  Array.prototype.forEach.call(template("combination-words").children, function (word) {
    words[word.getAttribute("data-combination")] = word.textContent;
  });

  function cardNode(card) {
    if (faces[card]) return faces[card].cloneNode(true);
    var node = el("span", "card", card);  // not a card of the game: shown as its text
    node.setAttribute("data-card", card);
    return node;
  }

  function sorted(list) {
    return list.slice().sort(function (a, b) {
      return (order[a] === undefined ? 99 : order[a]) - (order[b] === undefined ? 99 : order[b]);
    });
  }

  // The cards of `list` as faces, sorted as a hand is unless `keep` (their order kept).
  function cards(list, keep) {
    var fragment = document.createDocumentFragment();
    (keep ? list : sorted(list)).forEach(function (c) { fragment.appendChild(cardNode(c)); });
    return fragment;
  }

  // The element of `node` marked data-slot="name"; its text or content; shown or hidden.
  function slot(node, name) { return node.querySelector('[data-slot="' + name + '"]'); }

  function fill(node, name, content) {
    var target = slot(node, name);
    target.textContent = "";
    if (typeof content === "string") target.textContent = content;
    else target.appendChild(content);
  }

  function show(node, name, shown) {
    var target = slot(node, name);
    if (shown) target.removeAttribute("hidden"); else target.setAttribute("hidden", "");
  }

  return { faces: faces, words: words, el: el, template: template, cardNode: cardNode,
           sorted: sorted, cards: cards, slot: slot, fill: fill, show: show };
})();

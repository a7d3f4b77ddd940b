"""The rollout policy: the heuristic bot's strategy (bots/heuristic) on engine objects, fast.

Every seat of a playout plays by it, so it is written for speed: card sets stay bitmasks,
the options are the engine's own `Decision` (an option is taken by indexing it, so that the
engine applies it without checking it again), and a lead looks only at the combinations
holding the hand's lowest rank. What it does:

- leads go out when the whole hand is one combination; else they shed the lowest rank in
  the longest combination holding it, without the Phoenix, the Dragon or a bomb's cards and
  without breaking pairs where it can; the Dog goes to a partner who called or whenever it
  scores best; with an opponent on one card, no low single;
- follows beat the table as cheaply as they can and never overtake the partner; the
  Dragon, the Phoenix and bombs only when an opponent is near out or the trick is rich;
- a bomb window bombs an opponent's play when that opponent is near out or the trick rich;
- the Dragon trick goes to the opponent holding more cards;
- calls (Grand Tichu, Tichu) and the exchange follow the heuristic bot's hand strength.

`choose_index` is a decision's choice as an index among its combinations (-1: pass), which
the search also ranks candidates by (`lead_scores`, `follow_scores`).
"""

from __future__ import annotations

from arena.rules import PASS, Action, Decision, DecisionKind, Game, GiveDragon
from arena.rules.actions import OnlyPass
from arena.rules.cards import (
    DOG_BIT,
    DRAGON,
    DRAGON_BIT,
    MAHJONG,
    MAHJONG_BIT,
    PHOENIX,
    PHOENIX_BIT,
    SUITED_MASK,
    cards_of,
    points,
    rank_mask,
)
from arena.rules.combos import DOG_T, FOUR_T, SINGLE_T, Combination

_PLAY, _BOMB, _DRAGON_GIFT = DecisionKind.PLAY, DecisionKind.BOMB, DecisionKind.DRAGON_GIFT
_NIBBLE_LOW = sum(1 << (4 * r) for r in range(13))
_RANK_OF_LOWEST = {1 << c: rank_mask((c >> 2) + 2) for c in range(52)}
NEVER = -1e9


def choose(game: Game, seat: int, decision: Decision) -> Action:
    """The policy's action for `seat`'s `decision` (of the phases of play) in `game`."""
    options = decision.options
    if type(options) is OnlyPass:
        return PASS
    kind = decision.kind
    if kind is _DRAGON_GIFT:
        hands = game.hands
        right, left = (seat + 1) & 3, (seat + 3) & 3
        return GiveDragon(left if hands[left].bit_count() > hands[right].bit_count() else right)
    index = choose_index(game, seat, decision)
    if index < 0:
        return PASS
    return options[index + options.can_pass]  # type: ignore[attr-defined]  # PlayOptions


def choose_index(game: Game, seat: int, decision: Decision) -> int:
    """The policy's choice at a PLAY or BOMB decision: an index among the options'
    combinations, or -1 to pass (decline)."""
    options = decision.options
    combos: list[Combination] = options.combinations  # type: ignore[attr-defined]
    if not combos:
        return -1
    if decision.kind is _BOMB:
        return bomb_index(game, seat, combos)
    if game.table is None:
        return _best(lead_scores(game, seat, combos), NEVER)
    can_pass: bool = options.can_pass  # type: ignore[attr-defined]
    if game.table.type is SINGLE_T and (can_pass or game.table_seat != seat ^ 2):
        return _follow_single(game, seat, combos, can_pass)
    return _best(follow_scores(game, seat, combos), 0.0 if can_pass else NEVER)


def _follow_single(game: Game, seat: int, combos: list[Combination], can_pass: bool) -> int:
    """`follow_scores`' choice on a single, in one pass that stops at the first single that
    costs nothing (the singles come lowest first, and none after it scores more)."""
    hand = game.hands[seat]
    table_seat = game.table_seat
    if table_seat == seat ^ 2:
        return -1
    for i in range(len(combos) - 1, -1, -1):  # a bomb that is the whole hand goes out
        if combos[i].type < FOUR_T:
            break
        if combos[i].cards == hand:
            return i
    scale, bomb_cards = 0.0, 0  # (worked out when a single first costs something)
    best, top = -1, 0.0 if can_pass else NEVER
    for i, combo in enumerate(combos):
        cc = combo.cards
        if cc == hand:
            return i
        suited = cc & SUITED_MASK and combo.type is SINGLE_T
        if suited and (hand & _RANK_OF_LOWEST[cc]).bit_count() == 1:
            score = 12.0 - 0.5 * combo.rank
            return i if score > top else best  # (no later single scores more)
        if not scale:
            near = game.hands[table_seat].bit_count() <= 2 or points(game.trick) >= 15
            scale = 1.0 / 3.0 if near else 1.0
            bomb_cards = strong_cards(hand)
        if suited:
            penalty = 2.5 + (15.0 if cc & bomb_cards else 0.0)
            score = 12.0 - 0.5 * combo.rank - scale * penalty
        else:
            score = 12.0 - 0.5 * _top(combo) - scale * _penalty(cc, combo, hand, bomb_cards)
        if score > top:
            best, top = i, score
    return best


def _best(scores: list[float], floor: float) -> int:
    """The index of the highest score above `floor` (the first of equals), -1 for none."""
    best, top = -1, floor
    for i, score in enumerate(scores):
        if score > top:
            best, top = i, score
    return best


def strong_cards(hand: int) -> int:
    """The cards of `hand` in four of a kind (ranks held four times)."""
    suited = hand & SUITED_MASK
    fours = suited & suited >> 1 & suited >> 2 & suited >> 3 & _NIBBLE_LOW
    return fours * 0xF


def _ranks_of(cards: int) -> int:
    """One bit (the low one of its nibble) per rank of suited `cards`."""
    return (cards | cards >> 1 | cards >> 2 | cards >> 3) & _NIBBLE_LOW


def _penalty(cc: int, combo: Combination, hand: int, bomb_cards: int) -> float:
    """What playing `combo` out of `hand` costs: the Dragon, the Phoenix, a bomb or its
    cards, and each rank it takes only part of (a pair or triple broken)."""
    penalty = 0.0
    if cc & DRAGON_BIT:
        penalty += 8.0
    if cc & PHOENIX_BIT:
        penalty += 6.0 if combo.length == 1 else 4.0
    if combo.type >= FOUR_T:
        penalty += 25.0
    elif cc & bomb_cards:
        penalty += 15.0
    suited = cc & SUITED_MASK
    if suited:
        broken = _ranks_of(suited) & _ranks_of(hand & SUITED_MASK & ~cc)
        if broken:
            penalty += 2.5 * broken.bit_count()
    return penalty


def _top(combo: Combination) -> float:
    """The rank the heuristic counts a combination by: the Phoenix single 15, the Dragon 16."""
    if combo.length == 1:
        cc = combo.cards
        if cc == PHOENIX_BIT:
            return 15.0
        if cc == DRAGON_BIT:
            return 16.0
    return combo.rank


def lead_scores(game: Game, seat: int, combos: list[Combination]) -> list[float]:
    """Each lead's score (NEVER for those not considered): going out first, then the
    longest cheap combination holding the lowest rank (any, when the wish leaves none)."""
    hand = game.hands[seat]
    if hand & MAHJONG_BIT:
        low = MAHJONG_BIT
    elif hand & SUITED_MASK:
        suited = hand & SUITED_MASK
        low = _RANK_OF_LOWEST[suited & -suited] & hand
    else:
        low = hand
    scores = _lead_scores(game, seat, combos, hand, low)
    if max(scores) == NEVER:  # a wish leaves only plays without the lowest rank
        scores = _lead_scores(game, seat, combos, hand, hand)
    return scores


def any_lead_scores(game: Game, seat: int, combos: list[Combination]) -> list[float]:
    """Each lead's score as `lead_scores` counts it, for every lead (not only those holding
    the lowest rank): how a search ranks the leads it considers."""
    hand = game.hands[seat]
    return _lead_scores(game, seat, combos, hand, hand)


def _lead_scores(game: Game, seat: int, combos: list[Combination], hand: int,
                 low: int) -> list[float]:
    hands = game.hands
    danger = any(hands[s].bit_count() == 1 for s in ((seat + 1) & 3, (seat + 3) & 3))
    bomb_cards = strong_cards(hand)
    partner = seat ^ 2
    scores: list[float] = []
    append = scores.append
    for combo in combos:
        cc = combo.cards
        if cc == hand:
            append(1000.0)
        elif combo.type is DOG_T:
            if not hands[partner]:
                append(NEVER)
            else:
                helps = game.tichu[partner] or game.grand_tichu[partner]
                append(8.0 if helps or danger else 2.0)
        elif danger:  # an opponent on one card: no low single
            if combo.length == 1:
                append(_top(combo) - 20.0)
            else:
                append(3.0 * combo.length - _penalty(cc, combo, hand, bomb_cards))
        elif cc & low:
            append(2.0 * combo.length - 0.6 * _top(combo) - _penalty(cc, combo, hand, bomb_cards))
        else:
            append(NEVER)
    return scores


def follow_scores(game: Game, seat: int, combos: list[Combination]) -> list[float]:
    """Each follow's score against a pass at 0: beat cheaply, never the partner."""
    hand = game.hands[seat]
    table_seat = game.table_seat
    partner_on_table = table_seat == seat ^ 2
    close = game.hands[table_seat].bit_count() <= 2
    scale = 1.0 / 3.0 if close or points(game.trick) >= 15 else 1.0
    bomb_cards = strong_cards(hand)
    scores: list[float] = []
    append = scores.append
    for combo in combos:
        cc = combo.cards
        if cc == hand:
            append(1000.0)
        elif partner_on_table:
            append(-100.0 - _penalty(cc, combo, hand, bomb_cards))
        else:
            append(12.0 - 0.5 * _top(combo) - scale * _penalty(cc, combo, hand, bomb_cards))
    return scores


def bomb_index(game: Game, seat: int, bombs: list[Combination]) -> int:
    """The smallest bomb on an opponent's play that is near out or rich; -1 to decline."""
    table = game.table
    table_seat = game.table_seat
    if table is None or table_seat == seat or table_seat == seat ^ 2:
        return -1
    threat = game.hands[table_seat].bit_count() <= 2
    rich = points(game.trick) >= 20 or bool(table.cards & DRAGON_BIT)
    if not (threat or rich):
        return -1
    return min(range(len(bombs)), key=lambda i: bombs[i].length * 20 + bombs[i].rank)


# ----- calls and the exchange ------------------------------------------------------------------

def strength(hand: int) -> float:
    """The heuristic bot's measure of a hand's power to win tricks and go out first."""
    suited = hand & SUITED_MASK
    score = 2.0 * bool(hand & DRAGON_BIT) + 1.5 * bool(hand & PHOENIX_BIT)
    score += (suited & rank_mask(14)).bit_count() + 0.5 * (suited & rank_mask(13)).bit_count()
    fours = suited & suited >> 1 & suited >> 2 & suited >> 3 & _NIBBLE_LOW
    score += 2.5 * fours.bit_count()
    loose = 0
    for rank in range(2, 10):
        if (suited & rank_mask(rank)).bit_count() == 1:
            loose += 1
    return score - 0.5 * loose - 0.5 * bool(hand & DOG_BIT)


def calls_grand_tichu(hand: int) -> bool:
    """The heuristic's Grand Tichu call on the first 8 cards."""
    return strength(hand) >= 5.5


def calls_tichu(hand: int, partner_called: bool) -> bool:
    """The heuristic's Tichu call on 14 cards (never when the partner called)."""
    return not partner_called and hand.bit_count() == 14 and strength(hand) >= 5.0


def keep_value(card: int, hand: int) -> float:
    """How much a card is worth keeping (low: give it to an opponent)."""
    if card >= MAHJONG:
        return {MAHJONG: 3.0, DRAGON: 30.0, PHOENIX: 30.0}.get(card, 1.5)  # the Dog: 1.5
    rank = (card >> 2) + 2
    held = (hand & rank_mask(rank)).bit_count()
    return rank + 4 * (held - 1) + (20 if held == 4 else 0)


def exchange_cards(hand: int, calling: bool) -> tuple[int, int, int]:
    """The heuristic's exchange: its two weakest cards to the opponents, its best spare card
    to the partner (a low one when it calls Tichu); as `Exchange.give` (seat+1, partner,
    seat+3)."""
    order = sorted(cards_of(hand), key=lambda c: (keep_value(c, hand), _sort_rank(c)))
    low1, low2, rest = order[0], order[1], order[2:]
    if calling:
        gift = rest[0]
    else:
        spare = [c for c in rest if c < MAHJONG and (hand & rank_mask((c >> 2) + 2)).bit_count() < 4]
        gift = max(spare, key=_sort_rank) if spare else rest[-1]
    return low1, gift, low2


def _sort_rank(card: int) -> int:
    """The heuristic's sorting rank: 2..14 suited, Mah Jong 1, Dog 0, Phoenix 15, Dragon 16."""
    if card < MAHJONG:
        return (card >> 2) + 2
    return {MAHJONG: 1, DRAGON: 16, PHOENIX: 15}.get(card, 0)


def wish_rank(hand: int) -> int:
    """The heuristic's wish: the highest rank the hand does not hold (0 if it holds all)."""
    for rank in range(14, 1, -1):
        if not hand & rank_mask(rank):
            return rank
    return 0

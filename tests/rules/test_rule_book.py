"""arena/rules/RULES.md itself: its worked examples hold in the engine, and every rule id the
referee can name in an `error` is listed in its section 12 (and nothing else is)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from arena.rules import PASS, DecisionKind, GiveDragon, IllegalAction, Pass, Play, classify
from arena.rules.cards import format_cards
from arena.rules.combos import beats
from tests.rules.helpers import (
    cards,
    deal,
    decline_window,
    events,
    last_round_end,
    lead_out,
    others_pass,
    pass_turn,
    play,
    start,
    table,
)

ROOT = Path(__file__).resolve().parents[2]
RULE_BOOK = ROOT / "arena" / "rules" / "RULES.md"
# Where IllegalAction is raised with a rule id a bot can be told.
RAISING = [*sorted((ROOT / "arena" / "rules").glob("*.py")), ROOT / "arena" / "referee" / "wire.py"]


def names(game, seat: int) -> list[str]:
    """The options of `seat`'s decision, as text: "pass" or the cards played."""
    return ["pass" if isinstance(o, Pass) else format_cards(o.cards)
            for o in game.decision(seat).options]


def full(*hands: str):
    """A deal of four fully named 14-card hands."""
    assert all(len(h.split()) == 14 for h in hands), [len(h.split()) for h in hands]
    return deal(*hands)


# ----- section 4: combinations ------------------------------------------------------------------

def combo(text: str, phoenix_as: int = 0, on=None):
    return classify(cards(text), phoenix_as, on)


def test_section_4_comparisons_of_the_examples():
    assert beats(combo("9j 9s Tp Tt"), combo("5j 5s 6p 6t"))
    assert not beats(combo("7j 7t 8s 8p 9j 9s"), combo("5j 5s 6p 6t"))
    assert beats(combo("9j 9s 9p 2j 2s"), combo("8j 8s 8p Aj As"))
    assert beats(combo("3j 4s 5p 6t 7j"), combo("Mahjong 2s 3p 4j 5t"))
    assert not beats(combo("3j 4s 5p 6t 7j 8s"), combo("Mahjong 2s 3p 4j 5t"))
    assert combo("Phoenix 2j 3s 4p 5t", 6).rank == 6
    with pytest.raises(IllegalAction, match="phoenix-rank-missing"):
        combo("Phoenix 2j 3s 4p 5t", 1)
    assert combo("Qj Phoenix", 12).type.name == "PAIR"
    assert combo("5j 5s 6p 6t 7j Phoenix", 7).type.name == "STAIRS"
    assert combo("8j 8s 3p 3t Phoenix", 8).rank == 8
    assert combo("8j 8s 3p 3t Phoenix", 3).rank == 3
    with pytest.raises(IllegalAction, match="phoenix-rank-forms-nothing"):
        combo("8j 8s 8p 8t Phoenix", 3)
    assert combo("Mahjong 2j 3j 4j 5j").type.name == "STRAIGHT"


def test_section_6_bombs_compare_by_length_then_rank():
    four_aces, four_sevens = combo("Aj As Ap At"), combo("7j 7s 7p 7t")
    low_flush, high_flush = combo("5j 6j 7j 8j 9j"), combo("6s 7s 8s 9s Ts")
    six_flush = combo("2p 3p 4p 5p 6p 7p")
    assert beats(four_aces, four_sevens) and beats(low_flush, four_aces)
    assert beats(high_flush, low_flush) and beats(six_flush, high_flush)
    assert not beats(low_flush, low_flush)
    assert beats(four_sevens, combo("Dragon")) and not beats(four_sevens, combo("Dog"))


def test_section_7_phoenix_single_values():
    assert combo("Phoenix", on=combo("8j")).rank == 8.5
    assert beats(combo("9s"), combo("Phoenix", on=combo("8j")))
    assert not beats(combo("8s"), combo("Phoenix", on=combo("8j")))
    assert combo("Phoenix", on=combo("Aj")).rank == 14.5
    assert combo("Phoenix", on=combo("Mahjong")).rank == 1.5
    assert combo("Phoenix").rank == 1.5 and beats(combo("2j"), combo("Phoenix"))
    with pytest.raises(IllegalAction, match="phoenix-on-dragon"):
        combo("Phoenix", on=combo("Dragon"))


# ----- Example 1: the bomb window ---------------------------------------------------------------

WINDOW = deal("Mahjong Kj 4j 4s 4p 4t", "As", "9j 9s 9p 9t", "Dog Phoenix Dragon")


def test_example_1_the_bomb_window():
    game = start(WINDOW)
    play(game, 0, "Kj")
    assert decline_window(game) == [2, 0]
    pass_turn(game, 1)
    assert decline_window(game) == [2, 0]
    pass_turn(game, 2)
    assert decline_window(game) == [0, 2]
    pass_turn(game, 3)
    assert decline_window(game) == [0, 2]
    assert events(game, "trick")[-1].data["taker"] == 0
    assert game.phase is DecisionKind.PLAY and game.to_act() == (0,) and table(game) is None


def test_example_1_a_bomb_in_the_first_window():
    game = start(WINDOW)
    play(game, 0, "Kj")
    assert game.to_act() == (2,) and game.phase is DecisionKind.BOMB
    game.apply(2, Play(cards("9j 9s 9p 9t")))
    assert game.phase is DecisionKind.PLAY and game.to_act() == (3,)


# ----- Example 2: the Dragon --------------------------------------------------------------------

DRAGON = deal("Mahjong 3j", "Dragon", "9j 9s 9p 9t", "Dog Phoenix")


def test_example_2_a_dragon_trick_is_given_to_an_opponent_and_its_winner_leads():
    game = start(DRAGON)
    play(game, 0, "3j")
    decline_window(game)
    play(game, 1, "Dragon")
    others_pass(game)
    assert game.phase is DecisionKind.DRAGON_GIFT and game.to_act() == (1,)
    assert {o.to for o in game.decision(1).options} == {0, 2}
    game.apply(1, GiveDragon(2))
    trick = events(game, "trick")[-1]
    assert trick.seat == 1 and trick.data["taker"] == 2 and trick.data["points"] == 25
    assert game.to_act() == (1,) and table(game) is None


def test_example_2_a_bombed_dragon_trick_is_the_bombers():
    game = start(DRAGON)
    play(game, 0, "3j")
    decline_window(game)
    play(game, 1, "Dragon")
    assert game.phase is DecisionKind.BOMB and game.to_act() == (2,)
    game.apply(2, Play(cards("9j 9s 9p 9t")))
    others_pass(game)
    trick = events(game, "trick")[-1]
    assert trick.seat == 2 and trick.data["taker"] == 2
    assert game.to_act() == (2,)


# ----- Examples 3 to 5: the wish ------------------------------------------------------------------

def wish_for_2_on_3(seat_2: str):
    """Example 3 up to seat 2's bomb window: the Mah Jong wishing 2, then `3j`."""
    game = start(deal("Mahjong 5j", "3j", seat_2, "Dog Phoenix Dragon"))
    play(game, 0, "Mahjong", wish=2)
    decline_window(game)
    play(game, 1, "3j")
    assert game.phase is DecisionKind.BOMB and game.to_act() == (2,)
    return game


def test_example_3_a_wish_forces_a_bomb():
    game = wish_for_2_on_3("2j 2s 2p 2t")
    assert names(game, 2) == ["pass", "2j 2s 2p 2t"]  # its own window: it may decline
    game.apply(2, PASS)
    decision = game.decision(2)
    assert decision.must_fulfil_wish and names(game, 2) == ["2j 2s 2p 2t"]
    play(game, 2, "2j 2s 2p 2t")
    assert events(game, "wish_fulfilled")


EXAMPLE_4 = deal("Mahjong 2j 3j 4s 5s",
                 "4j 5j 6p 7t 8s Tj Ts Jp Js Qj Qs Kt Ks At",
                 "Dog Phoenix", "Dragon")


def test_example_4_a_wish_forces_a_straight():
    game = start(EXAMPLE_4)
    play(game, 0, "Mahjong 2j 3j 4s 5s", wish=6)
    decline_window(game)
    decision = game.decision(1)
    assert decision.must_fulfil_wish and not decision.can_pass
    assert names(game, 1) == ["4j 5j 6p 7t 8s"]


def test_example_4_a_six_that_fits_no_straight_does_not_bind():
    game = start(deal("Mahjong 2j 3j 4s 5s", "6p Tj Ts Jp Js Qj Qs Kt Ks At 2t 2p 3t 3p",
                      "Dog Phoenix", "Dragon"))
    play(game, 0, "Mahjong 2j 3j 4s 5s", wish=6)
    decline_window(game)
    assert not game.decision(1).must_fulfil_wish and game.decision(1).can_pass


def test_example_5_the_phoenix_does_not_bind():
    game = start(deal("Mahjong", "Phoenix 2j", "8j 8s", "8p 8t Dog Dragon"))
    play(game, 0, "Mahjong", wish=8)
    decline_window(game)
    decision = game.decision(1)
    assert not decision.must_fulfil_wish and decision.can_pass
    assert decision.allows(Play(cards("Phoenix")))


EXAMPLE_5 = full("Mahjong 2j 3s 4p 5t 6j 6s 7j 7s 9j 9s Tj Ts Jj",
                 "8t Phoenix Js Jp Qp Qt Kj Ks Ap At 2s 2p 3j 3t",
                 "8j 8s 8p Dog 5j 5s 5p 4j 4s 4t 3p Qj Qs Kp",
                 "Dragon 6p 6t 7p 7t 9p 9t Tp Tt Jt Kt Aj As 2t")


def test_example_5_the_phoenix_completes_the_wished_pair():
    game = start(EXAMPLE_5)
    play(game, 0, "Mahjong 2j 3s 4p 5t", wish=8)
    for seat in (1, 2, 3):
        decline_window(game)
        assert not game.decision(seat).must_fulfil_wish, seat
        pass_turn(game, seat)
    decline_window(game)
    play(game, 0, "6j 6s")
    decline_window(game)
    decision = game.decision(1)
    assert decision.must_fulfil_wish and names(game, 1) == ["8t Phoenix"]
    play(game, 1, "8t Phoenix", phoenix_as=8)
    assert events(game, "wish_fulfilled") and game.observation(0).wish == 0


def test_wish_named_with_a_straight_holding_the_rank_stays_in_force():
    game = start(EXAMPLE_4)
    play(game, 0, "Mahjong 2j 3j 4s 5s", wish=5)
    assert game.observation(1).wish == 5 and not events(game, "wish_fulfilled")


def test_wish_bound_leader_may_not_lead_the_dog_nor_pass():
    game = start(deal("Mahjong Dog 7j 7s 7p 7t", "Phoenix", "Dragon", ""))
    play(game, 0, "Mahjong", wish=7)
    others_pass(game)
    assert game.to_act() == (0,) and table(game) is None
    decision = game.decision(0)
    assert decision.must_fulfil_wish and not decision.can_pass
    assert all(o.cards & cards("7j 7s 7p 7t") for o in decision.options)
    for action in (Play(cards("Dog")), PASS):
        with pytest.raises(IllegalAction) as info:
            game.apply(0, action)
        assert info.value.rule == "must-fulfil-wish"


def test_the_seat_to_move_may_bomb_in_its_own_window_without_fulfilling_the_wish():
    game = wish_for_2_on_3("2j 2s 2p 2t 9j 9s 9p 9t")
    game.apply(2, Play(cards("9j 9s 9p 9t")))
    assert game.observation(0).wish == 2 and not events(game, "wish_fulfilled")


# ----- Example 6: a scored round ----------------------------------------------------------------

EXAMPLE_6 = full("As Ts 6s 6p 7p 7t 8j 8t 9j 9s Jp Jt Qp Qt",
                 "Mahjong 2j 3s 4p 5s 6t 7j 8s 9p Jj Js Qj Qs Dog",
                 "Kj Ks Kp 5p 5t 6j 7s 8p 9t Tt Phoenix 2s 2p 2t",
                 "Aj Ap At Tj Tp 3j 3p 3t 4j 4t 4s 5j Kt Dragon")


def play_example_6(game) -> None:
    """Seat 1 out first with the Dog, seat 2 second, seat 0 third with `Ts`."""
    lead_out(game, 1, ["Mahjong 2j 3s 4p 5s 6t 7j 8s 9p", "Jj Js Qj Qs"])
    play(game, 1, "Dog")
    assert events(game, "dog")[-1].data["to"] == 3
    lead_out(game, 3, ["Aj Ap At Tj Tp"])
    play(game, 3, "3j 3p 3t 4j 4t")
    decline_window(game)
    pass_turn(game, 0)
    play(game, 2, "Kj Ks Kp 5p 5t")
    others_pass(game)
    decline_window(game)
    play(game, 2, "6j 7s 8p 9t Tt Phoenix", phoenix_as=11)
    others_pass(game)
    lead_out(game, 2, ["2s 2p 2t"])
    play(game, 3, "4s")
    play(game, 0, "As")
    pass_turn(game, 3)
    lead_out(game, 0, ["6s 6p 7p 7t 8j 8t 9j 9s", "Jp Jt Qp Qt"])
    play(game, 0, "Ts")


def test_example_6_a_scored_round():
    game = start(EXAMPLE_6, tichu=(1,))
    play_example_6(game)
    assert [e.seat for e in events(game, "out")] == [1, 2, 0]
    end = last_round_end(game)
    assert end.data["card_points"] == (75, 25)
    assert end.data["calls"] == (0, 100)
    assert game.scores == [75, 125]
    last_trick = events(game, "trick")[-1]
    assert last_trick.seat == 0 and last_trick.data["cards"] == cards("Ts")


# ----- Example 7: a double victory --------------------------------------------------------------

DOUBLE = deal("Mahjong Dog 2j 2p 3s 3t 4j 4p 5s 5t 6j 6p 7s 7t",
              "7p 8p 9p Tp Jp Phoenix Dragon",
              "8j 8s 9j 9s Tj Ts Jj Js Qj Qs Kj Ks Aj As", "")


def test_example_7_a_double_victory_with_calls():
    game = start(DOUBLE, grand=(0,), tichu=(3,))
    lead_out(game, 0, ["Mahjong", "2j 2p 3s 3t 4j 4p 5s 5t 6j 6p 7s 7t"])
    play(game, 0, "Dog")
    play(game, 2, "8j 8s 9j 9s Tj Ts Jj Js Qj Qs Kj Ks Aj As")
    end = last_round_end(game)
    assert end.data["double_victory"] and end.data["out_order"] == (0, 2)
    assert game.scores == [400, -100]


# ----- section 12: rule ids ---------------------------------------------------------------------

def raised_rule_ids() -> set[str]:
    """Every rule id passed to IllegalAction in the engine and the wire mapping: string
    literals, and the literals a local variable passed instead may hold."""
    found: set[str] = set()
    for path in RAISING:
        tree = ast.parse(path.read_text())
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.Module)):
                continue
            assigned: dict[str, set[str]] = {}
            for node in ast.walk(func):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                        and isinstance(node.targets[0], ast.Name):
                    assigned.setdefault(node.targets[0].id, set()).update(
                        n.value for n in ast.walk(node.value)
                        if isinstance(n, ast.Constant) and isinstance(n.value, str))
            for node in ast.walk(func):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id == "IllegalAction" and node.args):
                    first = node.args[0]
                    if isinstance(first, ast.Constant):
                        found.add(first.value)
                    elif isinstance(first, ast.Name):
                        found |= assigned.get(first.id, set())
    return found


def listed_rule_ids() -> set[str]:
    text = RULE_BOOK.read_text()
    section = text[text.index("## 12. Rule ids"):]
    return set(re.findall(r"^\| `([a-z-]+)` \|", section, re.M))


def test_every_rule_id_the_referee_can_name_is_in_the_rule_book():
    raised = raised_rule_ids()
    assert {"must-fulfil-wish", "not-a-combination", "phoenix-rank-forms-nothing"} <= raised
    assert raised - listed_rule_ids() == set(), "add these ids to RULES.md section 12"
    assert listed_rule_ids() - raised == set(), "RULES.md section 12 lists ids never raised"


def test_the_clone_is_self_contained_readme_and_protocol_link_the_rule_book():
    for doc in (ROOT / "README.md", ROOT / "protocol" / "PROTOCOL.md"):
        text = doc.read_text()
        assert "shared/RULES" not in text, doc
        assert "arena/rules/RULES.md" in text, doc

"""What a person types at the human seat, read against real requests: the wire requests of
engine self-play games (`requests`), exactly as the referee would send them."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from arena.cli.human.answers import (
    Ambiguous,
    Answer,
    Command,
    Refused,
    card_of,
    interpret,
    why_not,
)
from tests.cli.selfplay import Request, requests


def first(where: Callable[[Request, list[dict]], bool]) -> tuple[Request, list[dict]]:
    return next((r, t) for r, t in requests() if where(r, t))


def refused(text: str, request: Request, trick: list[dict] = ()) -> str:
    with pytest.raises(Refused) as caught:
        interpret(text, request, trick)
    return str(caught.value)


def following_a_single(request: Request, trick: list[dict]) -> bool:
    table = request["observation"]["table"]
    return (request["kind"] == "play" and table is not None and table["combination"] == "single"
            and table["cards"] != ["Phoenix"] and not request["must_fulfil_wish"]
            and any(card_of(c) and c[0].isdigit() and int(c[0]) < 5
                    for c in request["observation"]["hand"]) and table["cards"][0][0] in "QKA")


def test_a_number_chooses_that_option_counted_from_one():
    request, trick = first(lambda r, t: r["kind"] == "play" and len(r["options"]) > 3)
    assert interpret("3", request, trick) == Answer(option=2)
    assert "there is no option 0" in refused("0", request, trick)
    assert f"choose 1 to {len(request['options'])}" in refused(
        str(len(request["options"]) + 1), request, trick)


def test_cards_typed_by_name_in_any_case_choose_the_option_that_plays_them():
    request, trick = first(lambda r, t: r["kind"] == "play" and any(
        o["action"] == "play" and len(o["cards"]) == 2 and "Phoenix" not in o["cards"]
        for o in r["options"]))
    index, option = next((i, o) for i, o in enumerate(request["options"])
                         if o["action"] == "play" and len(o["cards"]) == 2
                         and "Phoenix" not in o["cards"])
    low, high = option["cards"]
    typed = f"{high.upper()}, {low.lower()}"  # any order, any case, commas
    assert interpret(typed, request, trick) == Answer(option=index)


@pytest.mark.parametrize(("typed", "card"), [
    ("9s", "9s"), ("9S", "9s"), ("10t", "Tt"), ("tj", "Tj"), ("QP", "Qp"), ("a", None),
    ("ph", "Phoenix"), ("PHOENIX", "Phoenix"), ("mj", "Mahjong"), ("mah", "Mahjong"),
    ("do", "Dog"), ("dr", "Dragon"), ("Dragon", "Dragon"), ("1j", None), ("9x", None),
    ("d", None)])
def test_card_names_are_read_with_slack_and_anything_else_is_not_a_card(typed, card):
    if card is None:
        with pytest.raises(Refused, match="is not a card"):
            card_of(typed)
    else:
        assert card_of(typed) == card


def test_a_card_not_held_is_refused_naming_it():
    request, trick = first(lambda r, t: r["kind"] == "play")
    missing = next(c for c in ("2j", "5s", "Kt", "Ap", "Dragon")
                   if c not in request["observation"]["hand"])
    assert refused(missing, request, trick) == f"you do not hold {missing}"


def test_a_card_that_does_not_beat_the_table_is_refused_with_the_rule():
    request, trick = first(following_a_single)
    low = next(c for c in request["observation"]["hand"] if c[0].isdigit() and int(c[0]) < 5)
    reason = refused(low, request, trick)
    assert reason.startswith(f"it does not beat {request['observation']['table']['cards'][0]} "
                             "(single)")


def test_cards_that_form_no_combination_are_refused():
    request, trick = first(lambda r, t: r["kind"] == "play" and r["observation"]["table"] is None
                           and "Dog" not in r["observation"]["hand"]
                           and len({c[0] for c in r["observation"]["hand"]
                                    if c[0].isdigit()}) >= 2)
    two = sorted({c[0]: c for c in request["observation"]["hand"] if c[0].isdigit()}.values())
    assert refused(f"{two[0]} {two[1]}", request, trick) == "these cards form no combination"


def test_passing_is_refused_to_the_leader_and_under_a_wish_that_can_be_fulfilled():
    lead, trick = first(lambda r, t: r["kind"] == "play" and r["observation"]["table"] is None)
    assert refused("pass", lead, trick) == "you may not pass: you lead this trick, so you must play"
    wished, trick = first(lambda r, t: r["must_fulfil_wish"])
    wish = wished["observation"]["wish"]
    assert f"the wish for a{'n' if wish in '8A' else ''} {wish} is in force" in refused(
        "p", wished, trick)


def test_a_play_without_the_wished_rank_is_refused_when_the_wish_can_be_fulfilled():
    def holds_another_play(request: Request, trick: list[dict]) -> bool:
        return request["must_fulfil_wish"] and request["observation"]["table"] is not None \
            and request["observation"]["table"]["combination"] == "single" and any(
                c[0] != request["observation"]["wish"] and _beats_single(c, request)
                for c in request["observation"]["hand"])

    request, trick = first(holds_another_play)
    wish = request["observation"]["wish"]
    other = next(c for c in request["observation"]["hand"]
                 if c[0] != wish and _beats_single(c, request))
    assert "your play must hold" in refused(other, request, trick)


def _beats_single(card: str, request: Request) -> bool:
    order = "23456789TJQKA"
    top = request["observation"]["table"]["cards"][0]
    return (len(card) == 2 and len(top) == 2 and order.index(card[0]) > order.index(top[0]))


def test_only_a_bomb_may_be_played_in_a_bomb_window_and_enter_declines_it():
    request, trick = first(lambda r, t: r["kind"] == "bomb")
    assert interpret("", request, trick) == Answer(option=0)
    assert interpret("p", request, trick) == Answer(option=0)
    bomb = request["options"][1]["cards"]
    assert interpret(" ".join(bomb), request, trick) == Answer(option=1)
    single = next(c for c in request["observation"]["hand"] if c not in bomb
                  and c not in ("Dog", "Phoenix", "Mahjong", "Dragon"))
    assert refused(single, request, trick).startswith("out of turn only a bomb may be played")


def test_cards_the_phoenix_makes_playable_in_two_ways_are_asked_about():
    def ambiguous(request: Request, trick: list[dict]) -> bool:
        plays = [tuple(o["cards"]) for o in request["options"] or () if o["action"] == "play"]
        return len(plays) != len(set(plays))

    request, trick = first(ambiguous)
    plays = [tuple(o.get("cards", ())) for o in request["options"]]
    twice = next(p for p in plays if plays.count(p) > 1)
    answer = interpret(" ".join(twice), request, trick)
    assert isinstance(answer, Ambiguous)
    assert [plays[n - 1] for n in answer.numbers] == [twice] * len(answer.numbers)
    ranks = [request["options"][n - 1]["phoenix_as"] for n in answer.numbers]
    assert len(set(ranks)) == len(ranks) > 1
    for number, rank in zip(answer.numbers, ranks, strict=True):  # ph=R says which
        typed = " ".join(f"ph={rank.lower()}" if c == "Phoenix" else c for c in twice)
        assert interpret(typed, request, trick).option == number - 1
    impossible = next(r for r in "23456789TJQKA" if r not in ranks)
    assert refused(" ".join(f"Phoenix={impossible}" if c == "Phoenix" else c for c in twice),
                   request, trick) == f"the Phoenix cannot stand for {impossible} in these cards"
    assert refused("9s=9", request, trick).startswith("'9s=9': only the Phoenix stands")


def test_the_dog_is_refused_on_a_table():
    request, trick = first(lambda r, t: r["kind"] == "play" and r["observation"]["table"]
                           is not None and "Dog" in r["observation"]["hand"])
    assert refused("dog", request, trick) == "the Dog may only be led, on an empty table"


def test_tichu_goes_with_a_decision_only_where_the_request_allows_it():
    allowed, trick = first(lambda r, t: r["kind"] == "play" and r["may_call_tichu"])
    assert interpret("1 tichu", allowed, trick) == Answer(option=0, call_tichu=True,
                                                          wants_wish=_mahjong(allowed, 0))
    barred, trick = first(lambda r, t: r["kind"] == "play" and not r["may_call_tichu"])
    assert refused("1 tichu", barred, trick).startswith("you may not call Tichu now")


def _mahjong(request: Request, index: int) -> bool:
    return "Mahjong" in request["options"][index].get("cards", ())


def test_a_play_holding_the_mahjong_asks_for_a_wish():
    request, trick = first(lambda r, t: r["kind"] == "play" and any(
        "Mahjong" in o.get("cards", ()) for o in r["options"]))
    index = next(i for i, o in enumerate(request["options"]) if "Mahjong" in o.get("cards", ()))
    answer = interpret(str(index + 1), request, trick)
    assert answer.wants_wish
    assert answer.reply("8")["wish"] == "8"


def test_grand_tichu_and_tichu_take_yes_no_and_enter():
    for kind in ("grand_tichu", "tichu"):
        request, trick = first(lambda r, t, kind=kind: r["kind"] == kind)
        assert interpret("", request, trick) == Answer(option=0)
        assert interpret("n", request, trick) == Answer(option=0)
        assert interpret("Y", request, trick) == Answer(option=1)
        assert interpret("2", request, trick) == Answer(option=1)
        assert "answer y (call) or n" in refused("maybe", request, trick)


def test_the_exchange_takes_three_held_cards_in_recipient_order():
    request, trick = first(lambda r, t: r["kind"] == "exchange")
    hand = request["observation"]["hand"]
    answer = interpret(f"{hand[5]} {hand[0]} {hand[9]}", request, trick)
    assert answer.action == {"action": "exchange", "give": [hand[5], hand[0], hand[9]]}
    assert refused(f"{hand[0]} {hand[1]}", request, trick).startswith("give exactly three cards")
    assert refused(f"{hand[0]} {hand[0]} {hand[1]}", request, trick) == f"{hand[0]} typed twice"
    missing = next(c for c in ("2j", "2s", "2p", "2t", "3j") if c not in hand)
    assert refused(f"{hand[0]} {hand[1]} {missing}", request, trick) == \
        f"you do not hold {missing}"
    assert interpret(f"{hand[0]} {hand[1]} {hand[2]} tichu", request, trick).call_tichu


def test_the_dragon_gift_takes_the_number_of_an_option():
    request, trick = first(lambda r, t: r["kind"] == "dragon_gift")
    assert interpret("2", request, trick) == Answer(option=1)
    assert "type 1 or 2" in refused("left", request, trick)


def test_words_that_are_not_answers_are_commands():
    request, trick = first(lambda r, t: r["kind"] == "play")
    for word, name in (("?", "help"), ("HELP", "help"), ("show", "show"), ("quit", "quit"),
                       ("skip", "skip")):
        assert interpret(word, request, trick) == Command(name)


def test_every_illegal_play_among_many_is_explained_and_every_legal_one_accepted():
    # typed card sets against real requests: an option's cards are accepted (or asked about,
    # for the Phoenix), anything else held is refused with a rule, never "not legal now"
    rng = random.Random(3)
    checked = 0
    for request, trick in requests():
        if request["kind"] not in ("play", "bomb"):
            continue
        hand = request["observation"]["hand"]
        for size in (1, 2, 3, 5):
            if len(hand) < size:
                continue
            cards = rng.sample(hand, size)
            legal = any(set(o.get("cards", ())) == set(cards) for o in request["options"])
            if legal:
                assert isinstance(interpret(" ".join(cards), request, trick),
                                  Answer | Ambiguous)
            else:
                assert why_not(cards, request, trick) != "it is not a legal play now", \
                    (cards, request["observation"]["table"], request["kind"])
            checked += 1
    assert checked > 500

"""`arena replay`: the play by play of a record, from every seat's view or one seat's."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.presentation.replay import StepKind, build_replay, render_replay
from arena.presentation.summary import ROUND_HEADERS, round_rows
from arena.referee import wire
from arena.referee.record import EntrantInfo, GameRecord
from arena.rules import Play
from tests.pace import play_options
from tests.rules.helpers import cards, deal, decline_window, others_pass, play, start
from tests.rules.test_rule_book import EXAMPLE_6, ROOT, play_example_6


def record_of(game) -> GameRecord:
    """The record the referee would keep of an engine game (its events, who saw each)."""
    entrants = (EntrantInfo("north-south", "1", "."), EntrantInfo("east-west", "1", "."))
    record = GameRecord("scripted", game.seed, game.target, entrants)
    record.events = [wire.event_map(e) | {"visible_to": e.visible_to} for e in game.events]
    return record


def example_6_record() -> GameRecord:
    game = start(EXAMPLE_6, tichu=(1,))
    play_example_6(game)
    return record_of(game)


def test_a_round_is_replayed_with_hands_exchange_calls_and_every_trick():
    replay = build_replay(example_6_record())
    first = replay.rounds[0]
    assert [first.hand_after_exchange(s) for s in range(4)] == [
        tuple(wire.cards_text(h)) for h in EXAMPLE_6.hands]
    assert first.grand_tichu == [False] * 4 and first.tichu_before_play == [1]
    assert all(len(first.given[s]) == 3 for s in range(4))
    dog_trick = first.tricks[2]
    assert [s.kind for s in dog_trick.steps] == [StepKind.PLAY, StepKind.OUT, StepKind.DOG]
    assert dog_trick.steps[-1].to == 3 and dog_trick.taker is None
    phoenix = next(s for t in first.tricks for s in t.steps if "Phoenix" in s.cards)
    assert phoenix.combination == "straight" and phoenix.phoenix_as == "J"
    last = first.tricks[-1]
    assert last.winner == last.taker == 0 and last.cards == ("Ts",) and last.points == 10
    assert first.end.out_order == (1, 2, 0) and first.end.scores == (75, 125)
    text = "\n".join(render_replay(replay))
    for line in ("Tichu before the first play: seat 1 calls", "seat 1 leads the Dog",
                 "the Dog hands the lead to seat 3", "seat 1 is out (first)",
                 "(straight, the Phoenix as J)", "seat 0 takes the trick: 10 points",
                 "Round 1 ends: out in the order seat 1, seat 2, seat 0; seat 3 is last",
                 "card points 75:25, calls +0:+100, round 75:125, score 75:125"):
        assert line in text, line


def test_bombs_wishes_and_the_dragon_gift_are_shown():
    game = start(deal("Mahjong 5j", "3j Dragon", "2j 2s 2p 2t", "Dog Phoenix"))
    play(game, 0, "Mahjong", wish=2)
    decline_window(game)
    play(game, 1, "3j")
    game.apply(2, Play(cards("2j 2s 2p 2t")))  # in its bomb window, out of turn
    others_pass(game)
    steps = build_replay(record_of(game)).rounds[0].tricks[0].steps
    assert [s.kind for s in steps] == [StepKind.PLAY, StepKind.WISH, StepKind.PLAY,
                                       StepKind.BOMB, StepKind.WISH_FULFILLED,
                                       StepKind.PASS, StepKind.PASS, StepKind.PASS]
    text = "\n".join(render_replay(build_replay(record_of(game))))
    assert "seat 0 wishes for the rank 2" in text
    assert "seat 2 bombs out of turn with 2j 2s 2p 2t (bomb: four of a kind)" in text
    assert "seat 2 fulfils the wish for the rank 2" in text
    dragon = start(deal("Mahjong 3j", "Dragon", "9j", "Dog Phoenix"))
    play(dragon, 0, "3j")
    play(dragon, 1, "Dragon")
    others_pass(dragon)
    dragon.apply(1, dragon.decision(1).options[1])
    text = "\n".join(render_replay(build_replay(record_of(dragon))))
    assert "seat 1 won the trick with the Dragon and gives it to seat 0: 25 points" in text


def test_a_seat_view_shows_only_what_that_seat_could_see():
    record = example_6_record()
    view = build_replay(record, seat=2).rounds[0]
    assert view.first_eight[2] is not None and view.hand_after_exchange(2) is not None
    for other in (0, 1, 3):
        assert view.first_eight[other] is None and view.given[other] is None
        assert view.hand_after_exchange(other) is None
    text = "\n".join(render_replay(build_replay(record, seat=2)))
    given = set(view.given[2])  # the only cards of the others' hands seat 2 knows
    hidden = {c for s in (0, 1, 3) for c in wire.cards_text(EXAMPLE_6.hands[s])} - given
    before_play = text[:text.index("Trick 1")].replace("\n", " ") + " "
    assert [c for c in hidden if f" {c} " in before_play] == []
    assert "what seat 2 (north-south) could see" in text
    with pytest.raises(ValueError):
        build_replay(record, seat=4)


def test_round_table_has_a_header_for_every_column_and_plain_words():
    rows = round_rows(example_6_record())
    assert len(rows[0]) == len(ROUND_HEADERS) and all(ROUND_HEADERS)
    assert rows[0][3] == "no" and rows[0][4] == "seat 1 Tichu made"


@pytest.mark.timeout(120)
def test_the_replay_command_picks_a_round_and_a_seat(tmp_path):
    path = tmp_path / "game.json"
    runner = CliRunner()
    played = runner.invoke(main, ["play", str(ROOT / "bots" / "random"),
                                  str(ROOT / "bots" / "random"), "--seed", "4", "--target",
                                  "300", "--record", str(path), *play_options()])
    assert played.exit_code == 0, played.output
    rounds = json.loads(path.read_text())["rounds"]
    result = runner.invoke(main, ["replay", str(path), "--round", "2", "--seat", "3"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Round 2 (score before it" in out and "Round 1 (score" not in out
    assert "view: what seat 3" in out and "    seat 3: " in out and "    seat 0: " not in out
    assert "Trick 1, led by seat" in out and "identical events" in out
    assert "Round 2 ends" in out or rounds < 2
    too_far = runner.invoke(main, ["replay", str(path), "--round", str(rounds + 1)])
    assert too_far.exit_code == 2 and f"the game has rounds 1 to {rounds}" in too_far.output
    only = runner.invoke(main, ["replay", str(path), "--summary"])
    assert only.exit_code == 0 and "Trick 1" not in only.output and "Final score" in only.output

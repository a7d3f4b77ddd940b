"""RULES.md "End of a round and scoring" and "End of the game", on scripted rounds."""

from __future__ import annotations

from arena.rules import DecisionKind, GiveDragon
from tests.rules.helpers import deal, events, last_round_end, lead_out, play, start

# Double victory: seat 0 goes out first (ending with the Dog, which hands the lead to seat 2),
# seat 2 second with one 14-card stairs; seat 1 holds a straight flush all along.
DOUBLE = deal("Mahjong Dog 2j 2p 3s 3t 4j 4p 5s 5t 6j 6p 7s 7t",
              "7p 8p 9p Tp Jp Phoenix Dragon",
              "8j 8s 9j 9s Tj Ts Jj Js Qj Qs Kj Ks Aj As", "")
SEAT_0_PLAYS = ["Mahjong", "2j 2p 3s 3t 4j 4p 5s 5t 6j 6p 7s 7t", "Dog"]
SEAT_2_STAIRS = "8j 8s 9j 9s Tj Ts Jj Js Qj Qs Kj Ks Aj As"


def play_double_victory(game) -> None:
    lead_out(game, 0, SEAT_0_PLAYS[:2])
    play(game, 0, "Dog")
    assert events(game, "dog")[-1].data["to"] == 2
    play(game, 2, SEAT_2_STAIRS)


def test_double_victory_scores_200_to_0_plus_calls():
    game = start(DOUBLE)
    play_double_victory(game)
    end = last_round_end(game)
    assert end.data["double_victory"] is True
    assert end.data["card_points"] == (200, 0) and end.data["calls"] == (0, 0)
    assert end.data["out_order"] == (0, 2)
    assert game.scores == [200, 0]


def test_double_victory_ends_the_round_at_once_with_no_bomb_window():
    game = start(DOUBLE)
    play_double_victory(game)
    kinds = [e.kind for e in game.events]
    last_play = max(i for i, e in enumerate(game.events) if e.kind == "play")
    assert kinds[last_play + 1:last_play + 4] == ["out", "round_end", "round_start"]
    assert game.round_number == 2 and game.phase is DecisionKind.GRAND_TICHU


def test_calls_are_scored_on_top_also_on_a_double_victory():
    game = start(DOUBLE, grand=(1,), tichu_with_exchange=(0,), tichu=(2,))
    play_double_victory(game)
    end = last_round_end(game)
    assert end.data["card_points"] == (200, 0)
    assert end.data["calls"] == (100 - 100, -200)
    assert game.scores == [200, -200]


def test_game_ends_when_a_team_reaches_the_target_and_the_higher_team_wins():
    game = start(DOUBLE, target=200)
    play_double_victory(game)
    assert game.over and game.winner == 0
    assert events(game, "game_end")[0].data["winner"] == 0
    assert game.to_act() == ()


def test_game_continues_below_the_target():
    game = start(DOUBLE, target=201)
    play_double_victory(game)
    assert not game.over and game.winner is None and game.round_number == 2


# A full round: 0 out first, 1 second, 2 third with the Dragon as its last card, 3 last.
# No seat holds a bomb. Seat 2's Dog returns the lead to seat 2 (0 and 1 are out).
FULL = deal("Mahjong 2j 2p 3s 3t 4j 4p 5s 5t 6j 6p 7s 7t As",
            "8p 8j 9t 9s Tp Tj Jt Js Qp Qj Kt Ks Ap At",
            "2s 2t 3j 3p 4s 4t 5j 5p 6s 6t 7j 7p Dog Dragon",
            "8s 8t 9j 9p Ts Tt Jj Jp Qs Qt Kj Kp Aj Phoenix")


def play_full_round(game) -> None:
    lead_out(game, 0, ["Mahjong", "2j 2p 3s 3t 4j 4p 5s 5t 6j 6p 7s 7t", "As"])
    lead_out(game, 1, ["8p 8j 9t 9s Tp Tj Jt Js Qp Qj Kt Ks Ap At"])
    lead_out(game, 2, ["2s 2t 3j 3p 4s 4t 5j 5p 6s 6t 7j 7p"])
    play(game, 2, "Dog")
    assert events(game, "dog")[-1].data["to"] == 2
    play(game, 2, "Dragon")


def test_last_trick_is_gathered_at_once_and_a_dragon_in_it_is_still_given_away():
    game = start(FULL)
    play_full_round(game)
    assert game.phase is DecisionKind.DRAGON_GIFT and game.to_act() == (2,)
    assert [e.seat for e in events(game, "out")] == [0, 1, 2]
    assert not events(game, "round_end")
    game.apply(2, GiveDragon(1))
    trick = events(game, "trick")[-1]
    assert trick.data["taker"] == 1 and trick.data["points"] == 25
    end = last_round_end(game)
    # team 0: seat 0's tricks 10, seat 2's tricks 10, seat 3's hand 15; team 1: 40 + Dragon 25.
    assert end.data["card_points"] == (35, 65)
    assert game.scores == [35, 65]


def test_last_player_gives_hand_to_opponents_and_tricks_to_first_out():
    game = start(FULL)
    play_full_round(game)
    game.apply(2, GiveDragon(3))
    end = last_round_end(game)
    # seat 3's only trick (the Dragon, 25) goes to seat 0, its hand (15) to team 0.
    assert end.data["card_points"] == (60, 40)
    assert sum(end.data["card_points"]) == 100


def test_no_bomb_window_after_the_play_that_ends_the_round():
    game = start(FULL)
    play_full_round(game)
    assert game.phase is DecisionKind.DRAGON_GIFT


def test_tichu_and_grand_tichu_calls_add_to_the_callers_team():
    game = start(FULL, grand=(0,), tichu=(2, 3))
    play_full_round(game)
    game.apply(2, GiveDragon(1))
    end = last_round_end(game)
    assert end.data["calls"] == (200 - 100, -100)
    assert game.scores == [35 + 100, 65 - 100]


def test_call_is_personal_partner_going_out_first_does_not_save_it():
    game = start(FULL, tichu=(2,))
    play_full_round(game)
    game.apply(2, GiveDragon(1))
    assert last_round_end(game).data["calls"] == (-100, 0)


def test_failed_grand_tichu_costs_200():
    game = start(FULL, grand=(1,))
    play_full_round(game)
    game.apply(2, GiveDragon(1))
    assert last_round_end(game).data["calls"] == (0, -200)


def test_totals_may_be_negative():
    game = start(FULL, grand=(1,), tichu=(3,))
    play_full_round(game)
    game.apply(2, GiveDragon(1))
    assert game.scores == [35, 65 - 300]
    assert not game.over


# A round ending 100:100: team 0 takes no card points, seat 0 goes out first with Tichu.
TIE = deal("Mahjong 2j 2s 3j 3s 4j 4s 6j 6s 7j 7s 8j 8s 9j",
           "5j 5s 5p 5t Tj Ts Tp Tt Kj Ks Kp Kt 9s 9p",
           "2p 2t 3p 3t 4p 4t 6p 6t 7p 7t 8p 8t Jj Js",
           "Phoenix Dragon Dog 9t Jp Jt Qj Qs Qp Qt Aj As Ap At")


def play_tie_round(game) -> None:
    lead_out(game, 0, ["Mahjong", "2j 2s 3j 3s 4j 4s", "6j 6s 7j 7s 8j 8s", "9j"])
    lead_out(game, 1, ["5j 5s 5p 5t", "Tj Ts Tp Tt", "Kj Ks Kp Kt", "9s 9p"])
    lead_out(game, 2, ["2p 2t 3p 3t 4p 4t", "6p 6t 7p 7t 8p 8t", "Jj Js"])


def test_ties_at_or_above_target_play_another_round():
    game = start(TIE, tichu_with_exchange=(0,), target=100)
    play_tie_round(game)
    end = last_round_end(game)
    assert end.data["card_points"] == (0, 100) and end.data["calls"] == (100, 0)
    assert game.scores == [100, 100]
    assert not game.over and game.winner is None
    assert game.round_number == 2 and events(game, "round_start")[-1].data["round"] == 2
    assert not events(game, "game_end")


def test_after_the_last_round_every_seat_sees_the_game_end_and_an_empty_trick():
    # FULL scores 35 to 65 when seat 1 gets the Dragon: team 1 reaches a target of 65 and wins.
    game = start(FULL, target=65)
    play_full_round(game)
    game.apply(2, GiveDragon(1))
    assert game.over and game.scores == [35, 65]
    for seat in range(4):
        seen = game.observation(seat)
        assert seen.trick == 0 and seen.trick_points == 0, seat  # the last trick was taken
        end = seen.round_events[-1]
        assert end.kind == "game_end" and end.data["winner"] == 1, seat  # public

"""The human seat of `arena play human BOT`: a person plays one seat at the terminal.

The person's side is a program like any bot's, `python -m arena.cli.human` (`__main__.py`): a
bot of the Python SDK (`player.py`) that speaks the protocol to the same referee, shows the
game as its seat sees it (`arena.presentation.seat_view`) and reads the person's answers
(`answers.py`) from the terminal, which it opens by the path it is given. The referee seats it
as a guest (`guest.py`: `arena.referee.match.Guest`): the organizer's own program, so it runs
unsandboxed (it needs the terminal) and without time limits; the bots keep theirs, and their
sandbox.
"""

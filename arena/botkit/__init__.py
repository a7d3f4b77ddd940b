"""Bot tooling for bot authors: `arena check-bot` (`check.py`, a scripted referee that drives
a bot through every part of the protocol; `checklist.py`, what it reports; `canonical.py`,
where a bot's encoding is not canonical msgpack) and `arena new-bot` (`scaffold.py`, a
working bot folder from one of `templates/`), and `arena reproduce` (`reproduce.py`, a
failed game's messages to one seat replayed to its bot, its replies judged).

It may import the referee (bot manifests, processes, matches), the sandbox (isolation
levels), the rules engine, `protocol` and `arena.errors`; not the tournament, ratings,
presentation or CLI, and never click.
"""

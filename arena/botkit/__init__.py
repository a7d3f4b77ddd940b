"""Bot tooling for bot authors: `arena check-bot` (`check`, a scripted referee that drives a
bot through every part of the protocol, and `checklist`, what it reports) and `arena new-bot`
(`scaffold`, a working bot folder from one of `templates/`).

It may import the referee (bot manifests, processes, matches), the sandbox (isolation
levels), the rules engine, `protocol` and `arena.errors`; not the tournament, ratings,
presentation or CLI, and never click.
"""

"""The referee: plays one game between bot processes, from a game spec to a game record.

It owns the game loop (`match`), the bot processes and their limits (`process`), the bot
manifest that says how to build and start one (`manifest`), the referee's end of the wire
(`transport`: ZMTP spoken by its own code, every buffer bounded), which bot process opened a
connection (`peers`), the mapping between engine values and wire maps (`wire`), game records
(`record`), CPU placement (`placement`), and the in-process harness that plays the same
messages without processes (`inprocess`), which also regenerates the protocol's golden
vectors (`vectors`). `collector` sets a referee process's garbage collector.
It may import the rules engine, `protocol` and `arena.errors`; nothing of the tournament,
ratings, presentation or CLI, and never click.
"""

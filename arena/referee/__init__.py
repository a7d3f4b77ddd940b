"""The referee: plays one game between bot processes, from a game spec to a game record.

It owns the game loop (`match.py`), the bot processes and their limits (`process.py`), the
bot manifest that says how to build and start one (`manifest.py`), the referee's end of the
wire (`transport.py`: ZMTP spoken by its own code, every buffer bounded), which bot process
opened a connection (`peers.py`), the mapping between engine values and wire maps
(`wire.py`) and the packing of the messages it sends most (`packing.py`: requests and events
packed straight to msgpack bytes), game records (`record.py`), one seat's messages in a recorded game rebuilt for `arena
reproduce` (`seatstream.py`), CPU placement
(`placement.py`), and the in-process harness that plays the same messages without processes
(`inprocess.py`), which also regenerates the protocol's golden vectors (`vectors.py`).
`collector.py` sets a referee process's garbage collector. Who is charged for a fault is
PROTOCOL.md section 9.3. It may import the rules engine, `protocol`, `arena.errors` and
`arena.faults`; nothing of the tournament, ratings, presentation or CLI, and never click.
"""

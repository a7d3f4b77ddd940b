"""The Tichu Arena wire protocol: `PROTOCOL.md` (the contract), the codec (`codec.py`), the
message schema the codec validates against (`schema.py`), the Python bot SDK (`sdk.py`, over
its own bounded ZMTP dealer, `zmtp.py`, whose framing the referee shares) and the golden
vectors (`vectors/`). Import `protocol.codec` for encode/decode and `protocol.sdk` to write
a bot. For learned policies: `features.py` (`FEATURES.md`), the numeric encoding of a request
shared with the training environment, and `policy.py`, a policy as a bot; those two need
numpy (the `train` extra), the rest only the core dependencies. `encoding.py` is the old
name of `features.py`, kept for policy bots written against it.

What a Python bot imports (`sdk.py`, `codec.py`, `schema.py`, `zmtp.py`) imports neither
`typing` nor `re`, whose imports were 10 ms of the 37 ms a bot's imports took before each
game: their annotations' names come in under a `TYPE_CHECKING = False` of their own (the type
checker takes any `TYPE_CHECKING` as true), and the referee's pattern is compiled at its
first use (tests/protocol/test_sdk_imports.py keeps it so)."""

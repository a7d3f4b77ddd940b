"""The Tichu Arena wire protocol: `PROTOCOL.md` (the contract), the codec (`codec.py`), the
message schema the codec validates against (`schema.py`), the Python bot SDK (`sdk.py`, over
its own bounded ZMTP dealer, `zmtp.py`, whose framing the referee shares) and the golden
vectors (`vectors/`). Import `protocol.codec` for encode/decode and `protocol.sdk` to write
a bot. For learned policies: `features.py` (`FEATURES.md`), the numeric encoding of a request
shared with the training environment, and `policy.py`, a policy as a bot; those two need
numpy (the `train` extra), the rest only the core dependencies. `encoding.py` is the old
name of `features.py`, kept for policy bots written against it."""

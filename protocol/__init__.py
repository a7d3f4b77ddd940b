"""The Tichu Arena wire protocol: PROTOCOL.md (the contract), the codec, the Python bot SDK
and the golden vectors. Import `protocol.codec` for encode/decode and `protocol.sdk` to
write a bot. For learned policies: `protocol.encoding` (ENCODING.md), the numeric encoding of
a request shared with the training environment, and `protocol.policy`, a policy as a bot;
those two need numpy (the `train` extra), the rest only the core dependencies."""

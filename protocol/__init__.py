"""The Tichu Arena wire protocol: PROTOCOL.md (the contract), the codec, the Python bot SDK
and the golden vectors. Import `protocol.codec` for encode/decode and `protocol.sdk` to
write a bot."""

"""Every JSON example in PROTOCOL.md is a valid message (or event) of the codec."""

from __future__ import annotations

import json
import re
from pathlib import Path

from protocol.codec import validate
from protocol.schema import EVENT

DOC = Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md"


def _examples() -> list[dict]:
    out = []
    decoder = json.JSONDecoder()
    for block in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S):
        at = 0
        while at < len(block):
            if block[at].isspace():
                at += 1
                continue
            value, at = decoder.raw_decode(block, at)
            out.append(value)
    return out


def test_protocol_md_examples_are_valid():
    examples = _examples()
    assert len(examples) >= 15
    for example in examples:
        if "type" in example:
            validate(example)
        else:
            EVENT(example, "event")


def test_protocol_md_shows_every_message_type():
    types = {e["type"] for e in _examples() if "type" in e}
    assert types == {"hello", "welcome", "reject", "request", "reply", "events", "end", "error"}

"""PROTOCOL.md's examples cannot drift from the codec: every message, event and action map
shown in its code blocks is valid, and written in canonical form (section 3: every field,
keys in the documented order, card sets ascending), as `arena check-bot` judges a bot's
messages (`codec.encode` of the message gives the bytes of the message as written)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgpack
import pytest

from protocol import codec
from protocol.schema import ACTION, BOT_MESSAGES, EVENT

DOC = Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md"
_FENCE = re.compile(r"^[ \t]*```(\w*)\n(.*?)^[ \t]*```", re.S | re.M)  # in a list too


def _blocks() -> list[tuple[int, str]]:
    """The code blocks holding examples, with the line each starts on: every `json` block,
    and every untagged block that opens with a map (section 6's list of options)."""
    text = DOC.read_text()
    found = []
    for match in _FENCE.finditer(text):
        tag, body = match.group(1), match.group(2)
        if tag == "json" or (tag == "" and body.lstrip().startswith("{")):
            found.append((text.count("\n", 0, match.start()) + 1, body))
    return found


def _examples() -> list[tuple[int, Any]]:
    """Every JSON value of those blocks, with the line its block starts on."""
    out = []
    decoder = json.JSONDecoder()
    for line, block in _blocks():
        at = 0
        while at < len(block):
            if block[at].isspace():
                at += 1
                continue
            value, at = decoder.raw_decode(block, at)  # a block that is not JSON fails here
            out.append((line, value))
    return out


def _canonical(example: dict[str, Any]) -> dict[str, Any]:
    """The canonical form of a message, an event or an action map (ProtocolError if it is
    none of them validly)."""
    if "type" in example:
        sender = "bot" if example["type"] in BOT_MESSAGES else "referee"
        return codec.validate(example, sender)
    if "kind" in example:
        return EVENT(example, "event")
    return ACTION(example, "action")


EXAMPLES = _examples()


def test_protocol_md_has_its_examples():
    assert len(EXAMPLES) >= 25
    kinds = {e.get("type") or e.get("kind") or e["action"] for _, e in EXAMPLES}
    assert {"hello", "welcome", "reject", "request", "reply", "events", "end", "error"} <= kinds
    assert {"deal", "exchange", "play", "trick", "round_end"} <= kinds  # events
    actions = {e["action"] for _, e in EXAMPLES if "type" not in e and "kind" not in e}
    assert actions == {"play"}  # section 6's list of options


@pytest.mark.parametrize("line, example", EXAMPLES,
                         ids=[f"line{line}-{i}" for i, (line, _) in enumerate(EXAMPLES)])
def test_every_example_is_valid_and_canonical(line: int, example: dict[str, Any]):
    canonical = _canonical(example)
    packed = msgpack.packb(example, use_bin_type=True)  # the bytes, keys as written
    assert packed == codec.packb(canonical), (
        f"PROTOCOL.md, the block at line {line}: {example} is not in canonical form; "
        f"canonical is {canonical}")
    if "type" in example:  # as check-bot judges a bot's message
        sender = "bot" if example["type"] in BOT_MESSAGES else "referee"
        assert codec.encode(example, sender) == packed
        assert codec.decode(packed, sender) == example


def test_section_11_shows_canonical_replies_and_waits_for_the_next_welcome():
    """What a newcomer copies: step 3 shows a reply by option and an explicit one (both
    canonical, as the test above checks), and an `end` with `more_games: true` is not the
    end of the session."""
    text = DOC.read_text()
    start, end = (text.count("\n", 0, text.index(h)) + 1 for h in ("\n## 11.", "\n## 12."))
    replies = [e for line, e in EXAMPLES if start < line < end and e["type"] == "reply"]
    assert {"option" if e["option"] is not None else e["action"]["action"] for e in replies} \
        == {"option", "exchange"}
    section = text[text.index("\n## 11."):text.index("\n## 12.")]
    assert "`more_games: true`" in section and "wait for the next `welcome`" in section

"""The golden vectors stay true: the transcript replays byte for byte, the files regenerate."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from arena.referee import vectors as generate
from protocol.codec import decode

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


def _frames() -> list[bytes]:
    data = (VECTORS / "transcript.bin").read_bytes()
    frames, at = [], 0
    while at < len(data):
        (n,) = struct.unpack_from(">I", data, at)
        frames.append(data[at + 4:at + 4 + n])
        at += 4 + n
    return frames


def _lines() -> list[dict]:
    return [json.loads(line) for line in (VECTORS / "transcript.jsonl").read_text().splitlines()]


def test_transcript_bytes_decode_to_its_messages():
    frames, lines = _frames(), _lines()
    assert len(frames) == len(lines)
    for frame, line in zip(frames, lines, strict=True):
        assert decode(frame, line["from"]) == line["message"]


def test_transcript_is_one_complete_game_for_each_seat():
    lines = _lines()
    for seat in range(4):
        mine = [line for line in lines if line["seat"] == seat]
        assert mine[0]["message"]["type"] == "hello"
        assert mine[1]["message"]["type"] == "welcome"
        assert mine[-1]["message"]["type"] == "end"
        assert mine[-1]["message"]["events"][-1]["kind"] == "game_end"
        requests = [m["message"] for m in mine if m["message"]["type"] == "request"]
        replies = [m["message"] for m in mine if m["message"]["type"] == "reply"]
        assert [r["id"] for r in requests] == [r["id"] for r in replies]


def test_transcript_replays_byte_for_byte():
    recorded = [data for *_, data in generate.play_transcript(generate.transcript_bots())]
    assert recorded == _frames()


@pytest.mark.parametrize("name", ["messages.json", "malformed.json"])
def test_vector_files_match_their_generator(name, tmp_path, monkeypatch):
    monkeypatch.setattr(generate, "VECTORS", tmp_path)
    monkeypatch.setattr(generate, "play_transcript", lambda bots: [])
    generate.main()
    assert (tmp_path / name).read_text() == (VECTORS / name).read_text()

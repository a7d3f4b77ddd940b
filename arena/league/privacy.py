"""What the league shows to whom: the public, a bot's author, the organizer.

A bot's stderr (a record's `bot_output`), the details of its fault (the failing decision,
the output's tail), an upload's build log and the messages its seat was sent in a game are
its author's. The public API and pages
leave them out. An author sees those of their own bots, with their token. The organizer
sees all of them.

Texts shown to authors name paths inside their bot, never the server's. `PathScrubber`
rewrites the server's folders (the intake cache, the uploads, the store, the checkout, the
home folder) to short labels before any text leaves the server.
"""

from __future__ import annotations

import copy
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.league.accounts import Upload

HIDDEN = "(private: its author sees it with their token)"
"""What stands in a public view where a private text was."""


@dataclass(frozen=True)
class Viewer:
    """Who asks: an author (None: anyone), and whether they are the organizer."""

    author: str | None = None
    organizer: bool = False

    def sees(self, owner: str | None) -> bool:
        """Whether this viewer may see the private parts of a bot owned by `owner` (None: a
        house bot, the organizer's)."""
        return self.organizer or (owner is not None and owner == self.author)


PUBLIC = Viewer()
"""Anyone, without a token."""


class PathScrubber:
    """Rewrites the server's own paths in a text to labels an author can read."""

    def __init__(self, folders: Mapping[Path, str]) -> None:
        pairs = [(os.path.realpath(f), label) for f, label in folders.items()]
        pairs += [(str(Path(f).absolute()), label) for f, label in folders.items()]
        ordered = sorted({p: label for p, label in pairs if len(p) > 1}.items(),
                         key=lambda item: -len(item[0]))
        self._pattern = re.compile("|".join(
            re.escape(path) + r"(?:/(?:snapshots|builds)/[0-9a-f]{8,}(?:\.[a-z]+)?)?"
            for path, _ in ordered)) if ordered else None
        self._labels = ordered

    @classmethod
    def for_league(cls, cache: Path, uploads: Path, storage: Path) -> PathScrubber:
        """The scrubber of a league: its intake cache, uploads, store, checkout and home."""
        checkout = Path(__file__).resolve().parents[2]
        return cls({cache: "<cache>", uploads: "<uploads>", storage.parent: "<league>",
                    checkout: "<arena>", Path(tempfile.gettempdir()): "<tmp>",
                    Path.home(): "~"})

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(self._label, text)

    def _label(self, match: re.Match[str]) -> str:
        found = match.group(0)
        for path, label in self._labels:
            if found.startswith(path):
                rest = found[len(path):]
                if rest.startswith(("/snapshots/", "/builds/")):
                    return "<your bot>"  # a snapshot's or build's folder: the bot's own
                return label + rest
        return found


def seat_owners(record: Mapping[str, Any], owners: Mapping[str, str]) -> list[str | None]:
    """The author of each seat's bot in a record (None: a house bot); `owners` maps bot
    names to authors."""
    seats = record.get("seats")
    if not isinstance(seats, list):
        entrants = record.get("entrants") or [{}, {}]
        seats = [entrants[0], entrants[1], entrants[0], entrants[1]]
    return [owners.get(str(s.get("name"))) if isinstance(s, dict) else None for s in seats]


def game_view(record: Mapping[str, Any], owners: Mapping[str, str], viewer: Viewer,
              scrub: PathScrubber) -> dict[str, Any]:
    """A game record as `viewer` may see it: each seat's output and its fault's details only
    where the viewer sees that seat's bot; every text scrubbed of the server's paths."""
    view = copy.deepcopy(dict(record))
    if not view:
        return view
    allowed = [viewer.sees(owner) for owner in seat_owners(view, owners)]
    for key in ("entrants", "seats"):  # their folders are the server's
        if isinstance(view.get(key), list):
            view[key] = _scrubbed(view[key], scrub)
    output = view.get("bot_output")
    if isinstance(output, list):
        view["bot_output"] = [scrub(str(text)) if k < len(allowed) and allowed[k] else
                              (HIDDEN if text else "") for k, text in enumerate(output)]
    fault = view.get("fault")
    if isinstance(fault, dict):
        view["fault"] = _fault_view(fault, allowed, scrub)
    return view


def _fault_view(fault: dict[str, Any], allowed: list[bool], scrub: PathScrubber
                ) -> dict[str, Any]:
    """A fault as a viewer allowed `allowed[seat]` may see it."""
    seat = fault.get("seat")
    details = fault.get("details")
    fault["message"] = scrub(str(fault.get("message", "")))
    if not isinstance(details, dict):
        return fault
    if isinstance(seat, int) and 0 <= seat < len(allowed):
        fault["details"] = _scrubbed(details, scrub) if allowed[seat] else {"private": HIDDEN}
    elif isinstance(details.get("faults"), list):  # both teams failed: each seat's own
        fault["details"] = {**{k: v for k, v in details.items() if k != "faults"}, "faults": [
            _fault_view(dict(f), allowed, scrub) for f in details["faults"]
            if isinstance(f, dict)]}
    else:
        fault["details"] = _scrubbed(details, scrub)
    return fault


def _scrubbed(value: Any, scrub: PathScrubber) -> Any:
    """`value` with every string in it scrubbed of the server's paths."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: _scrubbed(v, scrub) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v, scrub) for v in value]
    return value


def upload_view(upload: Upload, viewer: Viewer, scrub: PathScrubber) -> dict[str, Any]:
    """An upload as `viewer` may see it: its build log and the command reproducing its
    failure only for its author and the organizer; the reason scrubbed of paths."""
    data = upload.public()
    data["reason"] = scrub(upload.reason)
    if viewer.sees(upload.author):
        data["log"], data["command"] = scrub(upload.log), scrub(upload.command)
    else:
        data["log"] = HIDDEN if upload.log else ""
        data["command"] = ""
    return data


def seat_messages_view(stream: dict[str, Any], scrub: PathScrubber) -> dict[str, Any]:
    """A seat's messages (`arena.referee.seatstream`'s JSON) as its author sees them: its
    output and its fault scrubbed of the server's paths. Give it only to a viewer who
    `sees` that seat's bot."""
    view = dict(stream)
    view["output"] = scrub(str(view.get("output", "")))
    if isinstance(view.get("fault"), dict):
        view["fault"] = _scrubbed(view["fault"], scrub)
    return view

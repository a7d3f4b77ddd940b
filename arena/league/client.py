"""The client of `arena upload`, `arena practice`, `arena failures --server` and `arena
reproduce`: send a bot folder or archive to a league and follow its intake; ask for a
practice game and follow it; read a bot's failures; fetch the messages one seat of a game
was sent.

Standard library only (an author needs no extra to upload). A folder is packed as intake
would take it (`arena.intake.pack_snapshot`: the files a snapshot keeps), into a .tar.
"""

from __future__ import annotations

import json
import secrets
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from arena.errors import ArenaError, ConfigError
from arena.intake import ARCHIVE_SUFFIXES, DEFAULT_INTAKE_LIMITS, pack_snapshot, take_snapshot
from arena.league.accounts import PracticeStatus, UploadStatus
from arena.referee.manifest import load_manifest


class UploadFailed(ArenaError):
    """The league refused the upload, or its intake failed."""


@contextmanager
def archive_of(path: Path) -> Iterator[Path]:
    """`path` if it is an archive, else a .tar of the folder's snapshot."""
    if path.is_file() and path.name.lower().endswith(ARCHIVE_SUFFIXES):
        yield path
        return
    if not path.is_dir():
        raise ConfigError(f"{path}: not a bot folder or a {', '.join(ARCHIVE_SUFFIXES)} "
                          "archive")
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as scratch:
        snapshot = take_snapshot(path, Path(scratch) / "snap", DEFAULT_INTAKE_LIMITS)
        out = Path(scratch) / f"{path.name}.tar"
        out.write_bytes(pack_snapshot(snapshot.folder))
        yield out


def bot_name(path: Path) -> str:
    """The bot's name from its folder's bot.toml (ConfigError for an archive: give --name)."""
    if path.is_dir():
        return load_manifest(path).name
    raise ConfigError(f"{path}: an archive: say the bot's name with --name")


def _request(url: str, data: bytes | None = None, headers: dict[str, str] | None = None
             ) -> dict[str, Any]:
    request = urllib.request.Request(url, data=data, headers=headers or {},
                                     method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return dict(json.loads(response.read()))
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read()).get("error", exc.reason)
        except ValueError:
            message = exc.reason
        raise UploadFailed(f"{url}: {exc.code}: {message}") from None
    except urllib.error.URLError as exc:
        raise UploadFailed(f"{url}: cannot reach the league: {exc.reason}") from None


def upload(path: str | Path, server: str, token: str, name: str | None = None) -> int:
    """Upload the bot at `path`; its upload id. UploadFailed with the league's message."""
    path = Path(path)
    name = name or bot_name(path)
    with archive_of(path) as archive:
        boundary = secrets.token_hex(16)
        body = b"".join([
            f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n'
            f"{name}\r\n".encode(),
            f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; '
            f'filename="{archive.name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
            .encode(), archive.read_bytes(), f"\r\n--{boundary}--\r\n".encode()])
    reply = _request(server.rstrip("/") + "/api/bots", body, {
        "Authorization": f"Bearer {token}",
        "Content-Type": f"multipart/form-data; boundary={boundary}"})
    return int(reply["id"])


def practice(server: str, token: str, bot: str, opponent: str,
             version: str | None = None) -> dict[str, Any]:
    """Ask for an unrated practice game of your bot `bot` against the active entrant
    `opponent`; the league's answer (its `id`, and its `page` to watch it live).
    UploadFailed with the league's message (401/403 token, 404 unknown bot or entrant, 429
    over the daily limit)."""
    body = {"bot": bot, "opponent": opponent, **({"version": version} if version else {})}
    return _request(server.rstrip("/") + "/api/practice", json.dumps(body).encode(), {
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})


def bot(server: str, name: str, token: str | None = None) -> dict[str, Any]:
    """Bot `name`'s JSON (`GET /api/bots/{name}`); with its author's `token`, the stderr of
    its failures is in it. UploadFailed with the league's message (404: no such bot)."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return _request(f"{server.rstrip('/')}/api/bots/{quote(name, safe='')}", headers=headers)


def follow_practice(server: str, practice_id: int, say: Callable[[dict[str, Any]], None],
                    token: str | None = None, timeout: float = 3600.0, poll: float = 0.5
                    ) -> dict[str, Any]:
    """Poll the practice game's status, telling `say` each new one, until done or failed
    (with the author's `token`, their bot's output is in the game's record)."""
    return _follow(f"{server.rstrip('/')}/api/practice/{practice_id}", PracticeStatus, say,
                   timeout, poll, f"practice game {practice_id}", token)


def follow(server: str, upload_id: int, say: Callable[[dict[str, Any]], None],
           token: str | None = None, timeout: float = 3600.0, poll: float = 0.5
           ) -> dict[str, Any]:
    """Poll the upload's status, telling `say` each new one, until it is final (with the
    author's `token`, a failed upload's build log and command are in it)."""
    return _follow(f"{server.rstrip('/')}/api/uploads/{upload_id}", UploadStatus, say, timeout,
                   poll, f"upload {upload_id}", token)


def _follow(url: str, kind: type[UploadStatus] | type[PracticeStatus],
            say: Callable[[dict[str, Any]], None], timeout: float, poll: float, what: str,
            token: str | None) -> dict[str, Any]:
    """Poll `url` until its status (of `kind`, put in the answer as that enum) is final."""
    seen = None
    deadline = time.monotonic() + timeout
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    while True:
        status = _request(url, headers=headers)
        try:
            status["status"] = kind(str(status.get("status")))
        except ValueError:
            raise UploadFailed(f"{url}: the league answered the status "
                               f"{status.get('status')!r}, which this arena does not know "
                               "(is the league newer? update the arena)") from None
        if status["status"] != seen:
            seen = status["status"]
            say(status)
        if status["status"].final:
            return status
        if time.monotonic() > deadline:
            raise UploadFailed(f"{what} still {seen} after {timeout:.0f} s")
        time.sleep(poll)


def seat_messages(server: str, game_id: str, seat: int | None, token: str) -> dict[str, Any]:
    """The messages one seat of a league game (or of a practice game: `practice/ID`) was
    sent, for `arena reproduce` (a `SeatStream`'s JSON); `seat` None: the seat charged with
    the game's fault. UploadFailed with the league's message (401 no token, 403 not your
    seat, 404 no such game); ConfigError for a practice id that is not a number."""
    base = server.rstrip("/")
    headers = {"Authorization": f"Bearer {token}"}
    practice = game_id.removeprefix(PRACTICE) if game_id.startswith(PRACTICE) else None
    if practice is not None and not practice.isdigit():
        raise ConfigError(f"{game_id}: a practice game is {PRACTICE}ID, its number")
    game_url = f"{base}/api/practice/{practice}" if practice is not None else \
        f"{base}/api/games/{urllib.parse.quote(game_id, safe='')}"
    if seat is None:
        found = _request(game_url, headers=headers)
        seat = (found.get("game") or {}).get("fault_seat") if practice is not None else \
            found.get("fault_seat")
        if not isinstance(seat, int):
            raise UploadFailed(f"{game_id}: no single seat is charged with a fault there "
                               "(or the game is not over): name the seat with --seat")
    return _request(f"{game_url}/seats/{seat}/messages", headers=headers)


PRACTICE = "practice/"
"""How `arena reproduce` names a practice game: practice/ID, as its page's path ends."""

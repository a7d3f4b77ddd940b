"""The `arena` commands about tournaments (registered on the main group by `register`).

Thin click commands over the library: parse arguments, call, print; no game logic here.
A `ConfigError` exits 2 naming file, key and problem; other `ArenaError`s exit 1
(`output.ArenaCommand`); an interrupted run exits 130 saying how to resume.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from arena.cli.output import ArenaCommand, echo, failure
from arena.errors import ArenaError, ConfigError

FORMATS = ("terminal", "markdown", "html", "csv", "json")
_INTERRUPTED = 130


def _config(path: str, bots: bool = True):
    from arena.tournament.config import load_config

    return load_config(path, bots)


_PIN_OPTION = click.option(
    "--pin/--no-pin", default=None,
    help="Each worker and its bots on a CPU of their own (default: the config's pin_cpus, "
         "else yes). --no-pin for bots that think with several threads.")


def _with_pin(config: Any, pin: bool | None) -> Any:
    """A TournamentConfig with --pin/--no-pin applied over its pin_cpus."""
    return config if pin is None else dataclasses.replace(config, pin_cpus=pin)


def register(main: click.Group) -> None:
    """Add this module's commands to the `arena` group."""
    main.add_command(tournament)
    main.add_command(submit)
    main.add_command(standings)
    main.add_command(sprt)
    main.add_command(report)
    main.add_command(failures)
    main.add_command(withdraw)


# ----- arena tournament --------------------------------------------------------------------

class _Listener:
    """Shows a run's news and progress on stderr: a bar on a terminal, else a line per pair."""

    def __init__(self, pairs_per_matchup: int) -> None:
        self.progress: Any = None
        self.pairs_per_matchup = pairs_per_matchup

    def note(self, text: str) -> None:
        echo(text, err=True, one_line=True)  # a line of news: it may quote a build command

    def started(self, total: int, standings: str) -> None:
        from arena.tournament.progress import Progress

        self.progress = Progress(total)
        self.progress.advance(0, standings)

    def game(self, row: Any, pair_done: bool, standings: str) -> None:
        game = row.game
        pair = f"{_pair_name(game)}: pair {game.pair_index + 1} of {self.pairs_per_matchup}"
        self.progress.advance(1, standings, pair if pair_done else None)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.close()


def _pair_name(game: Any) -> str:
    """'a vs b', or with mixed partners 'a & b vs c & d' (bot names)."""
    def name(key: str) -> str:
        return key.split("@")[0]

    first, second = game.matchup
    if game.partners is None:
        return f"{name(first)} vs {name(second)}"
    return (f"{name(first)} & {name(game.partners[0])} vs {name(second)} & "
            f"{name(game.partners[1])}")


@click.command(cls=ArenaCommand)
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("-j", "--workers", type=click.IntRange(min=1), default=None,
              help="Games in parallel (default: the config's concurrency, else the cores).")
@click.option("--standings/--no-standings", "show_standings", default=True, show_default=True,
              help="Print the ranking table at the end.")
@click.option("--skip-unbuildable", is_flag=True, default=None,
              help="Leave out (and name) the bots that cannot be built, instead of refusing "
                   "to start (default: the config's skip_unbuildable).")
@_PIN_OPTION
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Play the games on the Dask cluster whose scheduler is at ADDRESS "
                   "(tcp://HOST:8786), or on 'local:N' worker processes started here "
                   "(default: the config's cluster, else local workers; needs the cluster "
                   "extra).")
@click.option("--plan", "plan_only", is_flag=True,
              help="Play nothing: say what the next run would play (matchups, games, per "
                   "entrant), about how long it would take here, and how wide the ratings' "
                   "intervals would be.")
@click.option("--format", "fmt", type=click.Choice(("terminal", "json")), default=None,
              help="With --plan: the plan as text (default) or JSON.")
def tournament(config: str, workers: int | None, show_standings: bool,
               skip_unbuildable: bool | None, pin: bool | None, cluster: str | None,
               plan_only: bool, fmt: str | None) -> None:
    """Play the round robin of CONFIG (a tournaments/*.toml), resuming where it stopped.

    Every matchup plays its duplicate pairs; games run on parallel workers (or a Dask
    cluster's, --cluster) and each is stored as it ends, so Ctrl-C (or a kill) loses
    nothing: run the same command to continue. One run per store: a second run on the same
    store is refused. --plan plays nothing and builds nothing: it prints what the next run
    would play, the time it would take here and the intervals it would give.
    """
    from arena.tournament.config import address_problem
    from arena.tournament.runner import TournamentInterrupted, run_tournament

    problem = None if cluster is None else address_problem(cluster)
    if problem:
        raise click.BadParameter(problem, param_hint="'--cluster'")
    if fmt is not None and not plan_only:
        raise click.UsageError("--format goes with --plan (a run prints its own lines)")
    if plan_only:
        _print_plan(_config(config), workers, cluster, fmt or "terminal")
        return
    cfg = _with_pin(_config(config), pin)
    listener = _Listener(cfg.cycles if cfg.mixed else cfg.games_per_matchup // 2)
    try:
        summary = run_tournament(cfg, workers, listener, skip_unbuildable, cluster)
    except TournamentInterrupted as exc:
        listener.close()
        echo(f"Error: {exc}", err=True)
        raise SystemExit(_INTERRUPTED) from None
    finally:
        listener.close()
    echo(f"{cfg.name}: {summary.played} games played in {summary.seconds:.1f} s "
         f"({summary.games_per_second:.2f} games/s, {summary.workers} workers); "
         f"{summary.stored} games stored, {summary.pending} scheduled games missing.")
    if summary.pending:
        echo("Some games could not be played; run the same command again to retry them.",
             err=True)
    if show_standings and summary.stored:
        echo("")
        try:
            echo(_standings_text(cfg.storage, _anchor_options(cfg, None, None, None),
                                 False, False, 0, True, "terminal"), nl=False)
        except ArenaError as exc:  # e.g. not enough games to rate yet
            echo(f"No standings yet: {exc}", err=True)
    if summary.pending:
        raise SystemExit(1)


def _print_plan(cfg: Any, workers: int | None, cluster: str | None, fmt: str) -> None:
    from arena.tournament.plan import plan_tournament

    plan = plan_tournament(cfg, workers, cluster)
    echo(plan.to_json() if fmt == "json" else "\n".join(plan.lines()))


# ----- arena submit ------------------------------------------------------------------------

@click.command("submit", cls=ArenaCommand)
@click.argument("bot_dir", type=click.Path(file_okay=False))
@click.option("--tournament", "config", required=True, type=click.Path(dir_okay=False),
              help="The tournament config to add the bot to.")
def submit(bot_dir: str, config: str) -> None:
    """Add the bot in BOT_DIR (or its new version) to a tournament; the next run of the
    tournament plays only the matchups it is missing."""
    from arena.tournament.runner import submit as submit_bot

    cfg = _config(config)
    row, new = submit_bot(cfg, bot_dir)
    what = "added" if new else "already entered"
    echo(f"{row.name} version {row.version} ({row.bot_version}) {what}: {row.key}. "
         f"Run `arena tournament {config}` to play its games.")


@click.command(cls=ArenaCommand)
@click.argument("name")
@click.option("--tournament", "config", required=True, type=click.Path(dir_okay=False),
              help="The tournament config the bot was submitted to.")
@click.option("--undo", is_flag=True, help="Bring a withdrawn bot back.")
def withdraw(name: str, config: str, undo: bool) -> None:
    """Withdraw the bot NAME that `arena submit` added: no more games for it, and it leaves
    the standings (every version); its games are kept. --undo brings it back. A bot listed
    in the config is withdrawn by removing it from the config's entrants."""
    from arena.tournament.runner import withdraw as withdraw_bot

    cfg = _config(config)
    rows = withdraw_bot(cfg, name, undo)
    versions = ", ".join(f"{e.version[:8]} ({e.bot_version})" for e in rows)
    if undo:
        echo(f"{name} is back ({versions}): run `arena tournament {config}` to play its "
             "missing games.")
    else:
        echo(f"{name} withdrawn ({versions}): no more games, and out of the standings; its "
             f"games are kept (`arena withdraw {name} --tournament {config} --undo` brings it "
             "back).")


# ----- arena standings ---------------------------------------------------------------------

def _anchor_options(cfg: Any, anchor: str | None, anchor_elo: float | None,
                    prior: float | None) -> dict[str, Any]:
    """Rating options: command-line values over the config's (or, with no config, the
    store's, filled in later). An anchor named on the command line must exist; the config's
    falls back to mean-centred ratings when no entrant has that name."""
    options: dict[str, Any] = {"anchor": anchor, "anchor_elo": anchor_elo, "prior": prior,
                               "explicit": anchor is not None}
    if cfg is not None:
        r = cfg.ratings
        options.update({"anchor": r.anchor if anchor is None else anchor,
                        "anchor_elo": r.anchor_elo if anchor_elo is None else anchor_elo,
                        "prior": r.prior if prior is None else prior})
    return options


def _rating_options(store: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The anchor's key (or, for a config's anchor that names no entrant, the name itself:
    the standings then say so in a note), its rating and the prior."""
    from arena.tournament.runner import resolve_entrant

    anchor = options["anchor"]
    anchor = store.meta("anchor") if anchor is None else anchor
    elo = options["anchor_elo"]
    elo = float(store.meta("anchor_elo") or 0.0) if elo is None else elo
    prior = options["prior"]
    prior = float(store.meta("prior") or 2.0) if prior is None else prior
    key = None
    if anchor:
        try:
            key = resolve_entrant(store, anchor)
        except ConfigError:
            if options["explicit"]:
                raise
            key = anchor
    return {"anchor": key, "anchor_elo": elo, "prior": prior}


def _standings_text(storage: Path, options: dict[str, Any], matrix: bool, matchups: bool,
                    bootstrap: int, current: bool, fmt: str) -> str:
    from arena.presentation.tables import (
        matchup_table,
        matrix_tables,
        standings_table,
        synergy_table,
    )
    from arena.tournament.runner import labels
    from arena.tournament.store import Store

    with Store(storage, create=False) as store:
        keys = [e.key for e in store.entrants() if not e.retired or not current]
        result = _compute_standings(store, keys, current, bootstrap, options)
        names = labels(store)
        header = _header(store)
    sections: list[tuple[str, Callable[[], str]]] = [
        ("standings", lambda: header.get(fmt, "") + standings_table(result, names, fmt))]
    synergy = result.synergy
    if synergy is not None:
        sections.append(("synergy", lambda: synergy_table(synergy, names, fmt)))
    if matrix:
        sections.append(("matrix", lambda: matrix_tables(result, names, fmt)))
    if matchups:
        sections.append(("matchups", lambda: matchup_table(result.matchups, names, fmt,
                                                           result)))
    if fmt == "json":
        return json.dumps({name: json.loads(make()) for name, make in sections},
                          indent=2) + "\n"
    return "\n".join(make() for _, make in sections)


def _compute_standings(store: Any, keys: list[str], current: bool, bootstrap: int,
                       options: dict[str, Any]) -> Any:
    """The store's standings: individual ones (with the synergy) if it holds mixed partners;
    ArenaError if it holds no games."""
    from arena.ratings.standings import compute_mixed_standings, compute_standings

    wanted = keys if current else None
    if store.partners() == "mixed":
        teams = store.team_results(wanted)
        if not teams:
            raise ArenaError(f"{store.path}: no games stored yet")
        return compute_mixed_standings(teams, bootstrap=bootstrap, entrants=keys,
                                       **_rating_options(store, options))
    games = store.results(wanted)
    if not games:
        raise ArenaError(f"{store.path}: no games stored yet")
    return compute_standings(games, bootstrap=bootstrap, entrants=keys,
                             **_rating_options(store, options))


def _header(store: Any) -> dict[str, str]:
    """Lines to print above the standings, by format (terminal and markdown only, escaped for
    it: a reason quotes a bot's build command): how the bots were isolated, public deals (a
    fixed seed), entrants the last run left out."""
    from arena.presentation.safe import markdown_cell, terminal
    from arena.tournament.runner import isolations, left_out, stored_deals

    lines = []
    levels = isolations(store)
    if levels == ["sandbox"]:
        lines.append("Isolation: sandbox (every bot process in a sandbox of its own).")
    elif levels:
        lines.append("Isolation: none in " + ("every run" if levels == ["none"] else "some runs")
                     + ": bots ran as the referee's user, unsandboxed, so a hostile entrant "
                       "could have read or changed what it must not (arena doctor says why).")
    movement = store.meta("movement")
    if store.partners() == "mixed" and movement:
        lines.append(f"Partners: {movement}.")
    deals = stored_deals(store)
    if deals is not None and deals != "secret":
        lines.append(f"Deals: fixed seed {deals.split()[1]} (tournament.seed): reproducible, "
                     "and public: anyone who knows the seed can compute every hand.")
    for name, reason in left_out(store):
        lines.append(f"Left out of the last run: {name} ({reason}).")
    if not lines:
        return {}
    return {"terminal": "".join(f"{terminal(line)}\n" for line in lines) + "\n",
            "markdown": "".join(f"> {markdown_cell(line)}\n" for line in lines) + "\n"}


def _storage(target: str) -> tuple[Path, Any]:
    """A config file's store (and the config, its bot folders unread: reading results never
    needs them), or a store file given directly."""
    if target.endswith(".toml"):
        cfg = _config(target, bots=False)
        return cfg.storage, cfg
    return Path(target), None


@click.command(cls=ArenaCommand)
@click.argument("target", type=click.Path(dir_okay=False))
@click.option("--matrix", is_flag=True, help="Add the head-to-head crosstable and LOS matrix.")
@click.option("--matchups", is_flag=True,
              help="Add the per-matchup view: pair outcomes, score, Elo difference.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="terminal",
              show_default=True, help="Output format (csv: sections separated by a blank "
              "line; json: one object with a key per section).")
@click.option("--anchor", default=None,
              help="Entrant (bot name or key) held at --anchor-elo; default: the config's "
              "[ratings] anchor; '' centres the mean rating.")
@click.option("--anchor-elo", type=float, default=None, help="The anchor's rating (default 0).")
@click.option("--prior", type=click.FloatRange(min=0.0), default=None,
              help="Virtual draws on the matchups between groups that never lost to each "
                   "other, where the estimate would be infinite (default 2).")
@click.option("--bootstrap", type=click.IntRange(min=0), default=0, show_default=True,
              help="Bootstrap replicates over pairs, to cross-check the intervals.")
@click.option("--all-versions", is_flag=True,
              help="Rank every version of each bot that played, older ones marked retired "
                   "(default: one row per bot, its current version).")
@click.option("--current", is_flag=True, hidden=True,
              help="The default now: only the current version of each bot.")
def standings(target: str, matrix: bool, matchups: bool, fmt: str, anchor: str | None,
              anchor_elo: float | None, prior: float | None, bootstrap: int,
              all_versions: bool, current: bool) -> None:
    """Rank the entrants of TARGET (a tournament config or its .sqlite store) by Elo.

    Forfeits count as losses for the offender; a harness fault voids its pair. One row per
    bot, its current version (rated on the games between current versions); --all-versions
    ranks every version that played, older ones marked retired. A tournament of mixed
    partners shows individual ratings and, under them, the synergy of every partnership
    (pairs far outside the field flagged).
    """
    storage, cfg = _storage(target)
    options = _anchor_options(cfg, anchor, anchor_elo, prior)
    if bootstrap == 1:
        raise click.BadParameter("use 0 (none) or at least 2 replicates",
                                 param_hint="--bootstrap")
    echo(_standings_text(storage, options, matrix, matchups, bootstrap, not all_versions,
                         fmt), nl=False)


# ----- arena sprt ----------------------------------------------------------------------------

class _SprtProgress:
    """Progress of `arena sprt --play` on stderr: redrawn in place on a terminal, one line per
    complete pair otherwise (so that a log shows the test moving)."""

    def __init__(self, cfg: Any) -> None:
        import sys

        self.cfg = cfg
        self.tty = sys.stderr.isatty()
        self.names: dict[str, tuple[str, str]] | None = None
        self.pairs = -1
        self.shown = False

    def __call__(self, result: Any, games: int, a: str, b: str) -> None:
        from arena.presentation.tables import sprt_progress_line

        if self.names is None:
            from arena.tournament.runner import labels
            from arena.tournament.store import Store

            with Store(self.cfg.storage, create=False) as store:
                self.names = labels(store)
        line = sprt_progress_line(result, games, self.names, a, b)
        if self.tty:
            click.echo("\r" + line.ljust(100)[:160], nl=False, err=True)  # escaped already
            self.shown = True
        elif result.pairs != self.pairs:
            echo(line, err=True)
        self.pairs = result.pairs

    def close(self) -> None:
        if self.shown:
            echo("", err=True)
            self.shown = False


@click.command(cls=ArenaCommand)
@click.argument("a")
@click.argument("b")
@click.option("--tournament", "config", required=True, type=click.Path(dir_okay=False),
              help="The tournament config whose store holds (and receives) the pairs.")
@click.option("--elo0", type=float, default=0.0, show_default=True, help="H0: A is elo0 better.")
@click.option("--elo1", type=float, default=50.0, show_default=True, help="H1: A is elo1 better.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="False-positive rate.")
@click.option("--beta", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="False-negative rate.")
@click.option("--play", is_flag=True,
              help="Play more pairs (stored in the tournament) until decided or --max-pairs.")
@click.option("--max-pairs", type=click.IntRange(min=1), default=200, show_default=True,
              help="With --play: stop after this many pairs in all.")
@click.option("-j", "--workers", type=click.IntRange(min=1), default=None,
              help="With --play: pairs in parallel (default: the config's concurrency).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="terminal",
              show_default=True)
@_PIN_OPTION
def sprt(a: str, b: str, config: str, elo0: float, elo1: float, alpha: float, beta: float,
         play: bool, max_pairs: int, workers: int | None, fmt: str, pin: bool | None) -> None:
    """Sequential test of entrant A against B (bot names or keys) on their duplicate pairs.

    Evaluates the complete pairs stored in the tournament; with --play it plays further
    pairs (new seeds, stored like any game) in batches until the test decides. Exits 0 when
    decided, 3 while undecided.
    """
    from arena.presentation.tables import sprt_table
    from arena.ratings.sprt import Verdict
    from arena.tournament.sprt_runner import run_sprt

    if elo0 >= elo1:
        raise click.BadParameter("must be above --elo0", param_hint="--elo1")
    cfg = _with_pin(_config(config), pin)
    progress = _SprtProgress(cfg)
    try:
        result, key_a, key_b, names = run_sprt(cfg, a, b, elo0, elo1, alpha, beta, play,
                                               max_pairs, workers, progress,
                                               lambda text: echo(text, err=True, one_line=True))
    except KeyboardInterrupt:
        progress.close()
        echo("Error: interrupted; the pairs played so far are stored.", err=True)
        raise SystemExit(_INTERRUPTED) from None
    progress.close()
    echo(sprt_table(result, key_a, key_b, names, fmt), nl=False)
    if result.decision is Verdict.CONTINUE:
        raise SystemExit(3)


# ----- arena report --------------------------------------------------------------------------

@click.command(cls=ArenaCommand)
@click.argument("target", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(file_okay=False), default=None,
              help="The folder to write (default: the store's name + '.report', beside it).")
@click.option("--anchor", default=None,
              help="Entrant (bot name or key) held at --anchor-elo; default: the config's.")
@click.option("--anchor-elo", type=float, default=None, help="The anchor's rating (default 0).")
@click.option("--prior", type=click.FloatRange(min=0.0), default=None,
              help="Virtual draws on matchups between groups that never lost to each other "
                   "(default 2).")
@click.option("--watch", is_flag=True,
              help="Keep the report up to date while the tournament runs (Ctrl-C to stop); "
                   "the pages reload themselves.")
@click.option("--interval", type=click.FloatRange(min=0.5), default=5.0, show_default=True,
              help="With --watch: seconds between checks for new games.")
def report(target: str, output: str | None, anchor: str | None, anchor_elo: float | None,
           prior: float | None, watch: bool, interval: float) -> None:
    """Write the web report of TARGET (a tournament config or its .sqlite store): a static
    site, viewable offline, with standings, crosstable, hand statistics, every game and a
    replay viewer. Works on a tournament in progress; --watch refreshes it as games arrive.
    """
    from arena.presentation.report import ReportBuilder
    from arena.tournament.store import Store

    storage, cfg = _storage(target)
    options = _anchor_options(cfg, anchor, anchor_elo, prior)
    with Store(storage, create=False) as store:
        rating = _rating_options(store, options)
    out = Path(output) if output else storage.with_name(storage.name + ".report")
    if output is None:  # beside the store, like the records: data, not source
        out.mkdir(parents=True, exist_ok=True)
        (out / ".gitignore").write_text("# A tournament's web report (arena report).\n*\n")
    builder = ReportBuilder(storage, out, rating, cfg.games_per_matchup if cfg else None,
                            cfg.name if cfg else None,
                            cfg.cycles if cfg is not None and cfg.mixed else None)
    refresh = max(2, int(round(interval))) if watch else None
    result = builder.build(refresh)
    echo(_built(result))
    if not watch:
        return
    _watch(builder, storage, interval, refresh)


def _built(result: Any) -> str:
    return (f"{result.folder / 'index.html'}: {result.games} games ({result.new_games} read "
            f"now), {result.files} files, {result.bytes / 1e6:.1f} MB, "
            f"{result.seconds:.1f} s")


def _watch(builder: Any, storage: Path, interval: float, refresh: int | None) -> None:
    """Rebuild whenever the store changes, until Ctrl-C or SIGTERM; then a last build without
    the pages' self-reload (a page left reloading would poll a report nobody updates)."""
    import signal
    import time

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)

    def stamp() -> tuple[float, float]:
        wal = storage.with_name(storage.name + "-wal")
        return (storage.stat().st_mtime, wal.stat().st_mtime if wal.exists() else 0.0)

    seen = stamp()
    echo(f"Watching {storage} every {interval:g} s; Ctrl-C to stop.", err=True)
    try:
        while True:
            time.sleep(interval)
            now = stamp()
            if now != seen:
                seen = now
                result = builder.build(refresh)
                if result.new_games:
                    echo(_built(result), err=True)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut it short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        echo(_built(builder.build(None)))


# ----- arena failures ----------------------------------------------------------------------

@click.command(cls=ArenaCommand)
@click.argument("name")
@click.option("--tournament", "target", type=click.Path(dir_okay=False),
              help="The tournament config (or its .sqlite store) whose games to look at.")
@click.option("--server", default=None,
              help="A league's URL instead: the bot's newest failures there.")
@click.option("--token", envvar="ARENA_TOKEN", default=None,
              help="With --server: your token (or set ARENA_TOKEN), to see your bot's stderr.")
def failures(name: str, target: str | None, server: str | None, token: str | None) -> None:
    """List every failure of the bot NAME (every version of it; or one entrant key) in a
    tournament, or its newest in a league: the game, the kind of fault, when (round and
    decision), the referee's message, the end of the bot's own output (its stderr: a
    traceback, an assertion), escaped, and the `arena reproduce` command that replays the
    game to your bot."""
    if (target is None) == (server is None):
        raise click.UsageError("give either --tournament or --server")
    if server is not None:
        _league_failures(name, server, token)
        return
    assert target is not None  # checked above
    from arena.presentation.failures import failure_lines, failures_of, reproduce_command
    from arena.tournament.runner import labels
    from arena.tournament.store import Store

    storage, _ = _storage(target)
    with Store(storage, create=False) as store:
        rows = store.entrants()
        keys = [e.key for e in rows if name in (e.key, e.name)]
        if not keys:
            known = ", ".join(sorted({e.name for e in rows})) or "none"
            raise ConfigError(f"{storage}: no entrant named {name!r} (entrants: {known})")
        names = labels(store)
        found = failures_of(store, keys)
        played = [g for g in store.games() if set(keys) & set(g.teams)]
        records = {g.game_id: str(store.record_path(g.record)) for g in played}
    for seat_failure in found:
        label = " ".join(names.get(seat_failure.entrant, (seat_failure.entrant, "")))
        command = reproduce_command(records[seat_failure.game_id], seat_failure.seat)
        for line in failure_lines(seat_failure, label.strip(), command):
            echo(line)
        echo("")
    echo(f"{name}: {len(found)} failure{'s' if len(found) != 1 else ''} in {len(played)} "
         f"game{'s' if len(played) != 1 else ''}.")


def _league_failures(name: str, server: str, token: str | None) -> None:
    """`arena failures --server`: the newest failures of bot NAME in a league."""
    from arena.league.client import UploadFailed, bot
    from arena.presentation.failures import SeatFailure, failure_lines

    try:
        data = bot(server, name, token)
    except UploadFailed as exc:
        raise failure(str(exc)) from None
    for f in data.get("failures", []):
        seat_failure = SeatFailure(f["game"], f["seat"], f["kind"], f["message"], f["round"],
                                   f["decision"], f["output"], f["version"])
        for line in failure_lines(seat_failure, f["version"], f["reproduce"]):
            echo(line)
        echo(f"  replay: {server.rstrip('/')}{f['replay']}")
        echo("")
    counts = [sum(v["failures"].values()) for v in data.get("versions", [])]
    echo(f"{name}: {sum(counts)} game{'s' if sum(counts) != 1 else ''} forfeited in the league; "
         f"the newest {len(data.get('failures', []))} above.")

"""The league: a tournament that never ends, behind a web server, open to uploads.

The same arena as `arena tournament`, not a second one: its config is a tournament config
with a [league] table (`config.py`), its games are played by the tournament's workers (or
its Dask cluster) into the tournament's store (`server.py`, which runs the scheduler, the
workers and the web server in one process), its entrants come in through intake and
check-bot (`uploads.py`), its standings are the ratings' tally kept ready by a process of
their own (`standings.py`), and its pages are the report's views. The web layer is `web/`:
the endpoints of the JSON API (whose schema `openapi.py` generates from the request and
response models of `models.py`), the pages and the event streams, each a module of its
kind; `app.py` assembles them into the application. It adds the
authors, their tokens and uploads (`accounts.py`, tables of the same store), the continuous
schedule (`scheduler.py`), the authors' unrated practice games, kept in a store of their
own so that nothing counts them (`practice.py`), the practice games with a person at a seat
in the browser (`seats.py`, whose seat is the guest program `seat_bridge.py`), the client of `arena upload` and `arena
practice` (`client.py`, standard library only), `arena bench league` (`bench.py`: the
league's games per second against a tournament's, and the standings' latency under
concurrent clients), `limits.py` (the web server's caps on connections and event streams,
per client and in total, and its deadlines on a request's headers and body), and
`reaper.py`, which ends at a start what a killed server's unsandboxed processes left running.
The web layer's guards on bodies, numbers and JSON are `guards.py`. What each viewer may see
(stderr, build logs, the server's paths) is `privacy.py`.

It sits above the tournament, the ratings, the presentation and the bot kit, below the CLI;
it is the only package that imports the league extra (Starlette, uvicorn, python-multipart,
msgspec), and only `app.py`, `web/`, `guards.py`, `limits.py`, `server.py`, `models.py` and
`openapi.py` do, so that `arena league invite` needs none of it. `server.py` imports the web
layer; the web layer never imports it, and says what it needs of the running league as a
protocol (`web/state.py`).
"""

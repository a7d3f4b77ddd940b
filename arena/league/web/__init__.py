"""The league's web layer: the endpoints, each a function of the request in a module of
its kind, assembled by `arena.league.app.make_app`.

`state.py` holds what the endpoints share (the league, as the `ServedLeague` this layer
declares, its config, the path scrubber, the upload quota, the event streams' registry),
reached from a request through `request.app.state`. `auth.py` says who asks (the bearer
token, a form's token and its CSRF check); `errors.py` makes the JSON errors, the error
page and the application's error handlers; `middleware.py` adds the security headers and
answers `GET /api/standings` before routing. `queries.py` gathers the data the API and the
pages share; `intake.py` receives an upload (its length, name, owner and quotas checked
before its bytes are read). The endpoints are `api.py` (the JSON API), `pages.py` (the
HTML pages and their forms, made by `arena.presentation.league_views`) and `events.py`
(the three event streams) and `play.py` (a seat at the table in the browser: its start
form, its seat's event stream, the person's answers and leaving). `answers.py` encodes each JSON answer through its model
(`arena.league.models`), so that it holds exactly the fields the schema documents.

It imports the league's other modules but never `arena.league.server`, which imports it.
"""

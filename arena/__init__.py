"""Tichu Arena: a tournament harness where Tichu bots in any language play and get ranked.

One package per stage of the flow, and data flows one way: config -> schedule -> game spec ->
referee -> game record -> store -> ratings -> tables -> CLI. Each package's docstring names
every module it holds (tests/test_module_map.py holds them to it); the layer contract in
pyproject.toml (tests/test_layers.py) says what each may import.

- `rules/`: the pure rules engine and the rule book it enforces;
- `sandbox/`: what a bot process may see and do, and the limits it runs under;
- `referee/`: one game between bot processes, from a game spec to a game record;
- `intake/`: every byte of a bot, from its author's folder or archive to a built copy;
- `ratings/`: Elo tables from game results, saying how sure they are;
- `tournament/`: config -> schedule -> games played by workers -> store, resumable;
- `presentation/`: what people read: tables, summaries, replays, the web report;
- `botkit/`: for bot authors: `arena check-bot` and `arena new-bot`;
- `env/`: learning bots: the PettingZoo environment and training data (the `train` extra);
- `league/`: a tournament that never ends behind a web server, open to uploads (the
  `league` extra);
- `cli/`: the `arena` command, and the `arena bench` benchmarks;
- `errors.py`: the one error hierarchy;
- `faults.py`: the bot-fault kinds, one list for the referee, the store, the ratings and the
  tables.

The wire protocol is the package `protocol`, beside this one: it imports nothing of `arena`.
"""

__version__ = "0.1.0"

"""Helper programs for `arena bench transport` (a raw ZeroMQ echo peer and a trivial bot)."""

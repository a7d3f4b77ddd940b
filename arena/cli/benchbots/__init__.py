"""Helper programs for `arena bench transport` and `arena bench sandbox`: a raw ZeroMQ echo
peer (`echo_peer.py`) and a trivial bot that always takes the first option (`trivial/`)."""

"""Tests of arena/league/: a real `arena league serve` process on 127.0.0.1 and a free port,
real uploads (folders and archives, hostile ones among them), real games, kill -9."""

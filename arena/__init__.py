"""Tichu Arena: a tournament harness where Tichu bots in any language play and get ranked."""

__version__ = "0.1.0"

"""The referee process's garbage collector: set once, at the first match."""

from __future__ import annotations

import gc

from arena.referee import collector


def test_the_collector_is_set_once_with_a_higher_young_threshold():
    collector.settle()
    frozen = gc.get_freeze_count()
    collector.settle()  # a later match freezes nothing more (nothing alive since is kept)
    assert gc.get_threshold()[0] == collector.YOUNG_THRESHOLD
    assert gc.get_freeze_count() == frozen

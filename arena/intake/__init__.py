"""Intake: every byte of a bot, from its author's folder or archive to a runnable, built copy.

It owns the one function every way in calls, `take_bot` (`take.py`): a snapshot of the
folder or archive, copied without following anything and refused whole if it holds what a
bot may not (`snapshot.py`), its manifest read from the copy, its build run in the sandbox
(`arena.sandbox.run_build`) once per content hash, and its command checked; a Python bot's
`requirements.txt` installed by that build into an environment of its own (`pyenv.py`, whose
`pyenv_build.py` runs in the build's sandbox); and `arena bench intake` (`bench.py`), what
intake and a sandboxed build cost. Everything after
intake (play, check-bot, a cluster worker) runs the copy, never the author's folder. It sits
above the referee (manifests) and the sandbox, below the tournament and the bot kit.
"""

from arena.intake.snapshot import (
                                   ARCHIVE_SUFFIXES,
                                   DEFAULT_INTAKE_LIMITS,
                                   SKIPPED_FOLDERS,
                                   IntakeLimits,
                                   IntakeRefused,
                                   Snapshot,
                                   content_hash,
                                   folder_version,
                                   pack_snapshot,
                                   take_snapshot,
)
from arena.intake.take import (
                                   CACHE_VAR,
                                   IntakeFailed,
                                   IntakePolicy,
                                   IntakeStage,
                                   ReadyBot,
                                   Unbuildable,
                                   build_label,
                                   default_root,
                                   forget_build,
                                   read_only,
                                   ready,
                                   remove_tree,
                                   restore_build,
                                   take_bot,
)

__all__ = ["ARCHIVE_SUFFIXES", "CACHE_VAR", "DEFAULT_INTAKE_LIMITS", "SKIPPED_FOLDERS", "IntakeFailed", "IntakeLimits", "IntakePolicy", "IntakeStage",
           "IntakeRefused", "ReadyBot", "Snapshot", "Unbuildable", "build_label", "content_hash",
           "default_root", "folder_version", "forget_build", "pack_snapshot", "read_only", "ready", "remove_tree", "restore_build",
           "take_bot", "take_snapshot"]

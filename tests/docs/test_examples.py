"""Every TOML example of the docs is taken by the arena's own loader: a tournament config by
`load_config`, a league config by `load_league`, a bot.toml by `load_manifest`. A part of a
config (a table or two, or keys of `[tournament]`) is loaded as a config of its own, the rest
left at the defaults. A block that only includes a file (`--8<--`) holds a real file of the
repository and is left out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.config import load_league
from arena.referee.manifest import load_manifest
from arena.tournament.config import load_config
from tests.docs.pages import PAGES, ROOT, blocks

EXAMPLES = [(page, text) for page in PAGES for kind, text in blocks(page)
            if kind == "toml" and not text.startswith("--8<--")]


def test_the_docs_have_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize(("page", "text"), EXAMPLES,
                         ids=[f"{p.relative_to(ROOT)}:{i}" for i, (p, _) in enumerate(EXAMPLES)])
def test_the_loader_takes_the_example(page: Path, text: str, tmp_path: Path):
    assert load_example(text, tmp_path), (
        f"{page.relative_to(ROOT)}: a TOML example that is neither a config nor a bot.toml, "
        f"which no loader can check:\n{text}")


def test_a_wrong_example_is_refused(tmp_path: Path):
    with pytest.raises(ConfigError):
        load_example("[tournament]\ngames_per_match = 2\n", tmp_path)
    with pytest.raises(ConfigError):
        load_example('name = "a b"\ncommand = ["x"]\n', tmp_path)
    assert not load_example("answer = 42\n", tmp_path)


def load_example(text: str, tmp_path: Path) -> bool:
    """Load a TOML example with the loader of its kind (ConfigError if it refuses it); False
    for an example of no kind known."""
    if "command" in text and "[tournament]" not in text and "[league]" not in text:
        (tmp_path / "bot.toml").write_text(text)
        load_manifest(tmp_path)
    elif re.search(r"^\[(tournament|time|ratings|limits|intake|build|league)\]", text, re.M) \
            or re.search(r"^(entrants|games_per_matchup|target) =", text, re.M):
        if not re.search(r"^\[tournament\]", text, re.M):
            text = "[tournament]\n" + text  # a part of a config: the rest is defaults
        config = tmp_path / "config.toml"
        config.write_text(text)
        (load_league if "[league]" in text else load_config)(config, bots=False)
    else:
        return False
    return True

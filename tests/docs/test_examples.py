"""Every TOML example of the docs is taken by the arena's own loader: a tournament config by
`load_config`, a league config by `load_league`, a bot.toml by `load_manifest`. A block that
only includes a file (`--8<--`) holds a real file of the repository and is left out."""

from __future__ import annotations

from pathlib import Path

import pytest

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
    if "[tournament]" in text:
        config = tmp_path / "config.toml"
        config.write_text(text)
        (load_league if "[league]" in text else load_config)(config, bots=False)
    elif "command" in text:
        (tmp_path / "bot.toml").write_text(text)
        load_manifest(tmp_path)
    else:
        pytest.fail(f"{page.relative_to(ROOT)}: a TOML example that is neither a config nor "
                    f"a bot.toml, which no loader can check:\n{text}")

"""The mutation score of the rules engine and the ratings, from mutmut's results in mutants/.

`make mutation` runs it after `mutmut run`. For each package (arena/rules, arena/ratings) and
each of its modules it prints the mutants checked, killed, survived and without a test (mutmut's
"no tests": no selected test reaches the mutated function, e.g. code run at import time), and
the score: killed over checked. A mutant without a test counts as not killed. Mutants not yet
checked (a run narrowed with MUTANTS, or stopped) are counted apart and left out of the score.
Then it lists every survivor and every mutant without a test by name (`mutmut show NAME`
prints its diff).

Usage: python scripts/mutation_score.py [MUTANTS_DIR]   (default: mutants)
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

PACKAGES = ("arena/rules", "arena/ratings")

# mutmut's exit codes of a mutant's test run (mutmut/stats.py, 3.8), by what they mean here.
KILLED = "killed"
SURVIVED = "survived"
NO_TESTS = "no tests"
NOT_CHECKED = "not checked"
OTHER = "other"
_STATUS = {1: KILLED, 3: KILLED, 36: KILLED, 24: KILLED, -24: KILLED, 152: KILLED,
           255: KILLED, 37: KILLED, -11: KILLED, -9: KILLED,  # timeouts, crashes, type check
           0: SURVIVED, 5: NO_TESTS, 33: NO_TESTS, None: NOT_CHECKED}


def status(exit_code: int | None) -> str:
    return _STATUS.get(exit_code, OTHER)


def load(mutants: Path) -> dict[str, dict[str, str]]:
    """Module path -> mutant name -> status, for the modules of PACKAGES."""
    result: dict[str, dict[str, str]] = {}
    for package in PACKAGES:
        for meta in sorted((mutants / package).glob("*.py.meta")):
            data = json.loads(meta.read_text())
            module = f"{package}/{meta.name.removesuffix('.meta')}"
            result[module] = {name: status(code)
                              for name, code in data["exit_code_by_key"].items()}
    return result


def line(name: str, counts: Counter[str]) -> str:
    checked = counts[KILLED] + counts[SURVIVED] + counts[NO_TESTS] + counts[OTHER]
    score = f"{100 * counts[KILLED] / checked:5.1f}%" if checked else "    -"
    return (f"{name:32} {score}  checked {checked:5}  killed {counts[KILLED]:5}  "
            f"survived {counts[SURVIVED]:4}  no tests {counts[NO_TESTS]:4}  "
            f"other {counts[OTHER]:3}  not checked {counts[NOT_CHECKED]:5}")


def main(argv: list[str]) -> int:
    mutants = Path(argv[1] if len(argv) > 1 else "mutants")
    results = load(mutants)
    if not results:
        print(f"no mutmut results under {mutants}/ (run `make mutation` first)", file=sys.stderr)
        return 1
    for package in PACKAGES:
        modules = {m: r for m, r in results.items() if m.startswith(package + "/")}
        print(line(package, Counter(s for r in modules.values() for s in r.values())))
        for module, r in modules.items():
            print(line("  " + module.removeprefix(package + "/"), Counter(r.values())))
    for wanted in (SURVIVED, NO_TESTS, OTHER):
        names = [n for r in results.values() for n, s in r.items() if s == wanted]
        if names:
            print(f"\n{wanted} ({len(names)}):")
            for name in names:
                print("  " + name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""The mutation score of the rules engine and the ratings, from mutmut's results in mutants/.

`make mutation` runs it after `mutmut run`. For each package (arena/rules, arena/ratings) and
each of its modules it prints the mutants checked, killed, survived and without a test (mutmut's
"no tests": no selected test reaches the mutated function, e.g. code run at import time), and
the score: killed over checked. A mutant without a test counts as not killed. Mutants not yet
checked (a run narrowed with MUTANTS, or stopped) are counted apart and left out of the score.
Then it lists every survivor and every mutant without a test by name (`mutmut show NAME`
prints its diff).

A module whose mutants were not all checked gets the 95% (Wilson) interval of its score
too: what the whole module's score would be if the checked ones were a uniform random sample
of them, as `--sample` picks (not as a stopped run leaves them: mutmut checks the fastest
first); a package, the estimate of its score from every module's figure weighted by the
module's number of mutants (stratified sampling), when every module has some checked.
`--sample N --module MODULE...` prints the names of N mutants of each module (e.g.
arena/ratings/fit.py) drawn at random with a fixed seed, for `make mutation MUTANTS=...`,
once `mutants/` holds them (after any `mutmut run`); `--sample N` without a module reports
on those samples alone.

Usage: python scripts/mutation_score.py [MUTANTS_DIR]   (default: mutants)
       python scripts/mutation_score.py --sample N --module MODULE [--module ...] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import Counter
from collections.abc import Iterable
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


def load(mutants: Path, sample_size: int | None = None, seed: int = 0,
         ) -> dict[str, dict[str, str]]:
    """Module path -> mutant name -> status, for the modules of PACKAGES; with a sample size,
    only the mutants `sample` draws (so a module's figures are those of its random sample,
    and its mutants outside the sample are not counted at all)."""
    result: dict[str, dict[str, str]] = {}
    for package in PACKAGES:
        for meta in sorted((mutants / package).glob("*.py.meta")):
            data = json.loads(meta.read_text())
            module = f"{package}/{meta.name.removesuffix('.meta')}"
            codes = data["exit_code_by_key"]
            names = sorted(codes) if sample_size is None else _draw(module, codes, sample_size,
                                                                   seed)
            result[module] = {name: status(codes[name]) for name in names}
    return result


def _draw(module: str, names: Iterable[str], size: int, seed: int) -> list[str]:
    keys = sorted(names)
    return sorted(random.Random(f"{seed}/{module}").sample(keys, min(size, len(keys))))


def wilson(killed: int, checked: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion killed / checked (checked > 0)."""
    p = killed / checked
    centre = (p + z * z / (2 * checked)) / (1 + z * z / checked)
    half = z * math.sqrt(p * (1 - p) / checked + z * z / (4 * checked * checked)) / (
        1 + z * z / checked)
    return centre - half, centre + half


def line(name: str, counts: Counter[str], size: int = 0) -> str:
    checked = counts[KILLED] + counts[SURVIVED] + counts[NO_TESTS] + counts[OTHER]
    score = f"{100 * counts[KILLED] / checked:5.1f}%" if checked else "    -"
    text = (f"{name:32} {score}  checked {checked:5}  killed {counts[KILLED]:5}  "
            f"survived {counts[SURVIVED]:4}  no tests {counts[NO_TESTS]:4}  "
            f"other {counts[OTHER]:3}  not checked {counts[NOT_CHECKED]:5}")
    if checked and (counts[NOT_CHECKED] or checked < size):
        low, high = wilson(counts[KILLED], checked)
        text += f"  (if sampled: {100 * low:.0f}-{100 * high:.0f}%)"
    return text


def sizes(mutants: Path) -> dict[str, int]:
    """Module path -> its number of mutants (all of them, sampled or not)."""
    return {f"{package}/{meta.name.removesuffix('.meta')}":
            len(json.loads(meta.read_text())["exit_code_by_key"])
            for package in PACKAGES for meta in sorted((mutants / package).glob("*.py.meta"))}


def stratified(modules: dict[str, dict[str, str]], size_of: dict[str, int]) -> str:
    """The package's score estimated from each module's checked mutants as a random sample of
    that module's (weighted by its number of mutants), with a 95% normal interval; empty if
    a module with mutants has none checked."""
    total = estimate = variance = 0.0
    for module, statuses in modules.items():
        counts = Counter(statuses.values())
        size = size_of[module]
        checked = len(statuses) - counts[NOT_CHECKED]
        if size and not checked:
            return ""
        if not size:
            continue
        p = counts[KILLED] / checked
        total += size
        estimate += size * p
        fpc = (size - checked) / (size - 1) if size > 1 else 0.0
        variance += size * size * p * (1 - p) / checked * fpc
    if not total:
        return ""
    half = 1.959963984540054 * math.sqrt(variance) / total
    return f"  (estimated over all: {100 * estimate / total:.1f}% +- {100 * half:.1f})"


def sample(mutants: Path, modules: list[str], size: int, seed: int) -> list[str]:
    """`size` mutant names of each module (all of them if it has fewer), drawn with `seed`."""
    names = []
    for module in modules:
        meta = mutants / f"{module}.meta"
        if not meta.exists():
            raise SystemExit(f"no mutants of {module} under {mutants}/ (run mutmut first)")
        names += _draw(module, json.loads(meta.read_text())["exit_code_by_key"], size, seed)
    return names


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mutants", nargs="?", default="mutants", help="mutmut's directory")
    parser.add_argument("--sample", type=int, metavar="N", help="print N mutants per module")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--module", action="append", default=[],
                        help="the modules to sample; without it, --sample reports on the "
                             "samples of every module")
    args = parser.parse_args(argv[1:])
    mutants = Path(args.mutants)
    if args.sample is not None and args.module:
        print(" ".join(sample(mutants, args.module, args.sample, args.seed)))
        return 0
    results = load(mutants, args.sample, args.seed)
    size_of = sizes(mutants)
    if not results:
        print(f"no mutmut results under {mutants}/ (run `make mutation` first)", file=sys.stderr)
        return 1
    for package in PACKAGES:
        modules = {m: r for m, r in results.items() if m.startswith(package + "/")}
        counts = Counter(s for r in modules.values() for s in r.values())
        text = line(package, counts)
        if counts[NOT_CHECKED]:
            # (no interval on the line when none of the package is checked yet)
            text = text.split("  (if sampled")[0] + stratified(modules, size_of)
        print(text)
        for module, r in modules.items():
            print(line("  " + module.removeprefix(package + "/"), Counter(r.values()),
                       size_of[module]))
    for wanted in (SURVIVED, NO_TESTS, OTHER):
        names = [n for r in results.values() for n, s in r.items() if s == wanted]
        if names:
            print(f"\n{wanted} ({len(names)}):")
            for name in names:
                print("  " + name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

# The two set-up commands of README.md: `make demo` and `make test`.
# Each creates its own virtual environment (.venv) and installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TRAIN  := $(VENV)/.installed-train

.PHONY: demo test test-slow bench mutation league docs docs-serve clean

# The demo needs the core dependencies only.
# pip's own output (warnings about the machine's package index settings, setuptools' notices)
# goes to $(VENV)/install.log, shown only when an install fails, so that the first screen of
# `make demo` is the arena's.
PIP    := $(BIN)/pip install --quiet --disable-pip-version-check
LOGGED  = >>$(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; exit 1; }

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	@echo "installing tichu-arena into $(VENV) (pip's log: $(VENV)/install.log)"
	@$(PIP) --upgrade pip $(LOGGED)
	@$(PIP) -e . $(LOGGED)
	touch $(STAMP)

# The tests need the test extra (pytest, hypothesis, selenium, Dask for the cluster tests),
# the train extra (numpy, gymnasium, pettingzoo: the PettingZoo environment, `arena
# export`, policy bots) and the docs extra (MkDocs: tests/docs builds the site strictly);
# `make demo` does without all three.
# pip compiles each file it installs to bytecode one after the other; compileall does it on
# every CPU (with a CPU-heavy job beside it, 28 s for both steps where pip alone took 32 s).
# The bytecode must be there before the tests: a sandboxed bot cannot write it (numpy, for a
# policy bot), and four test workers importing the same package at once would each compile it.
$(TRAIN): $(STAMP)
	@echo "installing the test, train and docs extras into $(VENV) (pip's log: $(VENV)/install.log)"
	@$(PIP) --no-compile -e '.[test,train,docs]' $(LOGGED)
	@$(BIN)/python -m compileall -q -j 0 $(VENV)/lib $(LOGGED)
	touch $(TRAIN)

# mutmut, for `make mutation` only (its own extra: the tests and CI do without it).
MUTATION := $(VENV)/.installed-mutation
$(MUTATION): $(TRAIN)
	@echo "installing the mutation extra into $(VENV) (pip's log: $(VENV)/install.log)"
	@$(PIP) -e '.[test,train,mutation]' $(LOGGED)
	touch $(MUTATION)

# The league extra (the web server's parts: Starlette, uvicorn, python-multipart, msgspec);
# `make league` installs it, then serves tournaments/league.toml until Ctrl-C.
LEAGUE := $(VENV)/.installed-league
$(LEAGUE): $(STAMP)
	@echo "installing the league extra into $(VENV) (pip's log: $(VENV)/install.log)"
	@$(PIP) -e '.[league]' $(LOGGED)
	touch $(LEAGUE)

league: $(LEAGUE)
	sh scripts/setup-bots.sh
	$(BIN)/arena league serve tournaments/league.toml

demo: $(STAMP)
	sh scripts/setup-bots.sh
	$(BIN)/arena tournament tournaments/demo.toml

# Four tests at a time (pytest-xdist): most of them wait on bot processes, not on a CPU.
# `make test` leaves out the tests marked slow (the soak test, builds of whole C++ and Rust
# toolchains, the benchmarks under valgrind); `make test-slow` runs those; CI runs both.
# Python's bytecode cache stays on for the tests even where the environment turns it off
# (PYTHONDONTWRITEBYTECODE): the suite starts thousands of Python processes (referees, bots,
# `arena` commands, pytest's workers) that import the same modules, and compiling them again
# in each cost a quarter of the CPU time of tests/tournament and tests/intake (67 s against
# 49 s, measured with `time` around pytest; tests/cputime.py ranks tests by CPU time).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q

test: $(TRAIN)
	sh scripts/setup-bots.sh
	$(PYTEST) -n 4 --dist worksteal -m "not slow"

# The slow tests four at a time too: a soak test and a league wait on their processes most of
# the time, and the benchmarks under valgrind use a CPU each (beside a CPU-heavy job, -n 4 took
# 62 s where -n 2 took 75 s). Only the 8 files that mark a test slow are collected
# (tests/conftest.py, `pytest_ignore_collect`).
test-slow: $(TRAIN)
	sh scripts/setup-bots.sh
	$(PYTEST) -n 4 --dist worksteal -m slow

# Mutation testing of the rules engine and the ratings (docs/contributing/mutation.md),
# outside `make test` and CI: it takes hours on two cores, so it runs at the lowest
# priority, two mutants at a time. MUTANTS narrows it to some modules, e.g.
# MUTANTS='arena.rules.combos*'; the score and the surviving mutants are then printed per
# package and per module.
MUTANTS ?=
mutation: $(MUTATION)
	nice -n 19 $(BIN)/mutmut run --max-children 2 $(MUTANTS)
	$(BIN)/python scripts/mutation_score.py

# The documentation site (docs/, docs/contributing/docs.md): `make docs` builds it into
# build/site and fails on any warning, as tests/docs does in `make test`; `make docs-serve`
# serves it on 127.0.0.1:8001, rebuilt on each edit. The config is named by a relative path
# on purpose: MkDocs refuses the pages' own folder as docs_dir when named absolutely.
# The league extra too: the HTTP API page is rendered from its models (msgspec).
DOCS_EXTRA := $(VENV)/.installed-docs
$(DOCS_EXTRA): $(STAMP)
	@echo "installing the docs and league extras into $(VENV) (pip's log: $(VENV)/install.log)"
	@$(PIP) -e '.[docs,league]' $(LOGGED)
	touch $(DOCS_EXTRA)

MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs

docs: $(DOCS_EXTRA)
	$(MKDOCS) build --strict -f docs/mkdocs.yml

docs-serve: $(DOCS_EXTRA)
	$(MKDOCS) serve --strict -f docs/mkdocs.yml -a 127.0.0.1:8001

bench: $(STAMP)
	$(BIN)/arena bench engine

clean:
	rm -rf $(VENV) build *.egg-info mutants

# The two set-up commands of README.md: `make demo` and `make test`.
# Each creates its own virtual environment (.venv) and installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TRAIN  := $(VENV)/.installed-train

.PHONY: demo test bench clean

# The demo needs the core dependencies only.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(STAMP)

# The tests need the test extra (pytest, hypothesis, selenium, Dask for the cluster tests)
# and the train extra (numpy, gymnasium, pettingzoo: the PettingZoo environment, `arena
# export`, policy bots); `make demo` does without both.
$(TRAIN): $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,train]'
	touch $(TRAIN)

demo: $(STAMP)
	sh scripts/setup-bots.sh
	$(BIN)/arena tournament tournaments/demo.toml

# Four tests at a time (pytest-xdist): most of them wait on bot processes, not on a CPU.
test: $(TRAIN)
	sh scripts/setup-bots.sh
	$(BIN)/python -m pytest -q -n 4 --dist worksteal

bench: $(STAMP)
	$(BIN)/arena bench engine

clean:
	rm -rf $(VENV) build *.egg-info

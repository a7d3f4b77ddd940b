# The two set-up commands of README.md: `make demo` and `make test`.
# Each creates its own virtual environment (.venv) and installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	sh scripts/setup-bots.sh
	$(BIN)/arena tournament tournaments/demo.toml

test: $(STAMP)
	sh scripts/setup-bots.sh
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/arena bench engine

clean:
	rm -rf $(VENV) build *.egg-info

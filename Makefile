# 「Q・K・V はどこから来るのか」— the two commands a newcomer types: `make book` and `make test`.
# Needs make, Python >= 3.11 with venv, and Node.js (npm); everything else is installed into .venv
# and node_modules, and `make test` finds or installs the browser it drives (tools/chromium.py).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Pinned versions: the venv and CI install exactly what constraints.txt lists.
PIP_INSTALL := $(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt
BOOK_HTML := book/_build/html
# Jupyter reads this config (allow_root etc.); the user's own ~/.jupyter is left alone.
JUPYTER_ENV := JUPYTER_CONFIG_PATH=$(CURDIR)/lab/jupyter_config
# Learners' JupyterLab: the same, plus lab/jupyter_config/learner (nbgrader's authoring UI off).
LEARNER_ENV := JUPYTER_CONFIG_PATH=$(CURDIR)/lab/jupyter_config/learner:$(CURDIR)/lab/jupyter_config
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
# Python's bytecode cache stays on for tests and bench even where PYTHONDONTWRITEBYTECODE is set (it
# writes only into the ignored __pycache__/ folders): without it every kernel compiles the helpers again
# and every pytest worker rewrites every test module's asserts again, ≈ 5 s a worker.
BYTECODE := PYTHONDONTWRITEBYTECODE=
PYTEST := $(JUPYTER_ENV) $(BYTECODE) $(BIN)/pytest -p no:cacheprovider
# The benches run as scripts, outside pytest: the same folders as pytest's `pythonpath` (pyproject.toml).
SUPPORT_PATH := PYTHONPATH=$(CURDIR)/tests/support:$(CURDIR)/tools:$(CURDIR)/lab
# lab/learner_lab.py's `import chapters` (tools/); it leaves tools/ out of the Lab it starts.
LAB_PATH := PYTHONPATH=$(CURDIR)/tools$${PYTHONPATH:+:$$PYTHONPATH}
# All cores (pytest-xdist): each file goes whole to one worker, since nbval runs a notebook's cells
# in order on one kernel; tests/conftest.py queues the heaviest files first and keeps the book build
# with the browser tests. Fewer workers: PYTEST_XDIST_AUTO_NUM_WORKERS=1 make test.
PARALLEL := -n auto --dist loadfile --no-loadscope-reorder
# Left out of `make check`: the book (its build, the launch links' build and the browser),
# JupyterLab in a browser, and the classroom round trip.
# Not in `make test` either: the chapters run again on the installed wheel (make test-wheel).
WHEEL_TEST := tests/test_installed_wheel.py
SLOW_TESTS := --ignore=$(WHEEL_TEST) --ignore=tests/test_book_build.py --ignore=tests/test_book.py \
	--ignore=tests/test_launch_links.py --ignore=tests/test_book_reader.py --ignore=tests/test_lab.py --ignore=tests/test_classroom.py

.PHONY: setup book book-build pdf test-pdf vendor browser lab refresh lab-teacher test check lint sync execute assignments \
	grade bench bench-phone clean help hub-env hub test-hub test-links test-wheel test-alone classroom-bench

help:
	@echo "make book         教科書を HTML に書き出す($(BOOK_HTML)/index.html)"
	@echo "make pdf          本全体を一つの PDF にする(book/_build/pdf/qkv-book.pdf、HTML の本がなければ先に作る)"
	@echo "make test         すべての検査(ruff, ペア, 単体, ウィジェット, nbval, 本, ブラウザ, 授業)"
	@echo "make check        著者向けの速い検査(ruff, ペア, 単体, ウィジェット, main から変えた章の nbval)"
	@echo "make lab          JupyterLab で自分用の章の写し(work/notebooks/)を開く"
	@echo "make refresh CHAPTER=03  work/ の第 3 章をリポジトリの版で作り直す(前の版は残す)"
	@echo "make lab-teacher  nbgrader の作成・採点画面つきの JupyterLab(先生向け)"
	@echo "make sync         .md から .ipynb を作り直して実行する(著者向け)"
	@echo "make assignments  授業用の配布版を classroom/ に作る"
	@echo "make grade        classroom/submitted/ の提出物を採点し、フィードバック・成績 CSV・クラスの採点レポートを作る"
	@echo "make bench        実行時間・メモリ・本の書き出し・図の応答(JupyterLab と本)・スマートフォンでの表示の計測(QUICK=1 で章だけ)"
	@echo "make bench-phone  書き出した本をスマートフォン相当の回線と CPU で開く計測だけ(BEFORE=古い html で比較)"
	@echo "make hub          授業用の JupyterHub をこのマシンに用意して起動する(root、127.0.0.1:8000)"
	@echo "make test-pdf     PDF を作り、PDF そのものを検査する(章の順、しおり、フォント、図、リンク)"
	@echo "make test-links   章のリンクを JupyterLab で一つ残らずクリック(約 4 分)"
	@echo "make test-wheel   リポジトリの外の新しい仮想環境に wheel だけを入れて、全章を実行(1〜2 分)"
	@echo "make test-alone   テストファイルを一つずつ別のプロセスで実行(ほかのファイルに頼らずに通るか、CI 用)"
	@echo "make test-hub     授業用ハブの通しテスト(root、ループバックのみ、数分)"
	@echo "make classroom-bench  学生 N 人(既定 30)が同時に章を実行する負荷の計測(root)"

setup: $(VENV)/.installed node_modules/.installed

$(VENV)/.installed: pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { echo \
	  "Python 3.11 以上が必要です($(PYTHON))。Debian/Ubuntu: sudo apt-get install python3 python3-venv、macOS: brew install python"; exit 1; }
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || { echo \
	  "Python の venv がありません。Debian/Ubuntu では sudo apt-get install python3-venv を実行してください。"; exit 1; }
	@echo "== Python の仮想環境を用意しています($(VENV))…"
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) --upgrade pip
	$(PIP_INSTALL) -e '.[dev,book,classroom,hub]'
	@touch $@

node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo \
	  "Node.js(npm)が見つかりません。Debian/Ubuntu: sudo apt-get install nodejs npm、macOS: brew install node"; exit 1; }
	@echo "== 本に同梱する MathJax と日本語フォントを npm から取得しています…"
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

vendor: setup
	$(BIN)/python tools/vendor_assets.py

book-build: vendor
	@echo "== 本を書き出しています(ノートブックを静的モードで実行します)…"
	rm -rf $(BOOK_HTML)
	QKV_STATIC_BOOK=1 $(JUPYTER_ENV) $(BIN)/jupyter-book build . --config book/_config.yml \
		--toc book/_toc.yml --path-output book -W -n --keep-going

book: book-build
	@echo "book: $(abspath $(BOOK_HTML)/index.html)"

# The whole book as one PDF: the built HTML book printed by the browser the tests drive, merged
# with a cover, contents, page numbers and bookmarks (tools/build_pdf.py, CONTRIBUTING.md
# "PDF"). The HTML book is built first only when there is none: `make book` never needs the PDF.
pdf: setup browser
	$(BIN)/python tools/build_pdf.py

# The PDF built and read back (tests/test_pdf.py; `make test` skips those tests without a PDF).
test-pdf: pdf
	$(PYTEST) tests/test_pdf.py

# The learner's own copy of the chapters, work/ (ignored by git; lab/learner_lab.py):
# made once, never overwritten, so `git pull` never meets the learner's answers.
lab: setup
	$(LEARNER_ENV) $(LAB_PATH) $(BIN)/python lab/learner_lab.py lab

# One chapter of work/ afresh from the repository (the learner's copy is kept beside it).
refresh: setup
	@test -n "$(CHAPTER)" || { echo "章を指定してください: make refresh CHAPTER=03"; exit 2; }
	$(LAB_PATH) $(BIN)/python lab/learner_lab.py refresh $(CHAPTER)

lab-teacher: setup
	$(JUPYTER_ENV) $(BIN)/jupyter lab notebooks/

# Every JavaScript file of the project (tests/test_source_rules.py checks that none is missing):
# the explorables' ES modules, the book's shim that mounts them, its page script, its search
# ranking and its MathJax runner, and ESLint's own config. ESLint and Prettier, pinned in
# package-lock.json; `npx prettier --write` with the same files formats them.
# They run from node_modules/.bin (what `npx --no-install` finds, without npx's own Node process:
# 0.4 CPU s each, paid beside the tests in `make test`).
JS_SOURCES = src/helpers/widgets/js/*.js book/_ext/qkv_book/*.js book/_ext/*.js book/_static/*.js eslint.config.mjs
NODE_BIN := node_modules/.bin
lint: setup
	$(BIN)/ruff check src tests notebooks tools lab book/_ext
	$(BIN)/lint-imports --no-cache
	$(NODE_BIN)/eslint --max-warnings 0 $(JS_SOURCES)
	$(NODE_BIN)/prettier --check --log-level warn $(JS_SOURCES) src/helpers/widgets/js/qkv.css

sync: setup
	$(BIN)/python tools/execute_notebooks.py

execute: sync

assignments: setup
	$(JUPYTER_ENV) $(BIN)/python -m qkv_classroom build

grade: setup
	$(JUPYTER_ENV) $(BIN)/python -m qkv_classroom grade --jobs 2

# Finds the Chrome/Chromium the browser tests drive, or installs one (saying so first when that
# changes the system), or stops with one line that says what to run. Choose one: QKV_CHROMIUM=path.
browser: setup
	@$(BIN)/python tools/chromium.py

# The book build runs inside the session (tests/test_book_build.py), beside the other tests.
# The ten slowest tests are listed at the end: the budget is 5 minutes on two cores
# (CONTRIBUTING.md, "Budgets", says where the time goes).
# `make lint` runs beside pytest (its tools take one core for a few seconds, while pytest's workers
# start on both); its output comes after the tests', and either failing fails `make test`.
test: setup browser
	@log=$$(mktemp); $(MAKE) --no-print-directory lint > $$log 2>&1 & lint=$$!; \
	$(PYTEST) $(PARALLEL) --durations=10 --ignore=$(WHEEL_TEST) tests notebooks/[0-9][0-9]_*.ipynb $(NBVAL); \
	tests=$$?; wait $$lint; linted=$$?; echo "== make lint"; cat $$log; rm -f $$log; \
	test $$linted -eq 0 || echo "make lint が失敗しました(上の出力を見てください)"; \
	test $$tests -eq 0 && test $$linted -eq 0

# The reader's way outside the repository: the wheel built (`python -m build`, offline), installed
# in a fresh venv in a temporary folder, every chapter's .ipynb run there with nbval (1–2 minutes;
# .ci/run calls it, `make test` leaves it out to keep within its budget).
test-wheel: setup
	$(PYTEST) -q $(WHEEL_TEST)

# Every test file alone, each in its own pytest process, one after another: none may pass only
# because another file imported something first (pytest fails at collection on an empty
# parametrisation: pyproject.toml). The book's build first, since tests/test_book.py reads the
# book it built. A second run of the whole suite on one core: far past make test's budget, so
# .ci/run calls it; the wheel's test is alone already (make test-wheel).
ALONE_FIRST := tests/test_book_build.py
test-alone: setup browser
	@failed=; for f in $(ALONE_FIRST) $(filter-out $(ALONE_FIRST) $(WHEEL_TEST),$(sort $(wildcard tests/test_*.py tests/unit/test_*.py))); do \
		echo "== $$f"; $(PYTEST) -q $$f || failed="$$failed $$f"; done; \
	test -z "$$failed" || { echo "一つだけで実行すると失敗したテストファイル:$$failed"; exit 1; }

# The author's loop: no book, no browser, no classroom; nbval only for the chapters changed since
# main (tools/changed_chapters.py; every chapter when src/helpers/ changed).
check: setup lint
	@chapters="$$($(BIN)/python tools/changed_chapters.py)"; \
	echo "== nbval で実行し直す章: $${chapters:-(なし)}"; \
	$(PYTEST) $(PARALLEL) tests $(SLOW_TESTS) $$chapters $(NBVAL)

# Chapters against bare kernels, the book's build, and every explorable's key press → painted
# frame in JupyterLab and the book (tests/support/frame_bench.py). QUICK=1: the chapters only.
bench: vendor browser
	$(JUPYTER_ENV) $(SUPPORT_PATH) $(BYTECODE) $(BIN)/python tests/support/bench.py $(if $(QUICK),--quick)

# The built book on an emulated phone alone (tests/support/phone_bench.py); BEFORE=<an older
# _build/html copied aside> measures both, page by page in turns, in one run.
bench-phone: setup browser
	$(SUPPORT_PATH) $(BIN)/python tests/support/bench.py --phone $(if $(BEFORE),--before $(BEFORE))

clean:
	rm -rf $(BOOK_HTML) book/_build/.doctrees book/_build/jupyter_execute book/_vendor classroom

# --- The class hub (deploy/hub/, book/teacher_guide.md). Students' servers run as their own Unix
# accounts, so the course environment must be readable by every account: a second venv made from
# a Python outside root's home (HUB_PYTHON), with the same pins.
HUB_PYTHON ?= /usr/bin/python3
HUB_VENV   := .hub-venv
HUB_BIN    := $(HUB_VENV)/bin
HUB_ROSTER ?= deploy/hub/roster.example.csv
BENCH_STUDENTS ?= 30
BENCH_CHAPTER  ?= 06_attention

hub-env: $(HUB_VENV)/.installed node_modules/.installed

# The same pins, except soupsieve 4 (it needs Python >= 3.11.5; Debian 12 has 3.11.2).
$(HUB_VENV)/.installed: pyproject.toml constraints.txt
	@echo "== 授業用ハブの環境を用意しています($(HUB_VENV)、$(HUB_PYTHON) から)…"
	$(HUB_PYTHON) -m venv $(HUB_VENV)
	if $(HUB_PYTHON) -c 'import sys; sys.exit(sys.version_info >= (3, 11, 5))'; then \
		grep -v '^soupsieve==' constraints.txt > $(HUB_VENV)/constraints.txt; \
	else cp constraints.txt $(HUB_VENV)/constraints.txt; fi
	$(HUB_BIN)/pip install --quiet --disable-pip-version-check -c $(HUB_VENV)/constraints.txt --upgrade pip
	$(HUB_BIN)/pip install --quiet --disable-pip-version-check -c $(HUB_VENV)/constraints.txt \
		-e '.[dev,classroom,hub]'
	@touch $@

hub: hub-env
	$(HUB_BIN)/python -m qkv_hub up $(HUB_ROSTER)

# Every link of every chapter clicked in the learner's JupyterLab (3.5 minutes: more than make test
# may spend, so CI runs it on its own).
test-links: setup browser
	QKV_EVERY_LINK=1 $(PYTEST) tests/test_lab.py -k every_link_of_every_chapter

test-hub: hub-env browser
	$(HUB_BIN)/pytest tests/test_hub_e2e.py -p no:cacheprovider -v --durations=5

classroom-bench: hub-env
	$(SUPPORT_PATH) $(HUB_BIN)/python tests/support/bench_classroom.py --students $(BENCH_STUDENTS) --chapter $(BENCH_CHAPTER)

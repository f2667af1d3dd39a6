"""JupyterLab as a learner meets it (`make lab`) and as a teacher does (`make lab-teacher`).

A real JupyterLab runs on the learner's copy of the chapters, made as `make lab` makes it
(lab/learner_lab.py), or for the teacher on a copy of `notebooks/` (free port, token,
timeout, always stopped; see `lab_server.py`); headless Chrome/Chromium (tools/chromium.py) opens
a chapter in it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import chapters
import chromium
import lab_server
import learner_lab
import nbformat
import pytest
from explorables import (
    CONTROL_OVERLAPS,
    OPEN_FOLDS,
    SHOWN_SYMBOLS,
    TWO_FRAMES,
    check_numbers,
    class_for,
    explorable_classes,
    explorer_for,
    move_every_control,
    press_every_preset,
    shown,
)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = [NOTEBOOKS / f"{slug}.ipynb" for slug in chapters.slugs()]
#: A chapter with widgets and a deliberate error.
CHAPTER = "04_three_matrices.ipynb"
#: Where a chapter is in the learner's copy (the folder `make lab` serves).
IN_COPY = "notebooks/{}"


def _copy_notebooks(tmp_path: Path) -> Path:
    copy = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, copy, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return copy


def _same_files(copy: Path) -> list[str]:
    return [p.name for p in sorted(copy.iterdir())
            if p.is_file() and p.read_bytes() != (NOTEBOOKS / p.name).read_bytes()]


# ------------------------------------------------------------------------- without a browser


def test_saving_through_jupytext_rewrites_nothing(tmp_path):
    """JupyterLab saves through jupytext's contents manager; a save writes both files of the
    pair exactly as committed (no format_version added, YAML wrapped as committed)."""
    from jupytext.sync_contentsmanager import TextFileContentsManager

    copy = _copy_notebooks(tmp_path)
    for ipynb in copy.glob("*.ipynb"):  # as a checkout may leave them: the .ipynb newer
        os.utime(ipynb, (time.time() + 10, time.time() + 10))
    manager = TextFileContentsManager(root_dir=str(copy))
    for ipynb in CHAPTERS:
        before = (copy / ipynb.with_suffix(".md").name).stat().st_mtime_ns
        manager.save(manager.get(ipynb.name, content=True), ipynb.name)
        assert (copy / ipynb.with_suffix(".md").name).stat().st_mtime_ns >= before
    assert _same_files(copy) == [], "保存で書き換わったファイルがあります(make sync で .md を整えてください)"


FIRST_PICTURE = 'class="qkv-first-picture"'


def first_pictures(nb) -> list[str]:
    """The saved first pictures of a chapter's explorables (tools/explorable_pictures.py)."""
    return [out.data["text/html"] for cell in nb.cells for out in cell.get("outputs", [])
            if FIRST_PICTURE in out.get("data", {}).get("text/html", "")]


@pytest.mark.parametrize("ipynb", CHAPTERS, ids=lambda p: p.stem)
def test_explorable_outputs_are_their_first_picture(ipynb):
    """Before its cell runs, an explorable cannot be shown: the saved output is its first
    picture, as images with a Japanese text that states its numbers."""
    nb = nbformat.read(ipynb, as_version=4)
    explorer_cells = [c for c in nb.cells if c.cell_type == "code" and "helpers.widgets." in c.source]
    pictures = first_pictures(nb)
    assert len(pictures) == len(explorer_cells), ipynb.name
    for picture in pictures:
        assert picture.count('<img src="data:image/svg+xml;base64,') >= 1, ipynb.name
        assert re.search(r"<p>[^<]*[\u3040-\u30ff\u4e00-\u9fff][^<]*\d\.\d\d", picture), (
            f"{ipynb.name}: 最初の図の説明が数を言っていません")


def test_deliberate_errors_show_only_the_message():
    """The chapters' demonstrated errors come from helpers: one line, no traceback."""
    seen = 0
    for ipynb in CHAPTERS:
        for cell in nbformat.read(ipynb, as_version=4).cells:
            for out in cell.get("outputs", []):
                if out.output_type == "error":
                    seen += 1
                    assert len(out.traceback) == 1, f"{ipynb.name}: {len(out.traceback)} 行の traceback"
                    assert out.evalue in out.traceback[0]
    assert seen >= 1


# ------------------------------------------------------------------ the learner's own copy


def test_the_learners_copy_is_made_once_and_never_overwritten(tmp_path):
    """`make lab` copies every chapter into work/notebooks once, as a plain notebook (no jupytext
    pairing, so a save writes no .md beside it); what the learner saved there is never replaced."""
    work = tmp_path / "work"
    assert learner_lab.prepare(work) == chapters.slugs()
    assert sorted(p.name for p in (work / "notebooks").iterdir()) == sorted(p.name for p in CHAPTERS)
    for ipynb in CHAPTERS:
        copy = nbformat.read(work / IN_COPY.format(ipynb.name), as_version=4)
        original = nbformat.read(ipynb, as_version=4)
        assert "jupytext" not in copy.metadata and "jupytext" in original.metadata
        assert [c.source for c in copy.cells] == [c.source for c in original.cells]
    mine = work / IN_COPY.format(CHAPTER)
    mine.write_bytes(mine.read_bytes() + b"\n")  # as if the learner had saved their answers
    answered = mine.read_bytes()
    assert learner_lab.prepare(work) == []
    assert mine.read_bytes() == answered


def test_refresh_keeps_the_learners_copy_beside_the_new_one(tmp_path):
    work = tmp_path / "work"
    learner_lab.prepare(work)
    mine = work / IN_COPY.format(CHAPTER)
    mine.write_bytes(mine.read_bytes() + b"\n")
    answered = mine.read_bytes()
    new, old = learner_lab.refresh(CHAPTER[:2], work)
    assert new == mine and old is not None and old.parent == mine.parent
    assert old.read_bytes() == answered
    assert nbformat.read(new, as_version=4) == learner_lab.learner_notebook(NOTEBOOKS / CHAPTER)


def test_the_learners_lab_runs_with_the_path_make_gives_it_and_keeps_tools_out_of_its_kernels():
    """`make lab` and `make refresh` put tools/ on PYTHONPATH for lab/learner_lab.py's `import
    chapters` (no sys.path.insert); the Lab it starts gets the learner's PYTHONPATH without it."""
    for target in ("lab", "refresh CHAPTER=03"):
        dry = subprocess.run(["make", "-n", *target.split()], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
        (line,) = [row for row in dry.splitlines() if "lab/learner_lab.py" in row]
        assert f"PYTHONPATH={learner_lab.TOOLS}" in line, line
    tools, mine = str(learner_lab.TOOLS), "/home/learner/lib"
    env = {"PYTHONPATH": os.pathsep.join([tools, mine]), "HOME": "/home/learner"}
    assert learner_lab.lab_environment(env) == {"PYTHONPATH": mine, "HOME": "/home/learner"}
    assert learner_lab.lab_environment({"PYTHONPATH": tools}) == {}
    assert env["PYTHONPATH"].startswith(tools)  # the caller's mapping is left as it was


def test_git_ignores_the_learners_copy():
    """A learner's answers are never in `git status`, so `git pull` of a fixed chapter meets none."""
    if not (ROOT / ".git").exists():
        pytest.skip("git のチェックアウトではありません")
    ignored = subprocess.run(["git", "check-ignore", "-q", "work/notebooks/00_introduction.ipynb"],
                             cwd=ROOT, check=False).returncode
    assert ignored == 0, "work/ を .gitignore に"


def _links(ipynb: Path) -> list[str]:
    """The links of a chapter's Markdown cells, as written in its source."""
    nb = nbformat.read(ipynb, as_version=4)
    return [link for cell in nb.cells if cell.cell_type == "markdown"
            for link in re.findall(r"\]\(([^)\s]+)\)", cell.source)]


def test_every_chapter_link_has_a_target_in_the_learners_copy(tmp_path):
    """Each relative link of a chapter names a file of the learner's copy, each #term-… anchor
    is an id on the glossary page written for JupyterLab (the same ids as the book's), and any
    other anchor is a heading of the page it names (the concept map's sections)."""
    work = tmp_path / "work"
    learner_lab.prepare(work)
    glossary = (work / "book" / "glossary.md").read_text(encoding="utf-8")
    seen = 0
    for ipynb in CHAPTERS:
        for link in _links(ipynb):
            if link.startswith(("http://", "https://", "#")):
                continue
            path, _, anchor = link.partition("#")
            target = (work / "notebooks" / path).resolve()
            assert target.is_file(), f"{ipynb.name}: {link} の行き先が work/ にありません"
            if anchor and target.name == "glossary.md":
                assert f'id="{anchor}"' in glossary, f"{ipynb.name}: {link} の見出し {anchor} がありません"
            elif anchor:  # another page's heading: JupyterLab's id is the heading's text, "-" for " "
                headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), flags=re.M)
                assert anchor in {h.strip().replace(" ", "-") for h in headings}, \
                    f"{ipynb.name}: {link} の見出し {anchor} がありません"
            seen += 1
    assert seen >= 100


def _language_pack() -> dict[str, list[str]]:
    spec = importlib.util.find_spec("jupyterlab_language_pack_ja_JP")
    assert spec is not None, "jupyterlab-language-pack-ja-JP を入れてください(make lab が入れます)"
    folder = Path(spec.origin).parent / "locale" / "ja_JP" / "LC_MESSAGES"
    return json.loads((folder / "jupyterlab.json").read_text(encoding="utf-8"))


def _top_menus() -> list[str]:
    """The English labels of JupyterLab's menu bar (its main menu's settings schema)."""
    schema = Path(sys.prefix) / "share/jupyter/lab/schemas/@jupyterlab/mainmenu-extension/plugin.json"
    menus = json.loads(schema.read_text(encoding="utf-8"))["jupyter.lab.menus"]["main"]
    return [m["label"] for m in menus if "label" in m]


def _menu_paths() -> list[tuple[str, list[str]]]:
    """Every 「menu」→「item」 the chapters and README tell a learner to choose."""
    found = []
    for path in [*(c.with_suffix(".md") for c in CHAPTERS), ROOT / "README.md"]:
        for chain in re.findall(r"「[^」]+」(?:→「[^」]+」)+", path.read_text(encoding="utf-8")):
            found.append((path.name, re.findall(r"「([^」]+)」", chain)))
    return found


def test_menu_names_quoted_are_the_language_packs():
    """The chapters name the menus as a learner sees them: JupyterLab in Japanese
    (lab/jupyter_config/lab_settings/overrides.json selects ja_JP). Each 「menu」→「item」 starts at
    a menu of the menu bar, in the language pack's words, and each item is one of the pack's."""
    pack = _language_pack()
    menus = {pack.get(f"menu\x04{label}", pack.get(label, [label]))[0] for label in _top_menus()}
    assert {"ファイル", "実行", "カーネル"} <= menus, menus
    translated = {v[0] for k, v in pack.items() if k and isinstance(v, list) and v}
    # A command made of two (「カーネルを再起動 と すべてのセルを実行…」) is named by the pack's
    # "%1 and %2" with each part's own name, less its "…" (JupyterLab's semantic commands).
    both = re.compile(re.escape(pack["%1 and %2"][0]).replace("%1", "(.+)").replace("%2", "(.+?)…?"))

    def named(item: str) -> bool:
        parts = both.fullmatch(item)
        return item in translated or bool(parts) and all(
            p in translated or f"{p}…" in translated for p in parts.groups())

    paths = _menu_paths()
    assert paths, "章がメニューの名前を一つも書いていません"
    paths.append(("tests/support/lab_server.py", [lab_server.MENU_RUN, lab_server.RUN_ALL]))
    for where, (menu, *items) in paths:
        assert menu in menus, f"{where}: 「{menu}」はメニューバーにありません({sorted(menus)})"
        for item in items:
            assert named(item), f"{where}: 「{item}」は日本語のメニューにありません"


# ------------------------------------------------------------------------------ in a browser


def _open(browser, lab, name: str, kernels: bool = True, on_response=None):
    """A new page of `lab` with the notebook `name` open (`kernels`=False: no notebook opened in
    this page starts a kernel, and maths stays TeX, lab_server.reading_only; `on_response`: called
    with every response of the page, from its first)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    if not kernels:
        lab_server.reading_only(lab, page)
    if on_response:
        page.on("response", on_response)
    page.goto(lab.url(f"lab/tree/{name}"), timeout=120_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.wait_for_selector(f".lm-MenuBar-itemLabel >> text={lab_server.MENU_RUN}", timeout=60_000)
    return page


def _nbgrader_ui(page) -> dict[str, bool]:
    menus = page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
    tabs = page.locator(".lm-TabBar-tab").evaluate_all("els => els.map(e => e.title || '')")
    toolbar = " ".join(page.locator(".jp-NotebookPanel-toolbar").all_inner_texts())
    return {"menu": "Nbgrader" in menus, "validate": "Validate" in toolbar,
            "create_assignment": any("Create Assignment" in t for t in tabs)}


@pytest.fixture(scope="module")
def browser():
    try:
        with lab_server.browser() as b:
            yield b
    except chromium.Missing as missing:  # the same one line as `make test`'s browser step
        pytest.fail(str(missing), pytrace=False)


def _menu_items(page, menu: str) -> list[str]:
    """The items of a menu of the menu bar, as the learner sees them."""
    page.locator(".lm-MenuBar-itemLabel").get_by_text(menu, exact=True).click()
    items = page.locator(".lm-Menu .lm-Menu-itemLabel").all_inner_texts()
    page.keyboard.press("Escape")
    return items


@pytest.fixture(scope="session")
def learner(tmp_path_factory):
    """One learner's copy and the JupyterLab `make lab` starts on it, shared by this file's
    learner tests (a server start is several seconds of a core), one per pytest-xdist worker,
    however many of this file's xdist units it runs (tests/conftest.py): (lab, work). Each test
    ends the kernels it started; the browser stays per module (Playwright's sync API runs one at
    a time, and the book's tests start their own)."""
    work = lab_server.learner_copy(tmp_path_factory.mktemp("learner"))
    with lab_server.running(work) as lab:
        yield lab, work


#: Lab's plugin that asks a first launch about news, and the config it reads before it asks.
NOTIFICATION = "@jupyterlab/apputils-extension:notification"
ANNOUNCEMENTS = "/api/config/jupyterlabapputilsextensionannouncements"


def _a_learners_first_launch(lab, work: Path, page, name: str, announcements: list[str]) -> None:
    """JupyterLab as `make lab` shows it the first time (`?reset`: nothing restored) with the chapter
    `name` open and its kernel started, nothing run yet (test_explorables_in_a_real_lab's first steps,
    in its page: a Lab page load is seconds of a core): first pictures, no nbgrader, Japanese menus,
    the chapters once in the file browser, a save that changes nothing, no news prompt.
    `announcements`: the URLs of Lab's requests for its announcements' config, from the page's first."""
    mine = work / IN_COPY.format(name)
    # An explorable's cell shows its first picture before anything runs, never its text repr.
    page.wait_for_selector(".jp-OutputArea-output img", timeout=60_000)
    outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
    assert not any(re.search(r"VBox\(|HBox\(|Explorer\(", t) for t in outputs), name
    saved = len(first_pictures(nbformat.read(mine, as_version=4)))
    pictures = page.locator(".jp-OutputArea-output[data-mime-type='text/html'] .qkv-first-picture").count()
    assert saved >= 1 and pictures == saved, (name, saved, pictures)
    # nbgrader's authoring UI is off for learners.
    assert _nbgrader_ui(page) == {"menu": False, "validate": False, "create_assignment": False}
    # Japanese menus, and each 「menu」→「item」 the chapters name is there.
    assert page.locator(".lm-MenuBar-itemLabel").all_inner_texts()[:5] == ["ファイル", "編集", "表示", "実行", "カーネル"]
    menus = {}  # each menu opened once: its items
    for where, (menu, *items) in _menu_paths():
        if menu not in menus:
            menus[menu] = _menu_items(page, menu)
        assert items[0] in menus[menu], f"{where}: 「{menu}」→「{items[0]}」"
    # The file browser shows each chapter once: the copy holds no paired .md.
    names = page.locator(".jp-DirListing-item .jp-DirListing-itemText").all_inner_texts()
    assert sorted(names) == sorted(p.name for p in CHAPTERS), names
    # Open, save: the learner's copy is saved as it was, and no .md appears beside it. The save
    # is done once the server has answered its PUT (it answers after writing the file).
    before = mine.read_bytes()
    saved_at = mine.stat().st_mtime_ns
    lab_server.focus_notebook(page)
    with page.expect_response(lambda r: r.url.split("?")[0].endswith(f"/api/contents/{IN_COPY.format(name)}")
                              and r.request.method == "PUT", timeout=60_000) as saving:
        page.keyboard.press("Control+s")
    assert saving.value.ok, f"保存されませんでした({saving.value.status})"
    assert mine.stat().st_mtime_ns != saved_at, "保存されませんでした"
    assert nbformat.reads(mine.read_text(encoding="utf-8"), 4) == nbformat.reads(before.decode(), 4)
    assert sorted(p.name for p in mine.parent.iterdir() if p.is_file()) == sorted(c.name for c in CHAPTERS)
    # No news prompt over the notebook (a first launch's "official Jupyter news?"). Lab asks when its
    # setting fetchNews is "none" (the default Lab ships), once its announcements' config has come
    # and the page is restored: the setting as this Lab serves it says never, and two frames after
    # that config came no toast is shown.
    with urllib.request.urlopen(lab.url(f"lab/api/settings/{NOTIFICATION}"), timeout=30) as r:
        setting = json.load(r)
    fetch_news = setting["settings"].get("fetchNews", setting["schema"]["properties"]["fetchNews"]["default"])
    assert fetch_news == "false", f"{NOTIFICATION} の fetchNews が {fetch_news!r} です(ニュースを尋ねます)"
    if not announcements:
        page.wait_for_event("response", lambda r: ANNOUNCEMENTS in r.url, timeout=60_000)
    page.evaluate(TWO_FRAMES)
    toasts = " ".join(page.locator(".Toastify__toast").all_inner_texts())
    assert "ニュース" not in toasts and "news" not in toasts.lower(), toasts


#: Lab's document tabs, and the label of the one in front (lab_server: other Lab tests use them too).
TABS, CURRENT_TAB = lab_server.TABS, lab_server.CURRENT_TAB
#: Where a link of a rendered Markdown cell points, as Lab rewrites it: .../files/<path>?…#<anchor>
LAB_LINK = re.compile(r"/files/([^?#]+)[^#]*(?:#(.+))?$")


def scrolled_to(page, anchor: str, where: str, within: str = "") -> None:
    """The element `anchor` names is in the document `within` (a CSS selector; the page if empty)
    and in view (Lab scrolled to it)."""
    try:
        page.wait_for_function(
            # Lab's sanitizer keeps an anchor's id as data-jupyter-id, and scrolls to that
            """([a, within]) => { const id = decodeURIComponent(a);
                      const el = document.querySelector(`${within} [data-jupyter-id="${CSS.escape(id)}"]`);
                      if (!el) return false;
                      const r = el.getBoundingClientRect();
                      return r.top >= 0 && r.top < window.innerHeight; }""",
            arg=[anchor, within], timeout=30_000)
    except Exception:
        pytest.fail(f"{where}: 開いたページの #{anchor} が見えるところにありません")


#: A link's cell in its notebook: [its index, whether it is the active cell], once every fold
#: (<details>) around the link has been opened, as a learner opens it to reach the link.
LINK_CELL = """a => { for (let d = a.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
  const c = a.closest('.jp-Cell');
  return [[...a.closest('.jp-Notebook').querySelectorAll('.jp-Cell')].indexOf(c), c.classList.contains('jp-mod-active')]; }"""
#: Why a pointer cannot press a link (at the middle of its first line, once scrolled into view), or
#: null when the link itself is there (what Playwright's click checks before it clicks).
COVERED = """a => { a.scrollIntoView({ block: 'center', inline: 'nearest' });
  const r = a.getClientRects()[0];
  if (!r || !r.width || !r.height) return 'リンクが描かれていません';
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return hit && a.contains(hit) ? null
    : `上に ${hit ? [hit.tagName.toLowerCase(), ...hit.classList].join('.') : '何もない場所'} が重なっています`; }"""


def _chapters_linked(ipynb: Path) -> set[str]:
    """The chapters (file names) a chapter's links lead to, as written in its source."""
    return {Path(link.partition("#")[0]).name for link in _links(ipynb)
            if not link.startswith(("http://", "https://", "#"))} & {c.name for c in CHAPTERS}


def test_every_link_of_every_chapter_opens_in_lab(browser, learner):
    """Every link of every chapter, clicked in the learner's JupyterLab, opens its page in a tab of
    Lab (the glossary scrolled to the term, another chapter as a notebook), and no request fails
    (the chapters linked to ../book/glossary.md outside the folder Lab served: a click did nothing).
    `make test-links` (which CI runs) clicks every link. Within `make test`'s budget (a click
    per link takes 3.5 minutes), every link is checked to point at a file Lab serves and the first link of
    a chapter to each page is clicked (and must scroll to its term); that every term's anchor is
    on the glossary page is test_every_chapter_link_has_a_target_in_the_learners_copy's.
    Lab is loaded once with the first chapter; a chapter a link opened is checked then and there,
    while it is in front (its own links found unobstructed where a pointer presses them, then
    clicked one after another without bringing it back to the front between them: each return laid
    the whole chapter out again), and its tab is closed once no chapter still to be clicked from
    links to it (each chapter kept open made every later one slower to lay out); a chapter no link
    reached is opened from the file browser, as a learner does. No notebook starts a kernel here
    (nothing is run)."""
    every_link = os.environ.get("QKV_EVERY_LINK") == "1"
    lab, _ = learner
    failed = []
    followed = []
    #: the chapters each chapter links to and has not clicked yet (a chapter nobody will click again
    #: is closed)
    to_come = {ipynb.name: _chapters_linked(ipynb) for ipynb in CHAPTERS}
    checked = set()
    lab_server.end_sessions(lab)  # any kernel another test of this Lab left
    page = _open(browser, lab, f"{IN_COPY.format(CHAPTERS[0].name)}?reset", kernels=False)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)

    def check(ipynb: Path) -> None:
        """The links of the chapter `ipynb`, in front now; each chapter they open first checked too."""
        checked.add(ipynb.name)
        chapter = lab_server.front_document(page)
        selector = f"{chapter} .jp-RenderedMarkdown a[href]:not(.jp-InternalAnchorLink)"
        links = page.locator(selector)
        expected = len(_links(ipynb))
        with contextlib.suppress(Exception):  # Markdown cells render after the notebook opens
            page.wait_for_function("([s, n]) => document.querySelectorAll(s).length >= n",
                                   arg=[selector, expected], timeout=30_000)
        hrefs = links.evaluate_all("els => els.map(e => e.href)")
        assert len(hrefs) == expected, f"{ipynb.name}: リンク {len(hrefs)} 個(原稿では {expected} 個)"
        to_click = []  # the first link to each page (every link with QKV_EVERY_LINK=1)
        for i, href in enumerate(hrefs):
            found = LAB_LINK.search(href)
            assert found, f"{ipynb.name}: {href} は Lab の中のファイルを指していません"
            if every_link or found.group(1) not in {path for _, _, path, _ in to_click}:
                to_click.append((i, href, found.group(1), found.group(2)))
        # While the chapter is in front: each link to be clicked is where a learner's pointer reaches
        # it, nothing drawn over it. The active cell's toolbar floats over its top right corner,
        # where a link can sit (chapter 07's gradient-descent link): if the link's cell is the
        # active one, a neighbouring cell is made the active one first, as a learner's click would.
        for i, href, _, _ in to_click:
            cell, active = links.nth(i).evaluate(LINK_CELL)
            if active:
                lab_server.focus_notebook(page, cell - 1 if cell > 0 else cell + 1, within=chapter)
            covered = links.nth(i).evaluate(COVERED)
            assert covered is None, f"{ipynb.name}: {href} を押せません({covered})"
        # Then each is clicked where it is, the chapter left behind its tab (a click there is the
        # same event at the same link).
        last_to = {Path(path).name: k for k, (_, _, path, _) in enumerate(to_click)}  # (every link: several)
        for k, (i, href, path, anchor) in enumerate(to_click):
            title = Path(path).name
            if page.locator(CURRENT_TAB).inner_text() == title:  # (every link) the same page again:
                page.locator(TABS, has_text=ipynb.name).click()   # from the chapter, so it must open
            links.nth(i).dispatch_event("click")
            try:
                page.wait_for_function("([s, t]) => document.querySelector(s)?.textContent === t",
                                       arg=[CURRENT_TAB, title], timeout=30_000)
            except Exception:
                pytest.fail(f"{ipynb.name}: {href} を押しても {title} が開きません({page.locator(CURRENT_TAB).all_inner_texts()})")
            if anchor:
                scrolled_to(page, anchor, f"{ipynb.name}: {href}", within=lab_server.front_document(page))
            followed.append(href)
            if last_to[title] == k:
                to_come[ipynb.name].discard(title)
            if title in to_come and title not in checked:  # a chapter, in front: checked now
                check(NOTEBOOKS / title)
        assert not lab_server.running_kernels(lab), f"{ipynb.name}: カーネルが起動しています"
        if not any(ipynb.name in still for still in to_come.values()):
            lab_server.close_tab(page, ipynb.name)

    for ipynb in CHAPTERS:
        if ipynb.name not in checked:  # (the first chapter, and any no link reached)
            if ipynb != CHAPTERS[0]:
                lab_server.open_from_the_file_browser(page, ipynb.name)
            check(ipynb)
    page.goto("about:blank")
    page.close()
    assert checked == {ipynb.name for ipynb in CHAPTERS}, checked
    assert len(followed) >= (100 if every_link else 2 * len(CHAPTERS))  # every link, or a page each
    assert not failed, failed


def test_teacher_lab_has_nbgrader(browser, tmp_path):
    copy = _copy_notebooks(tmp_path)
    with lab_server.running(copy, teacher=True) as lab:
        # nothing is run: no kernel started; the shortest chapter (nbgrader's toolbar is any notebook's)
        page = _open(browser, lab, CHAPTERS[0].name, kernels=False)
        page.wait_for_selector(".lm-MenuBar-itemLabel >> text=Nbgrader", timeout=60_000)
        assert _nbgrader_ui(page) == {"menu": True, "validate": True, "create_assignment": True}


# ------------------------------------------------------------------ explorables in a real Lab


def _run_new_cell(page, code: str) -> str:
    """Add a cell at the end of the notebook, run it, return what it printed."""
    lab_server.focus_notebook(page, -1)
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    # the code as one input, as a paste gives it (typed key by key, each key press was a round
    # trip to the editor: seconds of a core for two cells)
    page.keyboard.insert_text(code)
    page.keyboard.press("Control+Enter")  # run in place: no new cell below
    cell = page.locator(".jp-Notebook .jp-CodeCell").last
    cell.locator(".jp-OutputArea-output").first.wait_for(timeout=60_000)
    return cell.locator(".jp-OutputArea-output").first.inner_text()


#: The chapters whose explorables are tried end to end in JupyterLab: the search counter's two
#: sliders (and dragging its question), the scaling experiment's slider over a list and checkbox.
LAB_EXPLORABLES = ["02_library_search.ipynb", "06_attention.ipynb"]
#: The one console error that is JupyterLab's own and expected here: its debugger asks each newly
#: opened notebook's kernel for its state (twice, the second time after the first reply), and the
#: test ends a chapter's kernel as soon as its steps are done (lab_server.reopen), so a question can
#: still be on its way. Lab then cancels it and logs this; nothing of the chapter's is involved.
LAB_DEBUGGER_ASKED_AN_ENDED_KERNEL = re.compile(
    r"Could not restore the debugger state: Canceled future for debug_request message")


def test_explorables_in_a_real_lab(browser, learner):
    """A learner's JupyterLab at its first launch with the first chapter of LAB_EXPLORABLES open
    (_a_learners_first_launch: what was test_learner_lab, which loaded a Lab page of its own), then
    in each chapter of LAB_EXPLORABLES: Run All; every control of every explorable moves its
    picture to numpy's numbers (picture → Python: the kernel's traits follow); a trait set in a new
    cell moves the picture (Python → picture); saved and reopened with a new kernel, the
    explorables come back, and again after a save before any Run All (their state is not live
    then); no console error (but Lab's own, LAB_DEBUGGER_ASKED_AN_ENDED_KERNEL). The chapters one after the other in one Lab page: the next one opened
    from the file browser once the notebooks before it are closed and their kernels ended
    (lab_server.reopen, as a learner who closes one chapter and opens the next), so Lab's page is
    loaded once (a load is seconds of a core for Lab's server and the browser)."""
    lab, work = learner
    first = LAB_EXPLORABLES[0]
    announcements = []  # Lab's request for its announcements' config (_a_learners_first_launch)
    page = _open(browser, lab, f"{IN_COPY.format(first)}?reset",  # ?reset: a first launch, nothing restored
                 on_response=lambda r: announcements.append(r.url) if ANNOUNCEMENTS in r.url else None)
    errors, now = [], [first]  # what went wrong, with the chapter it went wrong in
    page.on("response", lambda r: errors.append(f"{now[0]}: {r.status} {r.url}") if r.status >= 400 else None)
    page.on("console", lambda m: errors.append(f"{now[0]}: {m.text}")
            if m.type == "error" and not LAB_DEBUGGER_ASKED_AN_ENDED_KERNEL.match(m.text) else None)
    page.on("pageerror", lambda e: errors.append(f"{now[0]}: {e}"))
    _a_learners_first_launch(lab, work, page, first, announcements)
    for name in LAB_EXPLORABLES:
        now[0] = name
        if name != first:  # the chapter before saved (Lab restored its widgets: unsaved changes)
            lab_server.focus_notebook(page)
            with page.expect_response(lambda r: "/api/contents/" in r.url and r.request.method == "PUT"):
                page.keyboard.press("Control+s")
            lab_server.reopen(lab, page, name)
        _explorables_of_a_chapter(lab, page, name)
    page.goto("about:blank")  # leave Lab first: its polls of a shut-down kernel would 404
    page.close()
    lab_server.end_sessions(lab)  # the Lab is shared with this worker's other tests
    assert not errors, errors


def _explorables_of_a_chapter(lab, page, name: str) -> None:
    """test_explorables_in_a_real_lab's steps in the chapter `name`, open in `page`'s front tab."""
    lab_server.run_all(lab, page, name)
    page.wait_for_selector(".jp-OutputArea-output .qkv-ex", timeout=120_000)
    page.wait_for_selector(".jp-Notebook.jp-mod-commandMode", timeout=60_000)
    explorables = page.locator(".jp-OutputArea-output .qkv-ex")
    count = explorables.count()
    assert count >= 1, f"{name}: 図がありません"
    for i in range(count):
        ex = explorables.nth(i)
        check_numbers(ex, f"{name} の図 {i}")
        move_every_control(page, ex, f"{name} の図 {i}")
    # A preset button sets its state here as in the book, and the numbers are numpy's for it.
    first = explorables.nth(0)
    preset = first.locator(".qkv-presets button").first
    preset.click()
    # it glides there (300 ms): pressed once it has landed
    page.wait_for_function("b => b.getAttribute('aria-pressed') === 'true'", arg=preset.element_handle(),
                           timeout=5000)
    assert preset.get_attribute("aria-pressed") == "true", f"{name}: {preset.inner_text()}"
    check_numbers(first, f"{name}: 「{preset.inner_text()}」のあと")
    # The keyboard on the picture's items as in the book: the arrow keys go from item to item (lit,
    # its values said), never to Lab's own arrow-key shortcuts (the active cell stays).
    item = first.locator(".qkv-panels [data-item][tabindex='0']")
    if item.count():
        active_cell = "() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].findIndex(c => c.classList.contains('jp-mod-active'))"
        item.focus()
        cell_before = page.evaluate(active_cell)
        on = "() => document.activeElement.closest('[data-item]')?.dataset.item ?? null"
        start = page.evaluate(on)
        page.keyboard.press("ArrowRight")
        moved_to = page.evaluate(on)
        assert start and moved_to and moved_to != start, (name, start, moved_to)
        assert first.locator(f'.qkv-panels .qkv-lit[data-item="{moved_to}"]').count() >= 1, (name, moved_to)
        assert first.locator(".qkv-hint").inner_text().startswith(moved_to), (name, moved_to)
        assert page.evaluate(active_cell) == cell_before, f"{name}: Lab のショートカットが矢印キーを取りました"
        page.evaluate("document.activeElement.blur()")
    # On a narrow window the controls stay in view while the panels scroll past (the output area
    # must not scroll by itself, which would keep them from sticking).
    bar = first.locator(".qkv-controls").first
    if bar.is_visible() and "qkv-many" not in bar.get_attribute("class"):
        page.set_viewport_size({"width": 520, "height": 640})
        lab_server.laid_out_again(page)  # Lab lays the notebook out for the new size first
        first.locator(".qkv-host").last.evaluate("h => h.scrollIntoView({block: 'end'})")
        # and the first explorable stays where the scroll put it (Lab's windowing may move it once)
        lab_server.laid_out_again(page, ".jp-OutputArea-output .qkv-ex")
        top, bar_box = first.bounding_box()["y"], bar.bounding_box()
        scroller = page.locator(".jp-WindowedPanel-outer, .jp-Notebook").first.bounding_box()
        chain = bar.evaluate("""b => { const out = []; for (let n = b.parentElement; n; n = n.parentElement) {
          const s = getComputedStyle(n); if (s.overflowY !== 'visible' || s.position === 'sticky')
          out.push([n.className.slice(0, 60), s.overflowY, Math.round(n.getBoundingClientRect().top)]); } return out; }""")
        assert top < scroller["y"] and bar_box["y"] >= scroller["y"] - 1, (name, chain[:4])
        page.set_viewport_size({"width": 1280, "height": 900})
    # picture → Python: the kernel's explorers hold what the page shows
    last = explorables.nth(count - 1)
    state, _, _ = shown(last)
    controls = class_for(state).control_traits()
    printed = _run_new_cell(page, "import json\nexplorers = [v for v in Out.values() "
                                  "if isinstance(v, helpers.widgets.Explorable)]\n"
                                  f"print(json.dumps({{t: getattr(explorers[-1], t) for t in {list(controls)}}}))")
    assert json.loads(printed) == {t: state[t] for t in controls}, (name, printed, state)
    trait = next(iter(controls))
    # Python → picture
    other = explorer_for(state)
    new_value = _another_value(controls[trait], other, trait, state[trait])
    _run_new_cell(page, f"explorers[-1].{trait} = {new_value!r}\nprint('ok')")
    page.wait_for_function("([el, t, v]) => JSON.parse(el.dataset.qkvState)[t] === v",
                           arg=[last.element_handle(), trait, new_value], timeout=10_000)
    check_numbers(last, f"{name}: Python から {trait} = {new_value!r} にしたあと")
    # saved, closed and opened again from the file browser in the same Lab page, with a new kernel:
    # restored from the notebook, never "model not found"
    page.keyboard.press("Control+s")
    # Saved again before Run All, the explorables are not live (the pre-save hook keeps their state):
    # tried on the first chapter only, the hook is the same for every chapter.
    rounds = ["保存して開き直したあと", "開き直して、実行せずにもう一度保存したあと"]
    rounds = rounds if name == LAB_EXPLORABLES[0] else rounds[:1]
    for when, save_again in zip(rounds, [True] * (len(rounds) - 1) + [False], strict=True):
        lab_server.reopen(lab, page, name)
        try:
            # as long as the first opening may take: Lab restores every widget while a loaded
            # machine lays the chapter out (at 16x CPU throttling chapter 06 took about 105 s)
            page.wait_for_selector(".jp-OutputArea-output .qkv-ex", timeout=120_000)
        except Exception:
            pytest.fail(f"{name}: {when}、図が出ません: {page.locator('.jp-OutputArea-output').all_inner_texts()[:3]}")
        assert page.locator(".jp-OutputArea-output .qkv-ex").count() == count, f"{name}: {when}"
        assert "model not found" not in page.locator(".jp-Notebook").inner_text(), f"{name}: {when}"
        if save_again:
            lab_server.focus_notebook(page)
            with page.expect_response(lambda r: "/api/contents/" in r.url and r.request.method == "PUT"):
                page.keyboard.press("Control+s")


def test_no_control_overlaps_another_in_lab_with_the_file_browser_open(browser, learner):
    """JupyterLab at 1280 × 800 with its file browser open (the notebook about 900 px wide): every
    explorable, as its chapter shows it, in one notebook run once; no label, slider, value or
    button overlaps another or sticks out of its explorable (chapter 04's values were covered by
    the next column's label, W_V's cut off); every preset of every explorable is pressed as in
    the book. Then the same page at 390 and 320 px, the file browser still open (the notebook
    some 60 px wide: every label and slider stuck out), and at 320 px with it closed."""
    lab, work = learner
    folder = work / "overlap"
    folder.mkdir(exist_ok=True)
    names = list(explorable_classes())
    nb = nbformat.v4.new_notebook()
    # The chapters' kernel, named as they name it: with none, Lab would ask which one, and start
    # it only once asked (run_all took the default after waiting its whole timeout, 120 s).
    nb.metadata["kernelspec"] = nbformat.read(CHAPTERS[0], as_version=4).metadata["kernelspec"]
    nb.cells = [nbformat.v4.new_code_cell("import helpers\nfrom helpers.widgets import explorables")]
    nb.cells += [nbformat.v4.new_code_cell(f'explorables()["{name}"].example()') for name in names]
    nbformat.write(nb, folder / "every_explorable.ipynb")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(lab.url("lab/tree/overlap/every_explorable.ipynb?reset"), timeout=120_000)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        page.wait_for_selector(f".lm-MenuBar-itemLabel >> text={lab_server.MENU_RUN}", timeout=60_000)
        files = lab_server.show_file_browser(page)
        assert files.bounding_box()["width"] >= 200
        lab_server.run_all(lab, page, "every_explorable.ipynb")
        explorables = page.locator(".jp-OutputArea-output .qkv-ex")
        with contextlib.suppress(Exception):  # the assertion below says what came instead
            page.wait_for_function("([s, n]) => document.querySelectorAll(s).length >= n",
                                   arg=[".jp-OutputArea-output .qkv-ex", len(names)], timeout=300_000)
        assert explorables.count() == len(names), page.locator(".jp-OutputArea-output").all_inner_texts()[:3]
        notebook = page.locator(".jp-NotebookPanel").first.bounding_box()
        assert notebook["x"] >= 200 and notebook["width"] <= 1000, notebook  # beside the file browser
        for i, name in enumerate(names):
            explorables.nth(i).scroll_into_view_if_needed()
            assert explorables.nth(i).locator(".qkv-control, .qkv-preset").count() >= 1, name
        bad = page.evaluate(CONTROL_OVERLAPS)  # every explorable of the page
        assert not bad, bad[:6]
        # Every preset of every explorable and its reset, as the book's test presses them (a fold
        # opened first): each lands on its state with numpy's numbers, no button moving;
        # its symbols are shown with a <sub> as in the pictures, never an underscore. (Landing at
        # once, under reduced motion, and `quick`: the glide, each picture redrawn in Node and the
        # live region are the same module's, tried by the book's test.)
        page.emulate_media(reduced_motion="reduce")
        for i, name in enumerate(names):
            explorables.nth(i).scroll_into_view_if_needed()
            underscored, _ = explorables.nth(i).evaluate(SHOWN_SYMBOLS)
            assert not underscored, f"{name}: 図の外の文字に下線の添字 {underscored}"
            assert press_every_preset(page, explorables.nth(i), name, f"Lab の {name}", quick=True) >= 2, name
        # A phone-wide window with the file browser still open (the notebook some 60 px wide): each
        # explorable keeps a phone's width (the notebook scrolls sideways to it), nothing overlaps,
        # every fold of preset buttons opened (its buttons flow in the row, pushing the sliders down).
        assert page.evaluate(OPEN_FOLDS, True) >= 1  # chapter 00's 「答え:入れ替わる t」
        for width in (390, 320):
            page.set_viewport_size({"width": width, "height": 800})
            page.wait_for_function("w => innerWidth === w", arg=width)
            lab_server.show_file_browser(page)
            lab_server.laid_out_again(page)
            notebook = page.locator(".jp-NotebookPanel").first.bounding_box()
            widths = explorables.evaluate_all("es => es.map(e => e.getBoundingClientRect().width)")
            bad = page.evaluate(CONTROL_OVERLAPS)
            assert not bad, f"幅 {width}px(ノートブック {notebook['width']:.0f}px): {bad[:6]}"
            assert min(widths) >= 288, f"幅 {width}px: 図の幅 {widths}"
            # reachable: the notebook scrolls sideways to the explorable's right edge
            scroller = page.locator(".jp-NotebookPanel .jp-WindowedPanel-outer").first.evaluate(
                "n => [getComputedStyle(n).overflowX, n.scrollWidth]")
            assert scroller[0] in ("auto", "scroll") and scroller[1] >= min(widths), scroller
        # At 320 px JupyterLab 4 leaves the notebook (almost) no width beside the open file browser:
        # it keeps a sidebar open at any width (its switch to a phone layout went in 3.0.x). The
        # learner closes it with its tab, as README says: then every control of every explorable
        # is on screen once scrolled to, and none overlaps another.
        page.locator('.jp-SideBar .lm-TabBar-tab[data-id="filebrowser"]').click()
        files.wait_for(state="hidden")
        lab_server.laid_out_again(page)
        notebook = page.locator(".jp-NotebookPanel").first.bounding_box()
        assert notebook["width"] >= 200, f"ファイルブラウザを閉じても、ノートブック {notebook['width']:.0f}px"
        if os.environ.get("QKV_SCREENSHOTS"):
            for i in range(len(names)):
                explorables.nth(i).locator(".qkv-presets").scroll_into_view_if_needed()
                page.screenshot(path=f"{os.environ['QKV_SCREENSHOTS']}/lab320-{i}.png")
        count, hidden = page.evaluate(OFF_SCREEN_ONCE_SCROLLED_TO)
        assert count >= 2 * len(names) and not hidden, f"幅 320px で画面の外: {hidden[:6]}"
        bad = page.evaluate(CONTROL_OVERLAPS)
        assert not bad, f"幅 320px(ファイルブラウザを閉じて): {bad[:6]}"
    finally:
        page.goto("about:blank")
        page.close()
        lab_server.end_sessions(lab)
        shutil.rmtree(folder, ignore_errors=True)


#: [how many controls the explorables of the page have, those not wholly on the screen once
#: scrolled to] (each scrolled to in turn, as `scroll_into_view_if_needed` would).
OFF_SCREEN_ONCE_SCROLLED_TO = r"""() => {
  const controls = [...document.querySelectorAll(".jp-OutputArea-output .qkv-ex :is(.qkv-control, .qkv-preset)")];
  const hidden = [];
  for (const c of controls) {
    c.scrollIntoView({ block: "nearest", inline: "nearest" });
    const r = c.getBoundingClientRect();
    if (!r.width || r.left < -0.5 || r.right > innerWidth + 0.5 || r.top < 0 || r.bottom > innerHeight + 0.5)
      hidden.push([c.textContent.slice(0, 20), Math.round(r.left), Math.round(r.right), Math.round(r.top)]);
  }
  return [controls.length, hidden];
}"""


def _another_value(trait, explorer, name: str, current):
    from helpers.widgets._base import Choice, Flag

    if isinstance(trait, Flag):
        return not current
    if isinstance(trait, Choice):
        return next(v for v in getattr(explorer, trait.options) if v != current)
    return trait.lo if current != trait.lo else trait.hi

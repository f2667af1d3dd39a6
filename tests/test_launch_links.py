"""Launch buttons, off by default (book/_ext/qkv_book/launch_links.py), and the version on the front page.

The book `make test` builds (tests/test_book_build.py) has no setting, so no button: tests/test_book.py
checks that no page links to a notebook service. Here the front page and every chapter page are
built once more with a dummy repository address, each chapter from a stub of its notebook (its
metadata and title, nothing executed: the buttons depend on the page's path and kind only): every
chapter's Colab, Binder and JupyterHub link must name the chapter's executed `.ipynb` in the
repository (Colab cannot open the MyST `.md`), and no other page gets one.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import chapters
import nbformat
import pytest
import yaml
from test_book_build import book_extension

import helpers

ROOT = Path(__file__).resolve().parents[1]

OWNER, REPO, BRANCH = "example-owner", "qkv-textbook", "main"
REPOSITORY = f"https://github.com/{OWNER}/{REPO}"
HUB = "https://hub.example.org"
SERVICES = ("colab.research.google.com", "mybinder.org", HUB.split("//")[1])
LINK = re.compile(r'href="(https://(?:{})[^"]*)"'.format("|".join(map(re.escape, SERVICES))))


def test_empty_setting_turns_on_nothing():
    launch_links = book_extension().launch_links  # (the extension imports Sphinx and myst-nb: not at collection)
    assert launch_links.launch_options({}) == {}
    assert launch_links.launch_options({launch_links.REPOSITORY_VAR: "  "}) == {}
    # the book's own config asks for no service: only the setting adds them
    config = yaml.safe_load((ROOT / "book" / "_config.yml").read_text(encoding="utf-8"))
    assert not any(v for k, v in config["launch_buttons"].items() if k.endswith("_url"))
    assert "repository" not in config


def test_the_setting_names_the_services_and_the_branch():
    launch_links = book_extension().launch_links
    on = launch_links.launch_options({launch_links.REPOSITORY_VAR: REPOSITORY + "/"})
    assert on["repository_url"] == REPOSITORY and on["repository_branch"] == "main"
    assert on["launch_buttons"]["colab_url"] and on["launch_buttons"]["binderhub_url"]
    assert on["launch_buttons"]["jupyterhub_url"] == ""  # no public hub: a class gives its own
    hub = launch_links.launch_options({launch_links.REPOSITORY_VAR: REPOSITORY,
                                       launch_links.HUB_VAR: HUB, launch_links.BRANCH_VAR: "v1"})
    assert hub["launch_buttons"]["jupyterhub_url"] == HUB and hub["repository_branch"] == "v1"


def test_the_book_release_is_the_helpers_version():
    assert book_extension().version.helpers_version() == helpers.__version__


def notebook_path(url: str) -> str:
    """The repository path a launch link opens (each service writes it its own way)."""
    parts = urlsplit(url)
    if parts.netloc == "colab.research.google.com":
        prefix = f"/github/{OWNER}/{REPO}/blob/{BRANCH}/"
        assert parts.path.startswith(prefix), url
        return parts.path[len(prefix):]
    query = parse_qs(parts.query)
    if parts.netloc == "mybinder.org":
        assert parts.path == f"/v2/gh/{OWNER}/{REPO}/{BRANCH}", url
        return query["urlpath"][0].removeprefix("lab/tree/")
    assert parts.path == "/hub/user-redirect/git-pull", url  # nbgitpuller
    assert query["repo"] == [REPOSITORY] and query["branch"] == [BRANCH], url
    return unquote(query["urlpath"][0]).removeprefix(f"lab/tree/{REPO}/")


def chapter_stubs(tmp: Path) -> Path:
    """The book's sources and a stub of each chapter, laid out as in the repository: the chapter's
    notebook with its metadata and its title only. The buttons depend on neither the text nor the
    outputs, and a page without them skips the maths' typesetting and most of the search index;
    the font is not cut at all (`qkv_cut_font`: about half of what such a build still costs)."""
    src = tmp / "src"
    shutil.copytree(ROOT / "book", src / "book", ignore=shutil.ignore_patterns("_build"))
    (src / "notebooks").mkdir()
    for chapter in chapters.chapters():
        nb = nbformat.read(ROOT / "notebooks" / f"{chapter.slug}.ipynb", as_version=4)
        title = nb.cells[0].source.splitlines()[0]
        assert nb.cells[0].cell_type == "markdown" and title.startswith("# "), chapter.slug
        nb.cells = [nbformat.v4.new_markdown_cell(title)]
        nbformat.write(nb, src / "notebooks" / f"{chapter.slug}.ipynb")
    return src


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The front page and the chapters' stubs, with the setting."""
    tmp = tmp_path_factory.mktemp("launch")
    src = chapter_stubs(tmp)
    config = yaml.safe_load((ROOT / "book" / "_config.yml").read_text(encoding="utf-8"))
    config["execute"]["execute_notebooks"] = "off"
    config["sphinx"]["config"]["qkv_cut_font"] = False  # no page is read in a browser here
    config["sphinx"]["local_extensions"] = {"qkv_book": str(ROOT / "book" / "_ext")}
    (tmp / "_config.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    toc = {"format": "jb-book", "root": "book/index",
           "chapters": [{"file": f"notebooks/{c.slug}"} for c in chapters.chapters()]}
    (tmp / "_toc.yml").write_text(yaml.safe_dump(toc), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "MAKE"))}
    launch_links = book_extension().launch_links
    env.update({launch_links.REPOSITORY_VAR: REPOSITORY, launch_links.HUB_VAR: HUB})
    run = subprocess.run([str(Path(sys.executable).with_name("jupyter-book")), "build", str(src),
                          "--config", str(tmp / "_config.yml"), "--toc", str(tmp / "_toc.yml"),
                          "--path-output", str(tmp)], cwd=src, env=env, capture_output=True, text=True)
    html = tmp / "_build" / "html"
    assert run.returncode == 0 and (html / "index.html").exists(), run.stdout[-3000:] + run.stderr[-3000:]
    return html


def test_every_chapter_launches_its_executed_notebook(built):
    for chapter in chapters.chapters():
        page = (built / "notebooks" / f"{chapter.slug}.html").read_text(encoding="utf-8")
        links = set(LINK.findall(page.replace("&amp;", "&")))
        hosts = {urlsplit(u).netloc for u in links}
        assert hosts == set(SERVICES), f"{chapter.slug}: 起動リンクがそろっていません: {sorted(links)}"
        for url in links:
            path = notebook_path(url)
            assert path == f"notebooks/{chapter.slug}.ipynb", url
            assert (ROOT / path).is_file(), f"起動リンクの先がリポジトリにありません: {url}"


def test_no_other_page_has_a_launch_link_and_the_front_page_shows_the_version(built):
    front = (built / "book" / "index.html").read_text(encoding="utf-8")
    assert not LINK.findall(front)
    text = re.sub(r"<[^>]+>", "", front)
    assert f"この本の helpers の版は {helpers.__version__} です" in text

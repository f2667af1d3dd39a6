"""The class hub end to end, on loopback: JupyterHub, nbgrader's exchange, real Unix accounts.

One temporary class (tests/support/hub_harness.py: a teacher and three students with a unique name prefix,
an exchange, the recipe's hub with PAM login on a free 127.0.0.1 port) lives for this module:

1. the teacher releases chapter 06 through the exchange (nbgrader's command line, as the teacher);
2. student 1 works in a real browser: logs in, opens Nbgrader → Assignment List, fetches, writes the
   right answers into the notebook in JupyterLab, saves, submits; student 2 does the same through
   the server's REST API (the calls the lab extension makes) with a typical mistake (no √d_k);
   student 3 uses nbgrader's command line as that account and hands in the blank release;
3. bad input on the way: a malformed notebook and an oversized one are refused with a Japanese
   message and nothing is lost; a submission planted under student 1's name by student 2 is not
   collected (student 1's own is);
4. the teacher collects, autogrades and makes feedback with `python -m qkv_classroom`, releases
   it; each student fetches their own feedback (browser, REST, command line);
5. isolation, as each student's own account: no reading another's submission or feedback, the
   teacher's source/ or gradebook, through the exchange or the file system; a runaway kernel
   (a busy loop, a huge allocation) does not stop the others.

Needs root (it creates accounts) and a course environment every account can run: `make test-hub`
(which `.ci/run` runs) provides both. Under `make test` this module is skipped with that reason.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("jupyterhub")

import chromium  # noqa: E402
from hub_harness import TempClass, readable_by_others, why_not_here  # noqa: E402

CHAPTER = "06_attention"
COURSE = "qkv"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
RIGHT = {
    "def my_attention(": (
        "def my_attention(Q, K, V):\n"
        "    d_k = Q.shape[1]\n"
        "    scores = Q @ K.T / np.sqrt(d_k)\n"
        "    e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"  # numpy only, as the task says
        "    weights = e / e.sum(axis=-1, keepdims=True)\n"
        "    return weights @ V, weights\n"),
    "prediction": '# 答えは変数 prediction に入れます。\nprediction = "均等"\n',
}
NO_SQRT = dict(RIGHT, **{"def my_attention(": (
    "def my_attention(Q, K, V):\n"
    "    scores = Q @ K.T\n"
    "    e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
    "    weights = e / e.sum(axis=-1, keepdims=True)\n"
    "    return weights @ V, weights\n")})
FULL_MARKS = 4.0  # ex06_attention_test (3) + ex06_predict_test (1)

_reason = why_not_here()
if _reason is None and readable_by_others(Path(sys.executable)) is not None:
    _reason = (f"{Path(sys.executable).resolve()} をほかのユーザーが実行できません"
               f"({readable_by_others(Path(sys.executable))} に入れません)。make test-hub で実行します")
pytestmark = pytest.mark.skipif(_reason is not None, reason=_reason or "")


def answer_cells(nb: dict, answers: dict[str, str]) -> dict:
    """`nb` with each solution cell that contains a key of `answers` replaced by its value."""
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not meta.get("solution"):
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for marker, text in answers.items():
            if marker in source:
                cell["source"] = text
    return nb


def inbound_entries(cls: TempClass) -> dict[str, os.stat_result]:
    inbound = Path(cls.classroom.exchange_root) / COURSE / "inbound"
    return {p.name: p.stat() for p in inbound.iterdir()}


def text_of(page_html: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page_html))


# --------------------------------------------------------------------------------------------
# The class, and what happened in it


@pytest.fixture(scope="module")
def cls():
    with TempClass(n_students=3) as c:
        c.s1, c.s2, c.s3 = c.students
        yield c


def teacher(cls, *args, **kw):
    return cls.run_as(cls.teacher, list(args), cwd=str(cls.course), **kw)


def nbgrader(cls, user, *args):
    return cls.run_as(user, [sys.executable, "-m", "nbgrader", *args])


@pytest.fixture(scope="module")
def released(cls):
    done = teacher(cls, sys.executable, "-m", "nbgrader", "release_assignment", CHAPTER)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


@pytest.fixture(scope="module")
def browser_context():
    from playwright.sync_api import sync_playwright

    executable = chromium.find().path  # tools/chromium.py: the one `make test-hub` set up

    profile = tempfile.mkdtemp(prefix="qkv-hub-chromium-")  # a fresh profile, removed afterwards
    try:
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                profile, executable_path=executable, args=CHROMIUM_ARGS, headless=True,
                viewport={"width": 1400, "height": 900}, locale="ja-JP")
            context.set_default_timeout(60_000)
            yield context
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def open_assignment_list(page):
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    page.wait_for_selector("#released_assignments_list", state="attached")


def set_cell(page, marker: str, text: str):
    """Replace the text of the notebook cell that contains `marker`, by typing into its editor."""
    editor = page.locator(".jp-Notebook .jp-CodeCell .cm-content", has_text=marker).first
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


@pytest.fixture(scope="module")
def student1_in_browser(cls, released, browser_context):
    """Student 1, in Chromium: log in, fetch, answer in JupyterLab, save, submit."""
    page = browser_context.new_page()
    page.goto(f"{cls.url}/hub/login")
    page.fill("#username_input", cls.s1)
    page.fill("#password_input", cls.passwords[cls.s1])
    page.click("#login_submit")
    page.wait_for_url(re.compile(rf"/user/{cls.s1}/lab"), timeout=180_000)
    page.wait_for_selector(".jp-LauncherCard", timeout=120_000)
    open_assignment_list(page)
    released_row = page.locator("#released_assignments_list .list_item", has_text=CHAPTER)
    released_row.get_by_role("button", name="Fetch").click()
    fetched_row = page.locator("#fetched_assignments_list .list_item", has_text=CHAPTER).first
    fetched_row.wait_for()
    fetched = (cls.home(cls.s1) / CHAPTER / f"{CHAPTER}.ipynb").exists()

    page.goto(f"{cls.url}/user/{cls.s1}/lab/tree/{CHAPTER}/{CHAPTER}.ipynb")
    page.wait_for_selector(".jp-Notebook .jp-CodeCell .cm-content", timeout=120_000)
    for marker, text in RIGHT.items():
        set_cell(page, marker if marker != "prediction" else "答えは変数 prediction", text)
    page.keyboard.press("Control+s")
    local = cls.home(cls.s1) / CHAPTER / f"{CHAPTER}.ipynb"
    deadline = time.monotonic() + 30
    typed = RIGHT["def my_attention("].strip()

    def typed_is_saved() -> bool:  # the chapter itself also contains `Q @ K.T`: wait for the cell
        cells = json.loads(local.read_text("utf-8"))["cells"]
        return any("".join(c["source"]).strip() == typed for c in cells)

    while not typed_is_saved() and time.monotonic() < deadline:
        time.sleep(0.5)
    saved = json.loads(local.read_text("utf-8"))

    open_assignment_list(page)
    row = page.locator("#fetched_assignments_list .list_item", has_text=CHAPTER).first
    row.get_by_role("button", name="Submit").click()
    page.locator("#submitted_assignments_list .list_item", has_text=CHAPTER).first.wait_for()
    page.screenshot(path=str(cls.base / "student1-submitted.png"))
    return {"page": page, "fetched": fetched, "saved": saved}


@pytest.fixture(scope="module")
def student2_rest(cls, released):
    """Student 2, through the server's REST API as that user: a malformed try, then a wrong answer."""
    client = cls.hub.as_user(cls.s2)
    cls.hub.start_server(cls.s2)
    listed = client.request("GET", "/assignments", params={"course_id": COURSE}).json()
    r = client.request("POST", "/assignments/fetch", json={"course_id": COURSE, "assignment_id": CHAPTER})
    r.raise_for_status()
    path = f"{CHAPTER}/{CHAPTER}.ipynb"
    release = client.get_notebook(path)
    local = cls.home(cls.s2) / path

    # A malformed notebook: refused, with the reason, and the student's file is still there.
    before = inbound_entries(cls)
    good_bytes = local.read_bytes()
    local.write_text('{"cells": [', encoding="utf-8")
    malformed = client.request("POST", "/assignments/submit",
                               json={"course_id": COURSE, "assignment_id": CHAPTER}).json()
    malformed_inbound = inbound_entries(cls)
    malformed_kept = local.read_text("utf-8")
    local.write_bytes(good_bytes)

    client.put_notebook(path, answer_cells(release, NO_SQRT))
    submitted = client.request("POST", "/assignments/submit",
                               json={"course_id": COURSE, "assignment_id": CHAPTER}).json()
    return {"client": client, "listed": listed, "malformed": malformed, "before": before,
            "malformed_inbound": malformed_inbound, "malformed_kept": malformed_kept,
            "submitted": submitted}


@pytest.fixture(scope="module")
def student3_cli(cls, released):
    """Student 3, with nbgrader's command line as that account: an oversized try, then blank."""
    fetched = nbgrader(cls, cls.s3, "fetch_assignment", CHAPTER, "--course", COURSE)
    local = cls.home(cls.s3) / CHAPTER / f"{CHAPTER}.ipynb"
    blank = local.read_bytes()
    nb = json.loads(blank)
    # Over the 10 MB limit, and otherwise a valid notebook (a cell that printed a lot).
    nb["cells"][1].setdefault("outputs", []).append(
        {"output_type": "stream", "name": "stdout", "text": "x" * 11_000_000})
    if nb["cells"][1]["cell_type"] != "code":
        nb["cells"][1] = {"cell_type": "code", "metadata": {}, "source": "", "execution_count": 1,
                          "outputs": nb["cells"][1]["outputs"], "id": "big-output"}
    before = inbound_entries(cls)
    local.write_text(json.dumps(nb), encoding="utf-8")
    oversized = nbgrader(cls, cls.s3, "submit", CHAPTER, "--course", COURSE)
    oversized_inbound = inbound_entries(cls)
    oversized_size = local.stat().st_size
    local.write_bytes(blank)
    submitted = nbgrader(cls, cls.s3, "submit", CHAPTER, "--course", COURSE)
    return {"fetched": fetched, "oversized": oversized, "before": before,
            "oversized_inbound": oversized_inbound, "oversized_size": oversized_size,
            "submitted": submitted}


PLANT = r"""
import json, os, sys, time
inbound, name, nb = sys.argv[1], sys.argv[2], sys.argv[3]
path = os.path.join(inbound, name)
os.mkdir(path)
with open(os.path.join(path, "timestamp.txt"), "w") as f:
    f.write("2099-01-01 00:00:00.000000 UTC")
with open(os.path.join(path, "06_attention.ipynb"), "w") as f:
    f.write(nb)
print("planted", path)
"""


@pytest.fixture(scope="module")
def graded(cls, student1_in_browser, student2_rest, student3_cli):
    """Student 2 plants a submission in student 1's name; the teacher collects, grades, returns."""
    inbound = Path(cls.classroom.exchange_root) / COURSE / "inbound"
    fake = f"{cls.s1}+{CHAPTER}+2099-01-01 00:00:00.000000 UTC+planted"
    nb = json.dumps(answer_cells(json.loads((cls.course / "release" / CHAPTER / f"{CHAPTER}.ipynb")
                                            .read_text("utf-8")), NO_SQRT))
    planted = cls.run_as(cls.s2, [sys.executable, "-c", PLANT, str(inbound), fake, nb])
    steps = {}
    for name, cmd in (
        ("collect", [sys.executable, "-m", "nbgrader", "collect", CHAPTER]),
        ("autograde", [sys.executable, "-m", "qkv_classroom", "autograde", "--root", ".", CHAPTER]),
        ("feedback", [sys.executable, "-m", "qkv_classroom", "feedback", "--root", ".", CHAPTER]),
        ("release_feedback", [sys.executable, "-m", "nbgrader", "release_feedback", CHAPTER]),
    ):
        steps[name] = teacher(cls, *cmd)
        assert steps[name].returncode == 0, (name, steps[name].stdout[-2000:], steps[name].stderr[-3000:])
    import qkv_classroom

    scores = qkv_classroom.scores(cls.course, CHAPTER)
    return {"planted": planted, "fake": inbound / fake, "steps": steps, "scores": scores}


@pytest.fixture(scope="module")
def feedback_fetched(cls, graded, student1_in_browser, student2_rest):
    page = student1_in_browser["page"]
    page.reload()
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").wait_for(timeout=120_000)
    open_assignment_list(page)
    page.locator("#submitted_assignments_list button", has_text="Fetch Feedback").first.click()
    page.locator("#submitted_assignments_list", has_text="view feedback").wait_for()
    page.screenshot(path=str(cls.base / "student1-feedback.png"))
    r = student2_rest["client"].request("POST", "/assignments/fetch_feedback",
                                        json={"course_id": COURSE, "assignment_id": CHAPTER})
    r.raise_for_status()
    s3 = nbgrader(cls, cls.s3, "fetch_feedback", CHAPTER, "--course", COURSE)
    assert s3.returncode == 0, s3.stderr[-2000:]
    return {s: sorted((cls.home(s) / CHAPTER / "feedback").rglob("*.html")) for s in cls.students}


# --------------------------------------------------------------------------------------------
# The round trip


def test_hub_listens_on_loopback_only(cls):
    import psutil

    pids = {cls.hub_proc.pid} | {p.pid for p in psutil.Process(cls.hub_proc.pid).children(recursive=True)}
    listening = [c for c in psutil.net_connections("inet") if c.status == "LISTEN" and c.pid in pids]
    assert listening
    assert {c.laddr.ip for c in listening} <= {"127.0.0.1"}, listening


def test_teacher_released_chapter_through_the_exchange(cls, released):
    outbound = Path(cls.classroom.exchange_root) / COURSE / "outbound" / CHAPTER / f"{CHAPTER}.ipynb"
    text = outbound.read_text("utf-8")
    assert "raise NotImplementedError()" in text and "BEGIN SOLUTION" not in text


def test_teacher_sees_the_formgrader(cls, released):
    cls.hub.start_server(cls.teacher)
    client = cls.hub.as_user(cls.teacher)
    r = client.request("GET", "/formgrader/api/assignments")
    assert r.status_code == 200, r.text[:500]
    assert CHAPTER in {a["name"] for a in r.json()}
    assert client.request("GET", "/formgrader").status_code == 200


def test_student_in_the_browser_fetched_answered_and_submitted(cls, student1_in_browser):
    assert student1_in_browser["fetched"]
    sources = ["".join(c["source"]).strip() for c in student1_in_browser["saved"]["cells"]]
    assert RIGHT["def my_attention("].strip() in sources
    assert any('prediction = "均等"' in s for s in sources)
    owned = [n for n, st in inbound_entries(cls).items() if n.startswith(f"{cls.s1}+")]
    assert len(owned) == 1


def test_student_over_rest_sees_the_release_and_submits(cls, student2_rest):
    assert student2_rest["listed"]["success"]
    assert any(a["assignment_id"] == CHAPTER for a in student2_rest["listed"]["value"])
    assert student2_rest["submitted"]["success"] is True


def test_student_on_the_command_line_fetches_and_submits(cls, student3_cli):
    assert student3_cli["fetched"].returncode == 0, student3_cli["fetched"].stderr[-2000:]
    assert student3_cli["submitted"].returncode == 0, student3_cli["submitted"].stderr[-2000:]


def test_malformed_notebook_is_refused_and_kept(cls, student2_rest):
    out = student2_rest["malformed"]
    assert out["success"] is False
    assert "ノートブックとして読めません" in out["value"]
    assert student2_rest["malformed_inbound"] == student2_rest["before"]  # nothing half-written
    assert student2_rest["malformed_kept"] == '{"cells": ['  # the student's file is untouched


def test_oversized_submission_is_refused_and_kept(cls, student3_cli):
    done = student3_cli["oversized"]
    assert done.returncode != 0
    assert "提出できる大きさ" in done.stdout + done.stderr and "10 MB" in done.stdout + done.stderr
    assert student3_cli["oversized_inbound"] == student3_cli["before"]
    assert student3_cli["oversized_size"] > 10_000_000


def test_submissions_are_readable_by_the_teachers_group_only(cls, graded):
    import grp

    teachers_gid = grp.getgrnam(cls.classroom.teachers_group).gr_gid
    inbound = Path(cls.classroom.exchange_root) / COURSE / "inbound"
    genuine = [p for p in inbound.iterdir() if p != graded["fake"]]
    assert len(genuine) == 3
    for top in genuine:
        for path in [top, *top.rglob("*")]:
            st = path.stat()
            assert st.st_gid == teachers_gid, path
            assert not st.st_mode & 0o007, (path, oct(st.st_mode))


def test_planted_submission_is_not_collected_and_not_deleted(cls, graded):
    assert graded["planted"].returncode == 0, graded["planted"].stderr
    log = graded["steps"]["collect"].stdout + graded["steps"]["collect"].stderr
    assert "なりすまし" in log and cls.s2 in log
    assert graded["fake"].exists()
    collected = json.loads((cls.course / "submitted" / cls.s1 / CHAPTER / f"{CHAPTER}.ipynb").read_text("utf-8"))
    sources = ["".join(c["source"]).strip() for c in collected["cells"]]
    assert RIGHT["def my_attention("].strip() in sources  # student 1's own, not the planted one


def test_scores_right_mistake_blank(cls, graded):
    scores = graded["scores"]
    assert sum(scores[cls.s1].values()) == FULL_MARKS, scores
    assert scores[cls.s2] == {"ex06_attention_test": 0.0, "ex06_predict_test": 1.0}, scores
    assert sum(scores[cls.s3].values()) == 0.0, scores


def test_autograde_on_the_hub_writes_the_class_report(cls, graded):
    """The teacher's autograde through the exchange also writes the class report: student 2's
    planted mistake counted by its id, no student named."""
    import csv

    with open(cls.course / "reports" / "class_report.csv", encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["chapter"] == CHAPTER]
    no_sqrt = [r for r in rows if r["mistake"] == "no_sqrt"]
    assert [(r["exercise"], r["students"]) for r in no_sqrt] == [("ex06_attention_test", "1")], rows
    page = (cls.course / "reports" / "class_report.html").read_text("utf-8")
    assert "ステップ 2" in page and not any(s in page for s in cls.students)


def test_each_student_fetched_their_own_feedback(cls, graded, feedback_fetched):
    from helpers import checks

    for student, pages in feedback_fetched.items():
        assert len(pages) == 1, (student, pages)
        assert cls.course.joinpath("feedback", student, CHAPTER, f"{CHAPTER}.html").read_text("utf-8") \
            == pages[0].read_text("utf-8"), student
    s1, s2, s3 = (text_of(feedback_fetched[s][0].read_text("utf-8")) for s in cls.students)
    assert "Score: 4.0 / 4.0" in s1.replace("\n", " ") or "4.0 / 4.0" in s1
    assert "1.0 / 4.0" in s2 and "0.0 / 4.0" in s3
    hint = getattr(checks, "ATTENTION_HINTS", {}).get("no_sqrt")
    if hint:
        assert hint in s2


# --------------------------------------------------------------------------------------------
# Isolation, as the students' own accounts

PROBE = r"""
import json, os, sys
result = {}
for name, action, path in json.loads(sys.argv[1]):
    try:
        if action == "list":
            os.listdir(path)
        elif action == "read":
            with open(path, "rb") as f:
                f.read(1)
        elif action == "rename":
            os.rename(path, path + "-moved")
        elif action == "remove":
            os.remove(path) if os.path.isfile(path) else os.rmdir(path)
        result[name] = "allowed"
    except PermissionError:
        result[name] = "denied"
    except OSError as err:
        result[name] = type(err).__name__
print(json.dumps(result))
"""


def probe(cls, user: str, attempts: list[tuple[str, str, Path]]) -> dict[str, str]:
    done = cls.run_as(user, [sys.executable, "-c", PROBE,
                             json.dumps([(n, a, str(p)) for n, a, p in attempts])])
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def snapshot(paths: list[Path]) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for root in paths for p in ([root] if root.is_file() else root.rglob("*"))
            if p.is_file()}


def test_a_student_cannot_reach_another_students_work(cls, graded, feedback_fetched):
    exchange = Path(cls.classroom.exchange_root) / COURSE
    s1_sub = next(p for p in (exchange / "inbound").iterdir() if p.name.startswith(f"{cls.s1}+")
                  and p != graded["fake"])
    released_feedback = sorted((exchange / "feedback").glob("*.html"))
    assert len(released_feedback) == 3
    s1_gid = os.stat(cls.home(cls.s1)).st_gid
    s1_feedback = next(p for p in released_feedback if p.stat().st_gid == s1_gid)
    guarded = [exchange / "inbound", exchange / "feedback", cls.course, cls.home(cls.s1)]
    before = snapshot([s1_sub, s1_feedback, feedback_fetched[cls.s1][0],
                       cls.course / "gradebook.db", cls.course / "source"])
    attempts = [
        ("list inbound", "list", exchange / "inbound"),
        ("read s1 submission", "read", s1_sub / f"{CHAPTER}.ipynb"),
        ("read s1 secret", "read", s1_sub / "submission_secret.txt"),
        ("list s1 submission", "list", s1_sub),
        ("rename s1 submission", "rename", s1_sub),
        ("list feedback", "list", exchange / "feedback"),
        ("read s1 feedback", "read", s1_feedback),
        ("remove s1 feedback", "remove", s1_feedback),
        ("list s1 home", "list", cls.home(cls.s1)),
        ("read s1 fetched feedback", "read", feedback_fetched[cls.s1][0]),
        ("list course", "list", cls.course),
        ("list source", "list", cls.course / "source"),
        ("read source", "read", cls.course / "source" / CHAPTER / f"{CHAPTER}.ipynb"),
        ("read gradebook", "read", cls.course / "gradebook.db"),
        ("list teacher home", "list", cls.home(cls.teacher)),
    ]
    for student in (cls.s2, cls.s3):
        result = probe(cls, student, attempts)
        assert set(result.values()) == {"denied"}, (student, result)
    assert snapshot([s1_sub, s1_feedback, feedback_fetched[cls.s1][0],
                     cls.course / "gradebook.db", cls.course / "source"]) == before
    for path in guarded:
        assert path.exists()
    # …while the things meant for everyone are readable
    ok = probe(cls, cls.s2, [("read release", "read",
                              exchange / "outbound" / CHAPTER / f"{CHAPTER}.ipynb")])
    assert ok == {"read release": "allowed"}


def test_a_student_cannot_reach_another_students_server_or_the_formgrader(cls, student2_rest):
    client = student2_rest["client"]
    assert client.request("GET", "/formgrader/api/assignments").status_code == 404
    other = client.session.get(f"{cls.url}/user/{cls.s1}/api/contents", timeout=60,
                               allow_redirects=False)
    assert other.status_code in (302, 403, 404), other.status_code
    assert "06_attention" not in other.text


def test_listing_the_exchange_shows_a_student_only_their_own(cls, graded, feedback_fetched):
    done = nbgrader(cls, cls.s2, "list", "--inbound", "--course", COURSE)
    assert cls.s1 not in done.stdout + done.stderr
    mine = nbgrader(cls, cls.s2, "list", "--cached", "--course", COURSE)
    assert cls.s2 in mine.stdout + mine.stderr and cls.s1 not in mine.stdout + mine.stderr


def test_runaway_kernel_does_not_stop_the_others(cls, student2_rest):
    busy_client = cls.hub.as_user(cls.s3)
    cls.hub.start_server(cls.s3)
    busy = busy_client.kernel("busy.ipynb")
    hog = busy_client.kernel("hog.ipynb")
    try:
        loop = busy.send("while True:\n    pass")
        time.sleep(2)
        # a huge allocation fails inside the student's own address-space limit
        alloc = hog.run("try:\n    x = bytearray(8 * 1024**3)\n    print('allocated')\n"
                        "except MemoryError:\n    print('MemoryError')", timeout=120)
        assert "MemoryError" in alloc["stdout"], alloc
        # meanwhile another student's kernel and the hub answer promptly
        other = student2_rest["client"].kernel("other.ipynb")
        t0 = time.monotonic()
        reply = other.run("import numpy as np\nprint(int(np.arange(10).sum()))", timeout=120)
        took = time.monotonic() - t0
        other.close()
        assert reply["status"] == "ok" and reply["stdout"].strip() == "45"
        assert took < 30, took
        assert cls.hub.api("GET", f"/users/{cls.s1}").status_code == 200
        busy.interrupt()
        assert busy.wait(loop, timeout=60)["status"] == "error"  # KeyboardInterrupt
    finally:
        busy.close()
        hog.close()


def test_servers_run_as_their_own_accounts_with_private_runtime(cls, student2_rest):
    import pwd

    import psutil

    client = student2_rest["client"]
    kernel = client.kernel("whoami.ipynb")
    try:
        reply = kernel.run("import os, pwd\nprint(pwd.getpwuid(os.getuid()).pw_name, os.getcwd())")
        uid = pwd.getpwnam(cls.s2).pw_uid
        rt = Path(cls.classroom.runtime_root) / str(uid)
        st = rt.stat()
        sockets = [p for p in rt.iterdir() if p.is_socket()]
    finally:
        kernel.close()
    assert reply["stdout"].split() == [cls.s2, str(cls.home(cls.s2))]
    assert st.st_uid == uid and stat.S_IMODE(st.st_mode) & 0o777 == 0o700
    assert len(sockets) >= 5  # the kernel's five channels are Unix sockets, not TCP ports
    servers = [p for p in psutil.process_iter(["uids", "cmdline"])
               if "jupyterhub-singleuser" in " ".join(p.info["cmdline"] or [])]
    assert servers and 0 not in {p.info["uids"].real for p in servers}

"""The class report: what the class got wrong, exercise by exercise, and where to re-teach it.

Read from a graded course folder (autograded/, the gradebook, reports/grading.csv, source/ and
release/), written as reports/class_report.html (Japanese, one file: inline CSS, the charts as
data-URI PNGs, no request outside it) and reports/class_report.csv. Per chapter and exercise: how
many students got full, partial and no credit; each mistake a check recognised (the `mistake` id
of its verdict records, `tamper.verdicts`) with how many students made it, its hint and a link to
the book's section the hint sends them to; failures no check recognised, grouped by message;
commonest first. Flagged submissions (tampering, forged records, ungradable, blank, not graded)
are listed apart with their reason and never counted. Anonymous unless `names`.
"""

from __future__ import annotations

import base64
import csv
import functools
import html
import io
import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.utils import is_grade, is_solution

from .course_folder import Log, course
from .gradebook import scores
from .reports import REPORT_DIR, Status, earlier_outcomes
from .submissions import students_of
from .tamper import verdicts

#: The book's HTML next to this package's repository (the report links into it, relatively).
BOOK_HTML = Path(__file__).resolve().parents[2] / "book" / "_build" / "html"
KINDS = {"full": "満点", "partial": "部分点", "none": "0 点"}


@dataclass
class Mistake:
    key: str  # the check's mistake id, or "" for a failure no check recognised (grouped by hint)
    hint: str
    students: set[str] = field(default_factory=set)
    section: tuple[str, str] | None = None  # (title, href)


@dataclass
class Exercise:
    chapter: str
    grade_id: str
    points: float
    title: str = ""
    counts: Counter = field(default_factory=Counter)  # full / partial / none / unanswered
    mistakes: dict[tuple[str, str], Mistake] = field(default_factory=dict)

    def ranked(self) -> list[Mistake]:
        return sorted(self.mistakes.values(), key=lambda m: (-len(m.students), m.key == "", m.hint))


@dataclass
class Flag:
    student: str
    chapter: str
    kind: str
    reason: str


def _read(path: Path):
    return nbformat.read(path, 4) if path.exists() else None


def _gid(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id", "")


def _answers_of(nb) -> dict[str, list[str]]:
    """{test grade_id: the sources of the answer cells before it (since the previous test)}."""
    found, answers = {}, []
    for cell in nb.cells:
        if is_solution(cell) and not is_grade(cell):
            answers.append(cell.source)
        elif is_grade(cell):
            found[_gid(cell)], answers = answers, []
    return found


def _norm(text: str) -> str:
    text = text.replace("\\sqrt", "√").replace("\\top", "ᵀ")
    return re.sub(r"[\s$\\{}()()「」#:: ]", "", text)


def _headings(nb) -> list[tuple[str, int]]:
    """The chapter's headings in order, each with the index of its cell."""
    return [(line.lstrip("#").strip(), i) for i, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
            for line in cell.source.splitlines() if re.match(r"#{1,6} ", line)]


def _anchors(page: Path) -> dict[str, str]:
    """{a heading's text (`_norm`): its section's id} on the built book's page (none unbuilt)."""
    if not page.exists():
        return {}
    found = re.findall(r'<section[^>]*\bid="([^"]+)"[^>]*>\s*<h[1-6][^>]*>(.*?)</h[1-6]>',
                       page.read_text(encoding="utf-8"), flags=re.S)
    # A heading's maths is drawn when the book is built (SVG with MathML beside it): headings are
    # matched by their words, without the maths, on both sides (`_title_key`).
    maths = re.compile(r'<span class="math[^"]*">.*?</span>', flags=re.S)  # no span inside
    return {_title_key(html.unescape(re.sub(r"<[^>]+>", "", maths.sub("", title)))): id_
            for id_, title in reversed(found)}


def _title_key(title: str) -> str:
    """A heading's words without its maths (`$…$` in the chapter, SVG in the built book)."""
    return _norm(re.sub(r"\$[^$]*\$", "", title).replace("`", ""))


class _Book:
    """Where a hint sends the student: the chapter page of the book and its section."""

    def __init__(self, root: Path, folder: Path, book: Path) -> None:
        self.root, self.folder, self.book = root, folder, book
        self._chapters: dict[str, tuple[str, list, list]] = {}

    def chapter(self, number: str):
        if number not in self._chapters:
            slugs = sorted(p.name for p in (self.root / "source").glob(f"{number}_*") if p.is_dir())
            nb = _read(self.root / "source" / slugs[0] / f"{slugs[0]}.ipynb") if slugs else None
            slug = slugs[0] if slugs else ""
            headings = _headings(nb) if nb is not None else []
            ids = _anchors(self.book / "notebooks" / f"{slug}.html")
            self._chapters[number] = (slug, headings, ids)
        return self._chapters[number]

    def link(self, slug: str, headings: list, ids: dict, index: int) -> tuple[str, str]:
        """(the heading, a relative link to its page, to the section where the book is built)."""
        page = os.path.relpath(self.book / "notebooks" / f"{slug}.html", self.folder)
        title = headings[index][0]
        anchor = f"#{ids[_title_key(title)]}" if _title_key(title) in ids else ""
        return title, page.replace(os.sep, "/") + anchor

    def section(self, grade_id: str, hint: str = "") -> tuple[str, str] | None:
        """The section a hint names (「…」 or ステップ N), else the exercise's own section."""
        slug, headings, ids = self.chapter(grade_id[2:4])
        if not headings:
            return None
        named = [_norm(q) for q in re.findall(r"「([^」]+)」", hint)]
        step = re.search(r"ステップ\s*(\d+)", hint)
        for i, (title, _) in enumerate(headings):
            if any(len(q) >= 4 and q in _norm(title) for q in named) or (
                    step and _norm(title).startswith(f"ステップ{step.group(1)}")):
                return self.link(slug, headings, ids, i)
        nb = _read(self.root / "source" / slug / f"{slug}.ipynb")
        cell = next((i for i, c in enumerate(nb.cells) if _gid(c) == grade_id), None)
        before = [i for i, (_, at) in enumerate(headings) if cell is not None and at < cell]
        return self.link(slug, headings, ids, before[-1]) if before else None


def message_group(message: str) -> str:
    """What groups failures no check recognised: the message without its numbers and arrays
    (the visible and the hidden test of one wrong formula say the same with other inputs)."""
    return re.sub(r"\[[^\]]*\]|-?\d+(?:\.\d+)?", "…", message)


#: Mistake ids that stand for many causes, told apart by what their message says: a crash's
#: message names numpy's error and, after it, what to check (a mask of the square size, the heads'
#: outputs stacked, ...), one cause per row of the report.
BY_MESSAGE = {"crashed"}


def mistake_group(key: str, message: str) -> tuple[str, str]:
    """The report's row of a verdict: its mistake id, or for a crash (`BY_MESSAGE`) and a failure
    no check recognised also its message without numbers, arrays and quoted code (the student's
    own line where it stopped)."""
    if key and key not in BY_MESSAGE:
        return key, ""
    return key, message_group(re.sub(r"`[^`]*`", "…", message))


def _error_of(cell) -> str:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            line = f"{out.get('ename', '')}: {out.get('evalue', '')}".strip().splitlines()[0]
            return line[:200]
    return "答え合わせが最後まで進みませんでした"


def tally(root: str | Path, book: Path = BOOK_HTML) -> tuple[list[Exercise], list[Flag], int]:
    """(exercises in reading order, flagged submissions, how many students were counted)."""
    root = Path(root).resolve()
    guide = _Book(root, root / REPORT_DIR, book)
    outcomes = earlier_outcomes(root)
    flags = [Flag(o.student, o.chapter, "書き換えの疑い" if o.status == Status.FLAGGED else "採点できず",
                  o.reason) for o in outcomes if o.status in (Status.FLAGGED, Status.FAILED)]
    graded = defaultdict(list)
    for o in outcomes:
        if o.status == Status.GRADED:
            graded[o.chapter].append(o.student)
    exercises: list[Exercise] = []
    counted = set()
    for chapter in sorted({o.chapter for o in outcomes} | {p.name for p in (root / "submitted").glob("*/*")
                                                          if p.is_dir()}):
        known = {o.student for o in outcomes if o.chapter == chapter}
        flags += [Flag(s, chapter, "未採点", "提出されていますが、まだ採点していません")
                  for s in students_of(root, chapter) if s not in known]
        release = _read(root / "release" / chapter / f"{chapter}.ipynb")
        blank = _answers_of(release) if release is not None else {}
        source = _read(root / "source" / chapter / f"{chapter}.ipynb")
        if source is None or not graded[chapter]:
            continue
        mine = {_gid(c): Exercise(chapter, _gid(c), float(c.metadata["nbgrader"].get("points", 0)))
                for c in source.cells if is_grade(c)}
        got = scores(root, chapter)
        for student in sorted(graded[chapter]):
            nb = _read(root / "autograded" / student / chapter / f"{chapter}.ipynb")
            if nb is None:
                continue
            answers = _answers_of(nb)
            if answers and all(answers[g] == blank.get(g) for g in answers):
                flags.append(Flag(student, chapter, "白紙", "どの解答セルも配布したときのままです"))
                continue
            counted.add(student)
            for cell in nb.cells:
                ex = mine.get(_gid(cell)) if is_grade(cell) else None
                if ex is None:
                    continue
                score = got.get(student, {}).get(ex.grade_id, 0.0)
                kind = "full" if score >= ex.points - 1e-9 else "none" if score <= 0 else "partial"
                ex.counts[kind] += 1
                if answers.get(ex.grade_id) == blank.get(ex.grade_id):
                    ex.counts["unanswered"] += 1  # no credit, and no mistake either
                    continue
                wrong = [r for r in verdicts(cell) if float(r.get("credit", 0)) < 1]
                found = [(str(r.get("mistake") or ""), str(r.get("message", ""))) for r in wrong]
                if kind != "full" and not found:
                    found = [("", _error_of(cell))]
                for key, hint in found:
                    group = mistake_group(key, hint)
                    m = ex.mistakes.setdefault(group, Mistake(key, hint))
                    m.students.add(student)
        for ex in mine.values():
            if sum(ex.counts[k] for k in KINDS):
                ex.title = (guide.section(ex.grade_id) or ("", ""))[0]
                for m in ex.mistakes.values():
                    m.section = guide.section(ex.grade_id, m.hint)
                exercises.append(ex)
    return exercises, flags, len(counted)


def _chart(ex: Exercise) -> tuple[str, str]:
    """(data URI of a PNG, its alt text): a bar per credit kind and per recognised mistake."""
    ranked = ex.ranked()[:5]
    labels = [KINDS[k] for k in KINDS] + [f"間違い {i}" for i in range(1, len(ranked) + 1)]
    values = [ex.counts[k] for k in KINDS] + [len(m.students) for m in ranked]
    alt = "、".join(f"{label} {v} 人" for label, v in zip(labels, values, strict=True))
    return _bars_png(tuple(labels), tuple(values)), f"{ex.grade_id} の人数: {alt}"


@functools.lru_cache(maxsize=256)
def _bars_png(labels: tuple[str, ...], values: tuple[int, ...]) -> str:
    """The chart's PNG as a data URI; drawn once per labels and counts (many exercises share
    theirs, e.g. every exercise only the teacher handed in: the same picture, byte for byte)."""
    from matplotlib.figure import Figure

    from helpers import plotting

    plotting.apply_style()
    colors = [plotting.COLORS["V"], "#E69F00", plotting.COLORS["K"]] + ["#666666"] * (len(labels) - len(KINDS))
    fig = Figure(figsize=(4.5, 0.5 + 0.32 * len(labels)), layout="constrained")
    ax = fig.add_subplot()
    ax.barh(range(len(labels)), values, color=colors)
    ax.set_yticks(range(len(labels)), labels, fontsize=11)
    ax.invert_yaxis()
    ax.set_xlabel("人数", fontsize=11)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="y", visible=False)
    for i, v in enumerate(values):
        ax.text(v, i, f" {v}", va="center", fontsize=11)
    ax.set_xlim(0, max(values + (1,)) * 1.15)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=150)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


CSS = """
body{font-family:"IPAexGothic","Noto Sans CJK JP","Hiragino Sans",sans-serif;max-width:46rem;margin:0 auto;
padding:1rem;line-height:1.7;color:#1a1a1a;background:#fff}
h1{font-size:1.6rem}h2{font-size:1.3rem;border-bottom:2px solid #0072B2;margin-top:2.5rem}
h3{font-size:1.1rem;margin-top:2rem}table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border:1px solid #bbb;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#eef3f8;white-space:nowrap}td.n{text-align:right;white-space:nowrap}img{max-width:100%;height:auto}
a{color:#005a8e}.note{color:#444}td{overflow-wrap:anywhere}.note{font-size:.85em}
"""


def _mistake_rows(ranked: list[Mistake], names: bool) -> str:
    rows = []
    for i, m in enumerate(ranked, 1):
        where = (f'<a href="{html.escape(m.section[1])}">{html.escape(m.section[0])}</a>'
                 if m.section else "―")
        who = f"<br><span class=\"note\">{html.escape('、'.join(sorted(m.students)))}</span>" if names else ""
        name = f"間違い {i}<br><code>{html.escape(m.key)}</code>" if m.key else "認識されなかった失敗"
        rows.append(f"<tr><td>{name}</td>"
                    f"<td class=\"n\">{len(m.students)} 人</td><td>{html.escape(m.hint)}{who}</td>"
                    f"<td>{where}</td></tr>")
    return "\n".join(rows)


def render(exercises: list[Exercise], flags: list[Flag], counted: int, names: bool = False) -> str:
    """The report's HTML page."""
    out = ['<!DOCTYPE html>', '<html lang="ja"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>クラスの採点レポート</title>", f"<style>{CSS}</style></head><body><main>",
           "<h1>クラスの採点レポート:どこでつまずいたか</h1>",
           f"<p>数えた学生 {counted} 人(下の「確かめてほしい提出物」は数えていません)。"
           "練習問題ごとに、満点・部分点・0 点の人数と、答え合わせが見分けた間違いを多い順に並べます。"
           "「見直す節」は、その間違いのヒントが学生に読み直すよう勧めている本の節です。"
           + ("" if names else "学生の名前は出していません(<code>--names</code> で出せます)。") + "</p>"]
    top = sorted(((m, ex) for ex in exercises for m in ex.mistakes.values() if m.key),
                 key=lambda p: (-len(p[0].students), p[1].chapter, p[1].grade_id, p[0].key))[:10]
    if top:
        out.append("<h2>クラス全体で多かった間違い</h2><div class=\"wrap\"><table>"
                   "<caption>人数の多い順(上位 10 個)</caption><thead><tr><th scope=\"col\">練習問題</th>"
                   "<th scope=\"col\">人数</th><th scope=\"col\">ヒント</th></tr></thead><tbody>")
        out += [f'<tr><td><a href="#{ex.chapter}-{ex.grade_id}">{ex.grade_id}</a><br><span class="note">'
                f'{html.escape(ex.chapter)}</span></td><td class="n">{len(m.students)} 人</td>'
                f"<td>{html.escape(m.hint)}</td></tr>" for m, ex in top]
        out.append("</tbody></table></div>")
    for chapter in dict.fromkeys(ex.chapter for ex in exercises):
        out.append(f"<h2>{html.escape(chapter)}</h2>")
        for ex in (e for e in exercises if e.chapter == chapter):
            src, alt = _chart(ex)
            c = ex.counts
            anchor = f"{ex.chapter}-{ex.grade_id}"
            title = f"{html.escape(ex.title)} " if ex.title else ""
            out.append(f'<section aria-labelledby="{anchor}"><h3 id="{anchor}">'
                       f"{title}<code>{ex.grade_id}</code></h3>"
                       f"<p>{ex.points:g} 点。満点 {c['full']} 人、部分点 {c['partial']} 人、0 点 {c['none']} 人"
                       + (f"(うち未回答 {c['unanswered']} 人。未回答は間違いに数えません)" if c["unanswered"] else "")
                       + f'。</p><img src="{src}" alt="{html.escape(alt)}" width="450">')
            ranked = ex.ranked()
            if ranked:
                out.append('<div class="wrap"><table><caption>間違いと、見直す節(多い順)</caption><thead><tr>'
                           '<th scope="col">間違い</th><th scope="col">人数</th><th scope="col">ヒント</th>'
                           f'<th scope="col">見直す節</th></tr></thead><tbody>{_mistake_rows(ranked, names)}'
                           "</tbody></table></div>")
            else:
                out.append("<p>間違いはありませんでした。</p>")
            out.append("</section>")
    out.append("<h2>確かめてほしい提出物</h2>")
    if flags:
        out.append('<p>書き換えの疑い・採点できなかったもの・白紙・未採点の提出物です。'
                   '0 点か未採点で、上の人数には入っていません。</p><div class="wrap"><table><thead><tr>'
                   + '<th scope="col">種類と章</th><th scope="col">理由</th></tr></thead><tbody>')
        for f in sorted(flags, key=lambda f: (f.chapter, f.kind, f.student)):
            reason = f.reason if names else f.reason.replace(f.student, "(学生)")
            who = f"<br>{html.escape(f.student)}" if names else ""
            out.append(f'<tr><td>{f.kind}<br><span class="note">{html.escape(f.chapter)}</span>{who}</td>'
                       f"<td>{html.escape(reason)}</td></tr>")
        out.append("</tbody></table></div>")
    else:
        out.append("<p>ありません。</p>")
    out.append("</main></body></html>")
    return "\n".join(out)


def write_class_report(root: str | Path = "classroom", *, names: bool = False, book: Path = BOOK_HTML,
                       log: Log = print) -> Path:
    """reports/class_report.html and reports/class_report.csv; returns the HTML's path."""
    root = Path(root).resolve()
    course(root)  # fails first, in Japanese, if this is not a course folder
    exercises, flags, counted = tally(root, book)
    folder = root / REPORT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    page = folder / "class_report.html"
    page.write_text(render(exercises, flags, counted, names), encoding="utf-8")
    with open(folder / "class_report.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["chapter", "exercise", "kind", "mistake", "students", "hint", "section", "link",
                         *(["names"] if names else [])])
        for ex in exercises:
            for kind in (*KINDS, "unanswered"):
                writer.writerow([ex.chapter, ex.grade_id, kind, "", ex.counts[kind], "", "", "",
                                 *([""] if names else [])])
            for m in ex.ranked():
                writer.writerow([ex.chapter, ex.grade_id, "mistake" if m.key else "unrecognised", m.key,
                                 len(m.students), m.hint, *(m.section or ("", "")),
                                 *([" ".join(sorted(m.students))] if names else [])])
        for fl in flags:
            reason = fl.reason if names else fl.reason.replace(fl.student, "(学生)")
            writer.writerow([fl.chapter, "", "flagged", fl.kind, 1, reason, "", "",
                             *([fl.student] if names else [])])
    log(f"クラスの採点レポートを {page}(表は {folder / 'class_report.csv'})に書きました。")
    return page

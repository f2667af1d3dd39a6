"""No hint hands over the solution (issue 26): a hint names the mistake and where to look; the
code that mends it, and the rule a prediction asks for, are the learner's to find.

A chapter's hints are the strings of its check module and of `checks/_base/` (docstrings left
out); its solution is the code between `### BEGIN SOLUTION` and `### END SOLUTION` of its
exercises, cut into fragments (`fragments`). No hint may contain one of them. A hint to a wrong
prediction may not say the words of the rule the question asks for (`PREDICTIONS`).
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import chapters
import jupytext
import pytest
from nbgrader.utils import is_solution

from helpers import checks
from helpers.checks._base import CheckFailed

CHECKS = Path(checks.__file__).parent
CHAPTERS = chapters.chapters()


def solution_code(source: Path) -> str:
    """The code of every exercise's solution in a chapter, its BEGIN/END SOLUTION lines' insides."""
    cells = [c.source for c in jupytext.read(source).cells if c.cell_type == "code" and is_solution(c)]
    found = [re.search(r"### BEGIN SOLUTION\n(.*?)\n\s*### END SOLUTION", c, re.S) for c in cells]
    return "\n".join(textwrap.dedent(f.group(1)) for f in found if f)


def squeeze(text: str) -> str:
    """Text with no white space, and `axis=-1` read as `axis=1` (every table here is 2-D)."""
    return re.sub(r"\s+", "", text).replace("axis=-1", "axis=1")


def fragments(code: str) -> set[str]:
    """The pieces of a solution that a hint must not write: every sub-expression with an operator,
    a call or an index (`Q @ K.T`, `np.exp(scores)`, `X[i, t]`, but not a lone `Q`), and the
    keywords that close a call, from its "(" or "," (`(axis=1, keepdims=True)`, `, k=1)`: the fix,
    whatever the array is called)."""
    found = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.BinOp, ast.BoolOp, ast.UnaryOp, ast.Compare, ast.Call, ast.Subscript)):
            found.add(squeeze(ast.unparse(node)))
        if isinstance(node, ast.Call) and node.keywords:
            opening = "," if node.args else "("
            found.add(squeeze(opening + ", ".join(ast.unparse(k) for k in node.keywords) + ")"))
    return found


def hint_texts(module: Path) -> list[str]:
    """Every string a check module can show: its constants (an f-string's constant parts), not its
    docstrings."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


BASE_HINTS = [text for module in sorted((CHECKS / "_base").glob("*.py")) for text in hint_texts(module)]


def test_fragments_are_the_solutions_pieces_not_its_names():
    code = fragments("d_k = Q.shape[1]\nw = helpers.softmax(Q @ K.T / np.sqrt(d_k), axis=-1)\n"
                     "return w @ V, X.T @ dQ")
    assert {"Q@K.T", "np.sqrt(d_k)", "Q.shape[1]", ",axis=1)", "w@V", "X.T@dQ"} <= code
    assert not {"Q", "K.T", "d_k"} & code
    assert "(axis=1,keepdims=True)" in fragments("e.sum(axis=-1, keepdims=True)")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.slug for c in CHAPTERS])
def test_no_hint_writes_code_of_the_solution(chapter):
    code = fragments(solution_code(chapter.source))
    assert code, f"{chapter.slug}: 解答のコードが見つかりません"
    hints = hint_texts(CHECKS / f"ch{chapter.slug}.py") + BASE_HINTS
    found = sorted({(piece, hint) for hint in hints for piece in code if piece in squeeze(hint)})
    assert not found, f"{chapter.slug}: {len(found)} 件\n" + "\n".join(f"{p!r} in {h!r}" for p, h in found)


#: Each prediction, its wrong answers (the check's arguments), and words of the rule it asks for
#: that no hint to a wrong answer may say (the answer, its reason, or a tie broken).
PREDICTIONS = {
    "matmul_shape": (checks.check_matmul_shape_prediction, [("(1, 2)",), ("(2, 3)",), ("(3, 1)",), ("エラー",)],
                     ["(1, 3)", "1×3", "内側", "外側", "逆"]),
    "pudding": (checks.check_pudding_prediction, [("プリン",), ("カレー",), ("キムチ",), ("照り焼き",)],
                ["ケーキ", "長いほど", "長さも効く", "もっと長い", "2 倍"]),
    "temperature": (checks.check_temperature_prediction,
                    [("平均", "平均"), ("ゼロ", "平均"), ("変わらない", "平均"),
                     ("一冊", "一冊"), ("一冊", "ゼロ"), ("一冊", "変わらない")],
                    ["一冊", "平均", "集中", "均等", "1/n"]),
    "party_symmetry": (checks.check_party_symmetry_prediction, [("対称になる",), ("人による",)],
                       ["対称にならない", "非対称", "合計が違", "分母が違", "割る数が違", "そろっていない"]),
    "q_shape": (checks.check_q_shape_prediction, [("(3, 5)",), ("(5, 2)",), ("(2, 3)",), ("(1, 3)",)],
                ["(5, 3)", "5×3", "逆"]),
    "order": (checks.check_order_prediction, [("変わる",), ("ときどき変わる",)],
              ["変わらない", "同じ数", "同じ行列", "しか使", "使いません"]),
    "identical_keys": (checks.check_identical_keys_prediction, [("自分",), ("先頭",), ("問い次第",)],
                       ["均等", "1/n", "同じ重み", "平均", "同点", "同じ得点", "argmax", "区別がつきません"]),
    "learning_rate": (checks.check_learning_rate_prediction, [("速くなる",), ("変わらない",)],
                      ["壊れ", "発散", "爆発", "飛び越え", "谷底"]),
}


@pytest.mark.parametrize("name", PREDICTIONS)
def test_no_hint_to_a_wrong_prediction_states_the_rule(name):
    check, wrong_answers, rule = PREDICTIONS[name]
    said = []
    for answer in wrong_answers:
        with pytest.raises(CheckFailed) as info:
            check(*answer)
        said += [(answer, word, str(info.value)) for word in rule if word in str(info.value)]
    assert not said, f"{name}: " + "\n".join(f"{a} → {w!r}: {text}" for a, w, text in said)


def plain_heading(line: str) -> str:
    """A Markdown heading as a learner reads it on the page: `## なぜ $\\sqrt{d_k}$ で割るのか`
    is 「なぜ √d_k で割るのか」, `$W$` is W."""
    text = line.lstrip("#").strip()
    text = re.sub(r"\\sqrt\{([^}]*)\}", r"√\1", text).replace("^\\top", "ᵀ").replace("\\", "")
    return re.sub(r"[${}]", "", text)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.slug for c in CHAPTERS])
def test_every_section_a_hint_points_to_is_a_heading_of_its_chapter(chapter):
    """A hint says where to look (「…」の節, 「…」を見直し); that place must exist, by its name."""
    headings = [plain_heading(line) for line in chapter.source.read_text(encoding="utf-8").splitlines()
                if line.startswith("## ") or line.startswith("### ")]
    hints = hint_texts(CHECKS / f"ch{chapter.slug}.py") + BASE_HINTS
    named = {m for hint in hints for m in re.findall(r"「([^「」{}]+)」(?:の節|を見直)", hint)}
    missing = sorted(m for m in named if not any(m in h for h in headings))
    assert not missing, f"{chapter.slug}: 見出しにない節 {missing}"

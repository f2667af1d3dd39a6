"""The course folder's nbgrader_config.py and the students' header notebook, written from templates."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

COURSE_ID = "qkv"
#: Seconds one cell may run while autograding; an infinite loop is interrupted after this.
DEFAULT_TIMEOUT = 60
CODE_STUB = "# ここに答えを書きます\nraise NotImplementedError()"
TIMEOUT_MESSAGE = "このセルは {timeout} 秒たっても終わらなかったので、採点のときに止めました(この問題は 0 点)。"
TIMEOUT_ADVICE = "終わらないループ(while True など)がないか確かめましょう。"

CONFIG_TEMPLATE = '''\
# nbgrader の設定:授業「Q・K・V はどこから来るのか」のコースフォルダ。
# `python -m qkv_classroom build`(make assignments)が毎回書き直します。
# 自分の設定(Exchange.root など)は、隣の nbgrader_config_local.py に書いてください。
import os

c = get_config()  # noqa: F821
_here = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.root = _here

# 解答欄(BEGIN/END SOLUTION の間)を消したあとに残す文。
c.ClearSolutions.code_stub = {{"python": {code_stub!r}}}
# 配布版の先頭に「課題版の使い方」を付ける。
c.IncludeHeaderFooter.header = os.path.join(_here, "header.ipynb")

# 採点のとき、一つのセルがこの秒数を超えたら止めて(0 点として)次へ進む。無限ループ対策。
c.ExecutePreprocessor.timeout = {timeout}
# 採点用カーネルの起動時の警告(TCP で通信している、など)を、学生ごとに端末へ出さない。
c.Execute.extra_arguments = ["--IPKernelApp.log_level=ERROR"]
# 学生が消してしまったテストセルも、採点のときに元に戻す。
c.OverwriteCells.add_missing_cells = True
c.OverwriteCells.missing_cell_notification = (
    "このセル(id:{{cell_id}})は提出物から消えていたので、採点のときに元に戻しました。\\n"
)
# フィードバックには、隠しテストのコードも、それが分かるトレースバックも載せない。
# 答え合わせの長い 1 行は、枠の中で折り返す(FeedbackStyle)。
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "qkv_classroom.FeedbackWithoutHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "qkv_classroom.FeedbackStyle",
]
# フィードバックのページは外から何も読み込まない:数式は MathML で書き出し(ブラウザがそのまま描く)、
# nbgrader のテンプレートがネットワーク(CDN)から読み込む MathJax は外す。
c.GenerateFeedback.exporter_class = "qkv_classroom.FeedbackExporter"

if os.path.exists(os.path.join(_here, "nbgrader_config_local.py")):
    load_subconfig("nbgrader_config_local.py")  # noqa: F821

# 止めたときのメッセージには、実際に効いている秒数を書く(上の自分の設定で変えた場合も)。
_timeout = c.Execute.timeout if "timeout" in c.Execute else c.ExecutePreprocessor.timeout
_message = {timeout_message!r}.format(timeout=_timeout)
c.Execute.error_on_timeout = {{
    "ename": "CellTimeoutError",
    "evalue": _message + {timeout_advice!r},
    "traceback": ["CellTimeoutError: " + _message, {timeout_advice!r}],
}}
'''

HEADER_TEXT = """\
> **課題版の使い方**(この版は授業で配られたものです)
>
> - `# ここに答えを書きます` と `raise NotImplementedError()` の 2 行があるセルが、あなたの解答欄です。\
`raise NotImplementedError()` の行を消して、答えを書きます。関数の 1 行目(`def ...`)は残してください。
> - 解答欄のすぐ下の、編集できないセルが答え合わせです。実行すると、正しければ「✓ 正解です。」が、\
違っていれば何がおかしいかのヒントが出ます。
> - 本文にある「解答例は次のセルに隠してあります」「最後の行の `#` を外す」という案内は、自習用の版の\
ためのものです。この版では、解答欄に自分で書いて、その下のセルで確かめます。
> - 提出の前に、メニューの Kernel → Restart Kernel and Run All Cells で、上から順にすべて動くことを\
確かめてください。採点も上から順に実行します。一つのセルが {timeout} 秒を超えると、そこで止められます。
"""


def write_config(root: str | Path, *, course_id: str = COURSE_ID,
                 timeout: int = DEFAULT_TIMEOUT) -> Path:
    """Write `root/nbgrader_config.py` and the students' header notebook; return the config path."""
    if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
        raise ValueError(f"timeout は正の整数(秒)で指定してください。{timeout!r} が来ました。")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", course_id):
        raise ValueError(f"course_id は英数字・_・- だけで書いてください。{course_id!r} が来ました。")
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    header = nbformat.v4.new_notebook()
    header.cells.append(nbformat.v4.new_markdown_cell(HEADER_TEXT.format(timeout=timeout),
                                                      id="classroom-header"))  # same on rebuild
    nbformat.write(header, root / "header.ipynb")
    config = root / "nbgrader_config.py"
    config.write_text(
        CONFIG_TEMPLATE.format(
            course_id=course_id, code_stub=CODE_STUB, timeout=timeout,
            timeout_message=TIMEOUT_MESSAGE, timeout_advice=TIMEOUT_ADVICE,
        ),
        encoding="utf-8",
    )
    return config


"""nbgrader settings shared by the class hub's students, its teacher, and the teacher's course folder.

Each `nbgrader_config.py` of the recipe (deploy/hub/jupyter/<role>/, and the course folder's
`nbgrader_config_local.py` written by `python -m qkv_hub course`) is two lines that call
`configure_nbgrader`, so the exchange's place, the course id, the size limit and this course's
exchange classes are written once, here.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from qkv_classroom import COURSE_ID

#: Where the exchange lives unless the hub says otherwise (the spawner sets ENV_EXCHANGE).
DEFAULT_EXCHANGE = "/srv/nbgrader/exchange"
ENV_EXCHANGE = "QKV_EXCHANGE_ROOT"
#: The teacher's course folder (made by `python -m qkv_hub course`); default ~/qkv-course.
ENV_COURSE_DIR = "QKV_COURSE_DIR"
COURSE_DIR_NAME = "qkv-course"
#: A submitted file may be at most this large (kB, nbgrader's unit). A chapter with all its figures
#: is under 1 MB; a notebook over the limit is refused at submission (see exchange.CheckedSubmit).
MAX_FILE_KB = 10_000

ROLES = ("student", "teacher")
#: "0" where every server runs as one uid (a cluster's jovyan): collect cannot check owners there.
ENV_CHECK_OWNER = "QKV_EXCHANGE_CHECK_OWNER"


def course_dir(home: str | None = None) -> str:
    """The teacher's course folder: $QKV_COURSE_DIR, else ~/qkv-course."""
    if os.environ.get(ENV_COURSE_DIR):
        return os.environ[ENV_COURSE_DIR]
    return os.path.join(home or os.path.expanduser("~"), COURSE_DIR_NAME)


def configure_nbgrader(c, role: str, *, exchange_root: str | None = None,
                       load_subconfig: Callable[[str], None] | None = None) -> None:
    """Fill the nbgrader config `c` for `role` ("student" or "teacher").

    The teacher's server also reads the course folder's own config (its `nbgrader_config.py`,
    which reads `nbgrader_config_local.py`), so the formgrader and the command line agree.
    """
    if role not in ROLES:
        raise ValueError(f"role は {ROLES} のどれかです。{role!r} が来ました。")
    c.Exchange.root = exchange_root or os.environ.get(ENV_EXCHANGE, DEFAULT_EXCHANGE)
    c.CourseDirectory.course_id = COURSE_ID
    c.CourseDirectory.max_file_size = MAX_FILE_KB
    c.ExchangeFactory.submit = "qkv_hub.exchange.CheckedSubmit"
    c.ExchangeFactory.collect = "qkv_hub.exchange.OwnerCheckedCollect"
    c.ExchangeFactory.release_feedback = "qkv_hub.exchange.PrivateReleaseFeedback"
    if os.environ.get(ENV_CHECK_OWNER, "1") == "0":
        c.ExchangeCollect.check_owner = False
    if role == "teacher" and load_subconfig is not None:
        folder = course_dir()
        c.CourseDirectory.root = folder
        if os.path.exists(os.path.join(folder, "nbgrader_config.py")):
            load_subconfig(os.path.join(folder, "nbgrader_config.py"))

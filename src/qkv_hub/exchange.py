"""nbgrader's file-system exchange, with the three gaps a shared class machine must close.

nbgrader's default exchange keeps students apart by unguessable names: the inbound folder cannot
be listed, but a submission, once its name is known, is readable by everyone (files 0644, folder
0777); a file over `CourseDirectory.max_file_size` is silently left out of a submission; and
`collect` only warns when a submission claims a student id that is not its owner's, then collects
it anyway. The classes here, chosen by `qkv_hub.config.configure_nbgrader`, change exactly that:

- `CheckedSubmit` refuses a submission with a file over the size limit or a notebook that is not
  a valid notebook (a Japanese message; nothing is written to the exchange, the student's own file
  stays where it is), and writes the submission readable by the teachers' group only;
- `OwnerCheckedCollect` collects, for each student, the newest submission that this student's
  own Unix account wrote, and reports any other as an impersonation (nothing is deleted);
- `PrivateReleaseFeedback` makes each released feedback file readable by its student's own group
  only (the teacher account is a member of every student's group; see `qkv_hub.setup`).

The exchange folders themselves are made by `qkv_hub.setup.make_exchange` (as root): the inbound
folder belongs to the teachers' group and has the set-group-id and sticky bits, so what a student
writes there belongs to that group and no student can remove another's entry.
"""

from __future__ import annotations

import datetime
import fnmatch
import glob
import grp
import os
import pwd
import re
import secrets
import shutil
from collections import defaultdict

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.exchange.default.submit import ExchangeSubmit
from nbgrader.utils import ignore_patterns, notebook_hash, parse_utc

#: A submission's files and folders: the owner (the student) and the teachers' group only.
SUBMISSION_FILE_MODE = 0o640
SUBMISSION_DIR_MODE = 0o750
#: The submission's top folder: the teachers' group may also delete what it collected.
SUBMISSION_TOP_MODE = 0o770
FEEDBACK_FILE_MODE = 0o640


def _mb(size: float) -> str:
    return f"{size / 1e6:.1f}" if size >= 100_000 else f"{size / 1e6:.2g}"


def submission_problems(folder: str, max_file_kb: int, ignore: list[str] | None = None) -> list[str]:
    """What would make the submission in `folder` unsafe to hand in, in Japanese (empty: none).

    A file larger than `max_file_kb` kilobytes (nbgrader would silently leave it out), or a
    `.ipynb` that is not a readable, valid notebook.
    """
    def ignored(name: str) -> bool:
        return any(fnmatch.fnmatch(name, pattern) for pattern in ignore or ())

    problems = []
    limit = 1000 * max_file_kb
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not ignored(d))
        for name in sorted(filenames):
            if ignored(name):
                continue
            path = os.path.join(dirpath, name)
            shown = os.path.relpath(path, folder)
            size = os.path.getsize(path)
            if size > limit:
                problems.append(
                    f"{shown} は {_mb(size)} MB あり、提出できる大きさ(1 ファイル "
                    f"{limit / 1e6:g} MB まで)を超えています。大きな出力(たくさんの画像や長い"
                    "表示)を Edit → Clear Outputs of All Cells で消してから、もう一度提出してください。")
                continue
            if name.endswith(".ipynb"):
                try:
                    nb = nbformat.read(path, as_version=4)
                    nbformat.validate(nb)
                except Exception as err:  # noqa: BLE001 - any failure means: not a notebook
                    first = str(err).strip().splitlines()[0][:200] if str(err).strip() else type(err).__name__
                    problems.append(
                        f"{shown} はノートブックとして読めません({first})。JupyterLab で開けるか"
                        "確かめ、壊れていたら配布版を受け取り直して答えを写してください。")
    return problems


class CheckedSubmit(ExchangeSubmit):
    """Submit, refusing oversized or broken files, and readable by the teachers' group only."""

    def copy_files(self):
        problems = submission_problems(self.src_path, self.coursedir.max_file_size,
                                       self.coursedir.ignore)
        if problems:
            self.fail("提出できませんでした(何も提出されていません。手元のファイルはそのままです)。\n"
                      + "\n".join(f"- {p}" for p in problems))
        self.init_release()
        self.check_filename_diff()
        submission_secret = secrets.token_hex(64)
        dest_path = os.path.join(self.inbound_path, self.assignment_filename)
        if self.add_random_string:
            cache_path = os.path.join(self.cache_path, self.assignment_filename.rsplit("+", 1)[0])
        else:
            cache_path = os.path.join(self.cache_path, self.assignment_filename)
        self.log.info("Source: %s", self.src_path)
        self.log.info("Destination: %s", dest_path)

        # The folder is made first, private, inside the set-group-id inbound folder: it and all
        # that is written into it (before copytree's final copystat) belong to the teachers' group.
        os.mkdir(dest_path, 0o700)
        for name, text in (("timestamp.txt", self.timestamp), ("submission_secret.txt", submission_secret)):
            with open(os.path.join(dest_path, name), "w") as fh:
                fh.write(text)
        shutil.copytree(self.src_path, dest_path, dirs_exist_ok=True, copy_function=shutil.copyfile,
                        ignore=ignore_patterns(exclude=self.coursedir.ignore,
                                               include=self.coursedir.include,
                                               max_file_size=self.coursedir.max_file_size,
                                               log=self.log))
        for dirpath, _, filenames in os.walk(dest_path):
            for name in filenames:
                os.chmod(os.path.join(dirpath, name), SUBMISSION_FILE_MODE)
            os.chmod(dirpath, SUBMISSION_DIR_MODE)
        os.chmod(dest_path, SUBMISSION_TOP_MODE)

        # The student's own copy, from which fetch_feedback finds the feedback's name.
        os.makedirs(self.cache_path, exist_ok=True)
        self.do_copy(self.src_path, cache_path)
        for name, text in (("timestamp.txt", self.timestamp), ("submission_secret.txt", submission_secret)):
            with open(os.path.join(cache_path, name), "w") as fh:
                fh.write(text)
        self.log.info("Submitted as: %s %s %s", self.coursedir.course_id,
                      self.coursedir.assignment_id, self.timestamp)


def _owner(path: str) -> str:
    try:
        return pwd.getpwuid(os.stat(path).st_uid).pw_name
    except KeyError:
        return f"uid {os.stat(path).st_uid}"


class OwnerCheckedCollect(ExchangeCollect):
    """Collect each student's newest submission that their own account wrote.

    A submission whose name claims another student (its owner differs from the id in its name)
    is reported and left where it is; the claimed student's own submissions are still collected.
    With `check_owner = False` (e.g. a cluster where every server runs as one uid) this is
    nbgrader's own collect.
    """

    #: What the last run left out: (path, claimed student, real owner).
    impersonations: list[tuple[str, str, str]]

    def init_src(self):
        self.impersonations = []
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not os.access(self.inbound_path, os.R_OK | os.X_OK):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        student_id = self.coursedir.student_id if self.coursedir.student_id else "*"
        pattern = os.path.join(self.inbound_path, f"{student_id}+{self.coursedir.assignment_id}+*")
        records = []
        for path in glob.glob(pattern):
            record = self._path_to_record(path)
            if self.check_owner:
                owner = _owner(path)
                if owner != record["username"]:
                    self.impersonations.append((path, record["username"], owner))
                    self.log.warning(
                        "集めません: %s は %s の提出を名乗っていますが、書いたのは %s です"
                        "(なりすましの疑い。ファイルは消さずに残してあります)。",
                        path, record["username"], owner)
                    continue
            records.append(record)
        by_student = defaultdict(list)
        for record in records:
            by_student[record["username"]].append(record)
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                self.duedate = gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        self.src_records = []
        for student_records in by_student.values():
            newest_first = self._sort_by_timestamp(student_records)
            if self.duedate is not None and self.before_duedate:
                on_time = [r for r in newest_first if r["timestamp"] <= self.duedate]
                newest_first = on_time or newest_first
            self.src_records.append(newest_first[0])

    def _path_to_record(self, path):
        record = super()._path_to_record(path)
        if not isinstance(record["timestamp"], datetime.datetime):  # pragma: no cover - defensive
            record["timestamp"] = parse_utc(record["timestamp"])
        return record


class PrivateReleaseFeedback(ExchangeReleaseFeedback):
    """Release feedback readable by its student's own group only (plus the teacher who wrote it).

    nbgrader names each feedback file after a secret that only the submitting student holds, in
    a folder nobody can list; this also takes the read bit for others away. If the teacher's
    account is not a member of the student's group the file keeps nbgrader's own mode, and a
    warning says so.
    """

    def copy_files(self):
        exclude = set(self.coursedir.student_id_exclude.split(",")) if self.coursedir.student_id_exclude else set()
        for html_file in sorted(glob.glob(os.path.join(self.src_path, "*.html"))):
            regexp = re.escape(os.path.sep).join([
                self.coursedir.format_path(self.coursedir.feedback_directory, "(?P<student_id>.*)",
                                           self.coursedir.assignment_id, escape=True),
                "(?P<notebook_id>.*).html",
            ])
            m = re.match(regexp, html_file)
            if m is None:
                self.log.error("Could not match '%s' with regexp '%s'", html_file, regexp)
                continue
            student_id, notebook_id = m.group("student_id"), m.group("notebook_id")
            if student_id in exclude:
                continue
            feedback_dir = os.path.dirname(html_file)
            with open(os.path.join(feedback_dir, "timestamp.txt")) as fh:
                timestamp = fh.read()
            with open(os.path.join(feedback_dir, "submission_secret.txt")) as fh:
                submission_secret = fh.read()
            checksum = notebook_hash(secret=submission_secret, notebook_id=notebook_id)
            tmp = os.path.join(self.dest_path, f"{checksum}-tmp.html")
            self.log.info("Releasing feedback for student '%s' on assignment '%s/%s/%s' (%s)",
                          student_id, self.coursedir.course_id, self.coursedir.assignment_id,
                          notebook_id, timestamp)
            shutil.copyfile(html_file, tmp)
            self._make_private(tmp, student_id)
            dest = os.path.join(self.dest_path, f"{checksum}.html")
            os.replace(tmp, dest)
            self.log.info("Feedback released to: %s", dest)

    def _make_private(self, path: str, student_id: str) -> None:
        try:
            gid = grp.getgrnam(student_id).gr_gid
            os.chown(path, -1, gid)
        except (KeyError, PermissionError) as err:
            self.log.warning(
                "%s のフィードバックを本人のグループだけが読めるようにできませんでした(%s)。"
                "nbgrader の既定(名前を知っていれば誰でも読める)のままです。", student_id, err)
            os.chmod(path, 0o644)
            return
        os.chmod(path, FEEDBACK_FILE_MODE)

"""The teacher's classroom tools: an nbgrader course folder made from the chapter notebooks.

A package of its own, beside `helpers`, so that a learner's `import helpers` never imports
nbgrader. Run it as ``python -m qkv_classroom`` (see `course` for the commands).
"""

from .course import (
    COURSE_ID,
    DEFAULT_TIMEOUT,
    HIDDEN_TEST_MARKERS,
    READER_ONLY_TAG,
    SOLUTION_MARKERS,
    ClassroomError,
    FeedbackWithoutHiddenTests,
    autograde,
    build,
    chapter_notebooks,
    export,
    feedback,
    has_exercises,
    main,
    marked_regions,
    release_problems,
    scores,
    student_source,
    submission_path,
    write_config,
)

__all__ = [
    "COURSE_ID",
    "DEFAULT_TIMEOUT",
    "HIDDEN_TEST_MARKERS",
    "READER_ONLY_TAG",
    "SOLUTION_MARKERS",
    "ClassroomError",
    "FeedbackWithoutHiddenTests",
    "autograde",
    "build",
    "chapter_notebooks",
    "export",
    "feedback",
    "has_exercises",
    "main",
    "marked_regions",
    "release_problems",
    "scores",
    "student_source",
    "submission_path",
    "write_config",
]

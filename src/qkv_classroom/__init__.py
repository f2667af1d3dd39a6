"""The teacher's classroom tools: an nbgrader course folder made from the chapter notebooks.

A package of its own, beside `helpers`, so that a learner's `import helpers` never imports
nbgrader. Run it as ``python -m qkv_classroom`` (see `course` for the commands).
"""

from . import course
from .course import *  # noqa: F403  (the public names are course's)

__all__ = course.__all__

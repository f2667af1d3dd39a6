# nbgrader for a student's server on the class hub: this course's exchange, fetch and submit only.
from qkv_hub.config import configure_nbgrader

configure_nbgrader(get_config(), role="student")  # noqa: F821

# nbgrader for the teacher's server on the class hub: the course folder and the formgrader.
from qkv_hub.config import configure_nbgrader

configure_nbgrader(get_config(), role="teacher", load_subconfig=load_subconfig)  # noqa: F821

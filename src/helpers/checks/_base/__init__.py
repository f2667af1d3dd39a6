"""What every chapter's checks share, one job per module; a chapter imports it as one name.

`from . import _base`, then `_base.fail(...)`, `_base.call_learner(...)`: what is shared is named
where it is used, and this file only re-exports. The modules, in the order a check uses them:

- `verdicts`: the ✓ line and the ✗ hint (`passed`, `fail`, `CheckFailed`);
- `credit`: nbgrader's partial credit (`@exercise`, `score`);
- `hidden`: a hidden test's inputs (`hidden_cases`);
- `learner`: calling the learner's function and reading what it returns (`call_learner`, `as_float_array`);
- `numpy_errors`: numpy's English shape errors said in Japanese (`crash_in_japanese`);
- `mistakes`: a wrong result matched to its typical mistake (`same`, `fail_on_typical_mistake`);
- `attention_mixups`: an attention function's (output, weights) and their mix-ups;
- `answers`: a typed answer read by one rule (`normalise_answer`, `shape_answer`, `check_choice`),
  and what a prediction accepts (`Prediction`, `@asks`).
"""

from .answers import (
    READINGS,
    TRAILING,
    Prediction,
    asks,
    canonical_text,
    check_choice,
    check_shape_choice,
    normalise_answer,
    read_choice,
    shape_answer,
)
from .attention_mixups import attention_pair, check_attention_output, wrong_attention_weights
from .credit import VERDICT_MIME, exercise, score
from .hidden import case_kinds, hidden_cases
from .learner import (
    as_float_array,
    as_number,
    call_learner,
    counting_loop_turns,
    counting_products,
    real_array,
    three_arrays,
)
from .mistakes import (
    KEEPDIMS_HINTS,
    fail_on_typical_mistake,
    fail_on_wrong_values,
    fail_unless_right,
    first_difference,
    keepdims_slips,
    rounded_to,
    same,
    typical_mistake,
)
from .numpy_errors import broadcast_shapes, crash_in_japanese, matmul_sizes
from .verdicts import CheckFailed, fail, passed

__all__ = [
    "CheckFailed", "passed", "fail",
    "exercise", "score", "VERDICT_MIME",
    "hidden_cases", "case_kinds",
    "call_learner", "counting_products", "real_array", "counting_loop_turns", "as_float_array", "as_number", "three_arrays",
    "matmul_sizes", "broadcast_shapes", "crash_in_japanese",
    "same", "typical_mistake", "fail_on_typical_mistake", "first_difference", "rounded_to",
    "fail_on_wrong_values", "fail_unless_right", "KEEPDIMS_HINTS", "keepdims_slips",
    "attention_pair", "check_attention_output", "wrong_attention_weights",
    "canonical_text", "normalise_answer", "read_choice", "check_choice", "TRAILING", "READINGS",
    "shape_answer", "check_shape_choice", "Prediction", "asks",
]

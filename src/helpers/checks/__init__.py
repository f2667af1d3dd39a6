"""Exercise checks, shared by self-learners and by nbgrader's autograder.

This module only re-exports: each chapter's checks live in its `chNN_<notebook>` module, and
`_base` holds what they share (the ✓/✗ lines, calling the learner's function, matching a wrong
answer to its typical mistake, partial credit). Notebooks call `helpers.checks.check_*`; the
classroom's grade cells end with `helpers.checks.score(points)` (see `_base`). The teacher's tools
read the checks' verdict records, outputs of the mimetype `VERDICT_MIME`.
"""

from ._base import VERDICT_MIME, CheckFailed, check_choice, fail, normalise_answer, passed, score
from .ch00_introduction import (
    FIRST_SOFTMAX_HINTS,
    SCORES_FROM_WEIGHTS_HINTS,
    SCORES_SCALED_HINT,
    check_first_softmax,
    check_matmul_shape_prediction,
    check_scores_from_weights,
)
from .ch01_one_vector import (
    COSINE_TABLE_HINTS,
    COSINE_TABLE_LOOP_NOTE,
    check_cosine,
    check_cosine_table,
    check_pudding_prediction,
)
from .ch02_library_search import (
    SOFT_LOOKUP_HINTS,
    check_soft_lookup,
    check_temperature_prediction,
)
from .ch03_three_roles import (
    PARTY_HINTS,
    RECEIVED_HINTS,
    check_party_symmetry_prediction,
    check_party_weights,
    check_received,
    party_weight_variants,
)
from .ch04_three_matrices import (
    QUESTION_MATRIX,
    UNDO_HINTS,
    check_q_shape_prediction,
    check_question_matrix,
    check_three_faces,
    check_undo_W,
)
from .ch05_all_matmul import (
    IN_TWO_HINTS,
    check_fused_qkv,
    check_matmul_cell,
    check_matmul_in_two,
    check_order_prediction,
)
from .ch06_attention import (
    ATTENTION_HINTS,
    BATCH_HINTS,
    attention_variants,
    check_attention,
    check_batch_attention,
    check_identical_keys_prediction,
)
from .ch07_how_w_learns import (
    GRAD_W_SHARED_HINTS,
    GRADIENT_STEP_HINTS,
    check_grad_W_shared,
    check_gradient_step,
    check_learning_rate_prediction,
    gradient_step_variants,
)
from .ch08_going_further import (
    CAUSAL_HINTS,
    MULTI_HEAD_HINTS,
    PADDING_HINTS,
    check_causal_attention,
    check_multi_head,
    check_padded_attention,
    multi_head_variants,
)

__all__ = [
    "CheckFailed", "passed", "fail", "check_choice", "normalise_answer", "score", "VERDICT_MIME",
    "FIRST_SOFTMAX_HINTS", "check_first_softmax", "check_matmul_shape_prediction",
    "SCORES_FROM_WEIGHTS_HINTS", "SCORES_SCALED_HINT", "check_scores_from_weights",
    "check_cosine", "check_pudding_prediction",
    "COSINE_TABLE_HINTS", "COSINE_TABLE_LOOP_NOTE", "check_cosine_table",
    "SOFT_LOOKUP_HINTS", "check_soft_lookup", "check_temperature_prediction",
    "PARTY_HINTS", "party_weight_variants", "check_party_weights", "check_party_symmetry_prediction",
    "RECEIVED_HINTS", "check_received",
    "QUESTION_MATRIX", "check_three_faces", "check_question_matrix", "check_q_shape_prediction",
    "UNDO_HINTS", "check_undo_W",
    "check_matmul_cell", "check_fused_qkv", "check_order_prediction",
    "IN_TWO_HINTS", "check_matmul_in_two",
    "ATTENTION_HINTS", "attention_variants", "check_attention", "check_identical_keys_prediction",
    "BATCH_HINTS", "check_batch_attention",
    "GRADIENT_STEP_HINTS", "gradient_step_variants", "check_gradient_step",
    "check_learning_rate_prediction",
    "GRAD_W_SHARED_HINTS", "check_grad_W_shared",
    "CAUSAL_HINTS", "MULTI_HEAD_HINTS", "check_causal_attention", "check_multi_head",
    "multi_head_variants",
    "PADDING_HINTS", "check_padded_attention", ]

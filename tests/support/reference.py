"""Plain-numpy reference implementations that unit tests compare the helpers with.

Written once here, independent of `helpers`, so that a helper and its test never share a bug.
Imported by tests as `import reference` (tests/ is on the path through tests/conftest.py).
"""

import numpy as np


def softmax(s, axis=-1):
    """Softmax along `axis`, the max subtracted first so that large scores do not overflow."""
    s = np.asarray(s, dtype=float)
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V):
    """Scaled dot-product attention: `(softmax(Q Kᵀ / √d_k) V, weights)`, one row per question."""
    w = softmax(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w


def cosine(A, B):
    """Cosine similarity of every row of `A` with every row of `B`: `(len(A), len(B))`."""
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    return (A @ B.T) / np.outer(np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1))

"""helpers.checks._base.attention_mixups: an attention function's (output, weights) and their mix-ups."""


import numpy as np
import pytest

from helpers.checks._base import attention_mixups


def _attention_variants(Q, K, V):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return {"right": e / e.sum(axis=1, keepdims=True)}


_MIX_UP_HINTS = {"swapped": "逆です。", "weights_as_output": "重みです。", "bad_output": "出力が違います。"}


def test_wrong_attention_weights_is_none_when_right_and_the_weights_when_wrong():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 5))
    variants = _attention_variants(Q, K, V)
    right = variants["right"]

    def attention(Q, K, V):
        return right @ V, right

    assert attention_mixups.wrong_attention_weights(attention, Q, K, V, "f", variants, _MIX_UP_HINTS) is None
    got = attention_mixups.wrong_attention_weights(lambda Q, K, V: (V[:3] * 0, right * 2), Q, K, V, "f",
                                        variants, _MIX_UP_HINTS)
    assert np.allclose(got, right * 2)
    with pytest.raises(AssertionError, match="逆です"):
        attention_mixups.wrong_attention_weights(lambda Q, K, V: (right, right @ V), Q, K, V, "f",
                                      variants, _MIX_UP_HINTS)
    with pytest.raises(AssertionError, match="出力が違います"):
        attention_mixups.wrong_attention_weights(lambda Q, K, V: (right @ V + 1, right), Q, K, V, "f",
                                      variants, _MIX_UP_HINTS)

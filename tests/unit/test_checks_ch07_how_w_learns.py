"""helpers.checks.ch07_how_w_learns: chapter 07's exercise checks.

The right answer passes; each typical mistake gets its own hint.
"""

import numpy as np
import pytest

from helpers import checks
from helpers.checks import (
    GRADIENT_STEP_HINTS,
    CheckFailed,
    ch07_how_w_learns,
    gradient_step_variants,
)


def summed(X, dQ):
    """dW_Q for b menus stacked on the first axis: the sum of each menu's X_bᵀ dQ_b."""
    return np.einsum("bnd,bnk->dk", X, dQ)


def right_update(W_Q, X, dQ, lr):
    return W_Q - lr * summed(X, dQ)


def test_check_gradient_step_accepts_the_right_answer(capsys):
    checks.check_gradient_step(right_update)
    assert capsys.readouterr().out.startswith("✓ 正解です。")


def test_check_gradient_step_names_an_in_place_update():
    def in_place(W_Q, X, dQ, lr):
        W_Q -= lr * (summed(X, dQ))
        return W_Q

    with pytest.raises(AssertionError, match="W_Q の中身を書き換えて"):
        checks.check_gradient_step(in_place)


@pytest.mark.parametrize("fn, hint", [
    (lambda W, X, dQ, lr: W + lr * summed(X, dQ), "sign"),
    (lambda W, X, dQ, lr: W - summed(X, dQ), "no_lr"),
    (lambda W, X, dQ, lr: W + summed(X, dQ), "sign_no_lr"),
    (lambda W, X, dQ, lr: W - summed(X, dQ) / lr, "by_lr"),
    (lambda W, X, dQ, lr: W - lr * summed(X, dQ).T, "transposed"),
    (lambda W, X, dQ, lr: -lr * summed(X, dQ), "step_only"),
    (lambda W, X, dQ, lr: summed(X, dQ), "step_only"),
    (lambda W, X, dQ, lr: W - lr * summed(X, dQ) / len(X), "averaged"),
    (lambda W, X, dQ, lr: W.copy(), "unchanged"),
    (lambda W, X, dQ, lr: W - lr * np.swapaxes(X, -1, -2) @ dQ, "no_sum"),
    (lambda W, X, dQ, lr: W - lr * X[0].T @ dQ[0], "first_only"),
])
def test_check_gradient_step_names_each_mistake(fn, hint):
    with pytest.raises(AssertionError) as err:
        checks.check_gradient_step(fn)
    assert GRADIENT_STEP_HINTS[hint] in str(err.value)


def test_each_mistake_differs_from_the_right_answer():
    rng = np.random.default_rng(7)
    W, X, dQ = rng.normal(size=(2, 2)), rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 4, 2))
    variants = gradient_step_variants(W, X, dQ, 0.5)
    right = variants.pop("right")
    for name, wrong in variants.items():
        assert not np.allclose(wrong, right), name


@pytest.mark.parametrize("fn", [
    lambda W, X, dQ, lr: W - lr * (X.T * dQ),  # elementwise, not @
    lambda W, X, dQ, lr: W - lr * dQ,          # dQ taken for dW_Q
])
def test_an_elementwise_gradient_step_is_named_as_one(fn):
    with pytest.raises(CheckFailed, match="成分ごとの掛け算") as info:
        checks.check_gradient_step(fn)
    assert "X.T @ dQ" not in str(info.value)  # the shapes lead there; the formula is not given


@pytest.mark.parametrize("fn", [
    lambda W, X, dQ, lr: W - lr * (dQ @ X.T),  # a product, but the wrong one: (n×n)
    lambda W, X, dQ, lr: W - lr * (X @ dQ.T),
])
def test_a_wrong_product_is_met_with_the_shapes_not_the_elementwise_hint(fn):
    with pytest.raises(CheckFailed, match="W_Q と同じ d_model×d_k の形") as info:
        checks.check_gradient_step(fn)
    assert "成分ごとの掛け算" not in str(info.value)


def test_check_gradient_step_other_failures():
    with pytest.raises(AssertionError, match="形を print"):
        checks.check_gradient_step(lambda W, X, dQ, lr: W - lr * X @ dQ)  # shapes do not fit
    with pytest.raises(AssertionError, match="NotImplementedError"):
        def stub(W, X, dQ, lr):
            raise NotImplementedError
        checks.check_gradient_step(stub)
    with pytest.raises(AssertionError, match="数の配列"):
        checks.check_gradient_step(lambda W, X, dQ, lr: "W")
    with pytest.raises(AssertionError, match="同じ shape"):
        checks.check_gradient_step(lambda W, X, dQ, lr: np.zeros(3))
    with pytest.raises(AssertionError, match="1 行め"):
        checks.check_gradient_step(lambda W, X, dQ, lr: W - 0.3 * summed(X, dQ))


def test_check_learning_rate_prediction(capsys):
    checks.check_learning_rate_prediction("壊れる")
    assert capsys.readouterr().out.startswith("✓ 正解です。")
    for wrong, phrase in (("速くなる", "2 倍にすると"), ("変わらない", "2 倍")):
        with pytest.raises(AssertionError, match=phrase):
            checks.check_learning_rate_prediction(wrong)
    with pytest.raises(AssertionError, match="まだ答え"):
        checks.check_learning_rate_prediction("")
    with pytest.raises(AssertionError, match="選択肢"):
        checks.check_learning_rate_prediction("遅くなる")


# ---------------------------------------------------------------- table-driven (issue 11)


def right(W_Q, X, dQ, lr):
    return W_Q - lr * (summed(X, dQ))


def in_place(W_Q, X, dQ, lr):
    W_Q -= lr * (summed(X, dQ))
    return W_Q


def test_right_step_passes(capsys):
    checks.check_gradient_step(right)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("fn, hint", [
    (lambda W, X, dQ, lr: W + lr * (summed(X, dQ)), "勾配を足す向き"),
    (lambda W, X, dQ, lr: W - summed(X, dQ), "学習率 lr を掛け忘れて"),
    (lambda W, X, dQ, lr: W - (summed(X, dQ)) / lr, "学習率で割って"),
    (lambda W, X, dQ, lr: -lr * (summed(X, dQ)), "動かす「量」だけ"),
    (lambda W, X, dQ, lr: W - lr * (summed(X, dQ).T), "エラーで止まりました|転置"),
    (in_place, "W_Q の中身を書き換えて"),
    (lambda W, X, dQ, lr: None, "return を書き忘れて"),
])
def test_each_step_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_gradient_step(fn)


@pytest.mark.parametrize("answer", ["壊れる", "壊れる。", "壊れる　", "発散", "発散する", "爆発する", "爆発"])
def test_learning_rate_prediction_accepts(answer, capsys):
    checks.check_learning_rate_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ("速くなる", "何倍になるでしょう"), ("変わらない", "一歩の大きさそのもの"), ("同じ", "一歩の大きさそのもの"),
    ("止まる", "選択肢にありません"), ("", "まだ答えが"),
])
def test_learning_rate_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_learning_rate_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_gradient_step(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_gradient_step(lambda W, X, dQ, lr: W + lr * (summed(X, dQ)), hidden=True)


@pytest.mark.parametrize("fn", [
    lambda W_Q, X, dQ, lr: W_Q - lr * (summed(X, dQ)) * 1.5,
    lambda W_Q, X, dQ, lr: W_Q + lr * (summed(X, dQ)),
    lambda W_Q, X, dQ, lr: -lr * (summed(X, dQ)),
])
def test_no_hint_spells_out_the_update(fn):
    """The fallback says what was expected and what came; no hint gives the solution's code."""
    with pytest.raises(CheckFailed) as info:
        checks.check_gradient_step(fn)
    message = str(info.value)
    assert "X.T @ dQ" not in message and "swapaxes" not in message and "W_Q - lr * dW_Q" not in message


def test_the_fast_hint_asks_and_does_not_describe_the_divergence():
    with pytest.raises(CheckFailed) as info:
        checks.check_learning_rate_prediction("速くなる")
    assert "もっと高いところに着地" not in str(info.value) and "でしょう" in str(info.value)


def test_an_in_place_step_is_told_to_subtract_and_a_crash_reads_as_one_call():
    def in_place(W_Q, X, dQ, lr):
        W_Q -= lr * summed(X, dQ)
        return W_Q

    with pytest.raises(CheckFailed) as info:
        checks.check_gradient_step(in_place)
    assert "W_Q = W_Q - …" in str(info.value) and "W_Q = W_Q / …" not in str(info.value)

    def typo(W_Q, X, dQ, lr):
        return W_Q - lr * X.T @ dq  # noqa: F821

    with pytest.raises(CheckFailed) as info:
        checks.check_gradient_step(typo)
    assert "で update_W_Q の中で" not in str(info.value)
    assert str(info.value).startswith("✗ update_W_Q(W_Q, X, dQ, lr=0.5) の中で、")



@pytest.mark.parametrize("hidden", [False, True])
def test_the_chapters_two_d_formula_on_menus_crashes_with_a_hint_about_T(hidden):
    """The chapter's dW_Q = Xᵀ dQ copied onto stacked menus: `.T` reverses all three axes, numpy
    refuses the product, and the message names `.T` on a 3-D array without giving the fix."""
    with pytest.raises(CheckFailed) as info:
        checks.check_gradient_step(lambda W, X, dQ, lr: W - lr * X.T @ dQ, hidden=hidden)
    said = str(info.value)
    assert "エラーで止まりました" in said and "3 次元の配列に .T" in said, said
    assert "swapaxes" not in said and "sum" not in said


def test_menus_flattened_into_one_table_pass(capsys):
    """Stacking the menus' rows into one table is the same sum: any right way passes."""
    def flattened(W_Q, X, dQ, lr):
        return W_Q - lr * X.reshape(-1, X.shape[-1]).T @ dQ.reshape(-1, dQ.shape[-1])

    checks.check_gradient_step(flattened)
    assert capsys.readouterr().out.startswith("✓")


# ------------------------------------------------ 練習 3: one W for questions and keys, keys from X_kv


def grad_W_shared_right(X_q, X_kv, W, dS):
    Q, K = X_q @ W, X_kv @ W
    return (X_q.T @ (dS @ K) + X_kv.T @ (dS.T @ Q)) / np.sqrt(W.shape[1])


def test_grad_W_shared_right_is_the_numerical_gradient():
    """The check's "right" is dL/dW of L = Σ S ⊙ dS (so dL/dS = dS), by central differences."""
    rng = np.random.default_rng(0)
    X_q, X_kv, W, dS = (rng.normal(size=s) for s in ((2, 3), (4, 3), (3, 2), (2, 4)))

    def loss(W):
        return np.sum((X_q @ W) @ (X_kv @ W).T / np.sqrt(2) * dS)

    numeric = np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        step = np.zeros_like(W)
        step[idx] = 1e-6
        numeric[idx] = (loss(W + step) - loss(W - step)) / 2e-6
    assert np.allclose(ch07_how_w_learns._grad_W_shared_variants(X_q, X_kv, W, dS)["right"], numeric, atol=1e-6)


def test_check_grad_W_shared_accepts_the_right_answer(capsys):
    checks.check_grad_W_shared(grad_W_shared_right)
    assert "✓" in capsys.readouterr().out
    checks.check_grad_W_shared(grad_W_shared_right, hidden=True)


def _paths(X_q, X_kv, W, dS):
    Q, K = X_q @ W, X_kv @ W
    return X_q.T @ (dS @ K), X_kv.T @ (dS.T @ Q), Q, K


@pytest.mark.parametrize("mistake, fn", [
    ("query_only", lambda X_q, X_kv, W, dS: _paths(X_q, X_kv, W, dS)[0] / np.sqrt(W.shape[1])),
    ("key_only", lambda X_q, X_kv, W, dS: _paths(X_q, X_kv, W, dS)[1] / np.sqrt(W.shape[1])),
    ("averaged", lambda X_q, X_kv, W, dS: grad_W_shared_right(X_q, X_kv, W, dS) / 2),
    ("inputs_swapped", lambda X_q, X_kv, W, dS: (X_kv.T @ (dS @ (X_kv @ W)) + X_q.T @ (dS.T @ (X_q @ W))) / np.sqrt(W.shape[1])),
    ("no_T", lambda X_q, X_kv, W, dS: (_paths(X_q, X_kv, W, dS)[0] + X_kv.T @ (dS @ (X_q @ W))) / np.sqrt(W.shape[1])),
    ("no_sqrt", lambda X_q, X_kv, W, dS: grad_W_shared_right(X_q, X_kv, W, dS) * np.sqrt(W.shape[1])),
    ("by_d", lambda X_q, X_kv, W, dS: grad_W_shared_right(X_q, X_kv, W, dS) / np.sqrt(W.shape[1])),
    ("sign", lambda X_q, X_kv, W, dS: -grad_W_shared_right(X_q, X_kv, W, dS)),
    ("multiplied", lambda X_q, X_kv, W, dS: (lambda a, b, *_: a * b / W.shape[1])(*_paths(X_q, X_kv, W, dS))),
    ("multiplied", lambda X_q, X_kv, W, dS: (lambda a, b, *_: a * b / np.sqrt(W.shape[1]))(*_paths(X_q, X_kv, W, dS))),
    ("roles_swapped", lambda X_q, X_kv, W, dS: grad_W_shared_right(X_kv, X_q, W, dS)),
    ("path_doubled", lambda X_q, X_kv, W, dS: 2 * _paths(X_q, X_kv, W, dS)[0] / np.sqrt(W.shape[1])),
    ("path_doubled", lambda X_q, X_kv, W, dS: 2 * _paths(X_q, X_kv, W, dS)[1] / np.sqrt(W.shape[1])),
])
def test_check_grad_W_shared_names_each_mistake(mistake, fn):
    with pytest.raises(CheckFailed) as info:
        checks.check_grad_W_shared(fn)
    assert info.value.mistake == mistake
    assert checks.GRAD_W_SHARED_HINTS[mistake] in str(info.value)


def test_check_grad_W_shared_hints_never_give_the_line():
    """The hints ask what to check: no hint writes out a product of the answer."""
    for hint in checks.GRAD_W_SHARED_HINTS.values():
        assert "@" not in hint and "dSᵀ Q" not in hint and "X_q.T" not in hint and "X_kv.T" not in hint, hint


def test_check_grad_W_shared_says_the_shape():
    with pytest.raises(CheckFailed) as info:
        checks.check_grad_W_shared(lambda X_q, X_kv, W, dS: grad_W_shared_right(X_q, X_kv, W, dS).T)
    assert info.value.mistake == "shape"

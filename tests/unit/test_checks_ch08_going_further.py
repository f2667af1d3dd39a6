"""Chapter 08's checks: every typical mistake gets its own hint; right answers pass, hidden too."""

import numpy as np
import pytest
from reference import softmax

from helpers import checks
from helpers.checks import CheckFailed
from helpers.checks.ch08_going_further import CAUSAL_HINTS, MULTI_HEAD_HINTS


def _causal(mask_of, after=None, scale=True, order=lambda Q, K: Q @ K.T):
    """A learner's causal attention; `mask_of(n_q, n_k)` is the mask it adds (the queries are the
    last n_q of the n_k words), `after(weights, n_q, n_k)` what it does after the softmax."""
    def fn(Q, K, V):
        (n_q, d_k), n_k = Q.shape, K.shape[0]
        S = order(Q, K) / (np.sqrt(d_k) if scale else 1.0)
        if after is None:
            Z = S + mask_of(n_q, n_k)
            with np.errstate(invalid="ignore"):
                E = np.exp(Z - Z.max(axis=1, keepdims=True))
                w = E / E.sum(axis=1, keepdims=True)
        else:
            w = after(softmax(S), n_q, n_k)
        return w @ V, w
    return fn


def upper(n_q, n_k, k=1):
    """-inf on the keys after each query (k=1), the query i being word n_k − n_q + i."""
    return np.triu(np.full((n_q, n_k), -np.inf), k=k + n_k - n_q)


def lower(n_q, n_k):
    """-inf on the keys before each query: the triangle the other way round."""
    return np.tril(np.full((n_q, n_k), -np.inf), k=n_k - n_q - 1)


RIGHT_CAUSAL = _causal(upper)


@pytest.mark.parametrize("hidden", [False, True])
def test_right_causal_attention_passes(hidden, capsys):
    checks.check_causal_attention(RIGHT_CAUSAL, hidden=hidden)
    out = capsys.readouterr().out
    # the visible check says ✓; the hidden one passes without a word, as in every chapter
    assert out.startswith("✓") if not hidden else out == ""


@pytest.mark.parametrize("fn, hint", [
    (_causal(lambda n_q, n_k: np.zeros((n_q, n_k))), "no_mask"),
    (_causal(lower), "lower"),
    (_causal(lambda n_q, n_k: upper(n_q, n_k, k=0)), "diagonal"),
    (_causal(lambda n_q, n_k: upper(n_q, n_k, k=2)), "mask_shifted"),
    (_causal(upper, after=lambda w, n_q, n_k: w + upper(n_q, n_k)), "mask_after"),
    (_causal(upper, after=lambda w, n_q, n_k: w * (upper(n_q, n_k) == 0)), "zeroed_after"),
    (_causal(upper, scale=False), "no_sqrt"),
    (_causal(upper, order=lambda Q, K: K @ Q.T), "transposed"),
    # the chapter's square mask cut to n_q × n_k: the queries taken as the first words
    (_causal(lambda n_q, n_k: np.triu(np.full((n_q, n_k), -np.inf), k=1 - (n_k - n_q))), "offset_reversed"),
    (_causal(lambda n_q, n_k: np.triu(np.full((n_q, n_k), -1e9), k=1 - (n_k - n_q))), "offset_reversed"),
    (_causal(lambda n_q, n_k: np.triu(np.full((n_q, n_k), -np.inf), k=1)), "top_aligned"),
    (_causal(lambda n_q, n_k: np.triu(np.full((n_q, n_k), -np.inf), k=n_k - 1)), "offset_n_k"),
])
@pytest.mark.parametrize("hidden", [False, True])
def test_each_causal_mistake_gets_its_hint(fn, hint, hidden):
    with pytest.raises(AssertionError) as err:
        checks.check_causal_attention(fn, hidden=hidden)
    assert str(err.value) == f"✗ {CAUSAL_HINTS[hint]}"


@pytest.mark.parametrize("hidden", [False, True])
def test_both_checks_catch_the_border_that_is_right_only_for_two_queries(hidden):
    """With two queries k = n_k − 1 is the right border: a mask right on squares and n_k − 1
    otherwise passes a check whose rectangular cases all have two queries. The visible check (the
    last 4 of 6 words, a case the chapter's prose names) and the hidden test both have four."""
    squares_apart = _causal(lambda n_q, n_k: upper(n_q, n_k) if n_q == n_k
                            else np.triu(np.full((n_q, n_k), -np.inf), k=n_k - 1))
    with pytest.raises(CheckFailed) as err:
        checks.check_causal_attention(squares_apart, hidden=hidden)
    assert err.value.mistake == "offset_n_k"


def test_the_visible_check_has_a_rectangular_case_with_three_or_more_queries():
    from helpers.checks.ch08_going_further import _causal_cases
    shapes = [(len(Q), len(K)) for Q, K, _ in _causal_cases(hidden=False)]
    assert any(3 <= n_q < n_k for n_q, n_k in shapes), shapes


def test_causal_output_mistakes():
    def swapped(Q, K, V):
        out, w = RIGHT_CAUSAL(Q, K, V)
        return w, out

    def weights_twice(Q, K, V):
        _, w = RIGHT_CAUSAL(Q, K, V)
        return w, w

    def v_at_w(Q, K, V):
        _, w = RIGHT_CAUSAL(Q, K, V)
        return w * V.sum(), w

    for fn, hint in ((swapped, "swapped"), (weights_twice, "weights_as_output"),
                     (v_at_w, "bad_output")):
        with pytest.raises(AssertionError) as err:
            checks.check_causal_attention(fn)
        assert str(err.value).startswith(f"✗ {CAUSAL_HINTS[hint]}")


def test_causal_learner_crash_and_stub():
    def stub(Q, K, V):
        raise NotImplementedError

    with pytest.raises(AssertionError, match="まだ書かれていません"):
        checks.check_causal_attention(stub)
    with pytest.raises(AssertionError, match="エラーで止まりました"):
        checks.check_causal_attention(lambda Q, K, V: np.ones((2, 3)) @ Q)


@pytest.mark.parametrize("hidden", [False, True])
def test_the_chapters_square_mask_copied_crashes_with_a_hint_about_the_positions(hidden):
    """The chapter's cell copied (a mask n × n with n the number of queries): right on the square
    case, a crash on the last words' queries, whose message gives the sizes and asks which word
    a query is."""
    def copied(Q, K, V):
        n, d_k = Q.shape
        mask = np.triu(np.full((n, n), -np.inf), k=1)
        Z = Q @ K.T / np.sqrt(d_k) + mask
        E = np.exp(Z - Z.max(axis=1, keepdims=True))
        weights = E / E.sum(axis=1, keepdims=True)
        return weights @ V, weights

    with pytest.raises(CheckFailed) as info:
        checks.check_causal_attention(copied, hidden=hidden)
    said = str(info.value)
    assert "エラーで止まりました" in said and "何語めか" in said and "k=" not in said, said


def _multi(split="right", merge="right", W_O=True, root="d_k", order=1):
    def fn(X, W_Q, W_K, W_V, W_O_, h):
        n = X.shape[0]
        d_k = W_Q.shape[1] // h

        def cut(M):
            if split == "reshape":
                return M.reshape(h, n, M.shape[1] // h)
            return M.reshape(n, h, M.shape[1] // h).transpose(1, 0, 2)

        Q, K, V = cut(X @ W_Q), cut(X @ W_K), cut(X @ W_V)
        r = {"d_k": np.sqrt(d_k), "none": 1.0, "full": np.sqrt(h * d_k), "chapter": np.sqrt(2)}[root]
        H = softmax(Q @ K.transpose(0, 2, 1) / r, axis=-1) @ V
        H = H[::order]
        if merge == "reshape":
            C = H.reshape(n, -1)
        elif merge == "rows":
            C = np.concatenate(list(H), axis=0).reshape(n, -1)
        else:
            C = np.concatenate(list(H), axis=1)
        return C @ W_O_ if W_O else C
    return fn


@pytest.mark.parametrize("hidden", [False, True])
def test_the_chapters_cells_copied_with_values_cut_d_k_wide_crash_with_both_widths(hidden):
    """The chapter's loop (every face cut d_k wide) and its merge into n × h·d_k copied: on a case
    with d_v ≠ d_k numpy refuses, and the message gives d_k and d_v, not the fix."""
    def loop(X, W_Q, W_K, W_V, W_O, h):
        d_k = W_Q.shape[1] // h
        outs = []
        for i in range(h):
            cols = slice(i * d_k, (i + 1) * d_k)
            Q_i, K_i, V_i = X @ W_Q[:, cols], X @ W_K[:, cols], X @ W_V[:, cols]
            outs.append(softmax(Q_i @ K_i.T / np.sqrt(d_k), axis=-1) @ V_i)
        return np.concatenate(outs, axis=1) @ W_O

    def merged(X, W_Q, W_K, W_V, W_O, h):
        n, d_k = X.shape[0], W_Q.shape[1] // h
        Q_h, K_h, V_h = (M.reshape(n, h, -1).transpose(1, 0, 2) for M in (X @ W_Q, X @ W_K, X @ W_V))
        H = softmax(Q_h @ K_h.transpose(0, 2, 1) / np.sqrt(d_k), axis=-1) @ V_h
        return H.transpose(1, 0, 2).reshape(n, h * d_k) @ W_O

    for fn in (loop, merged):
        with pytest.raises(CheckFailed) as info:
            checks.check_multi_head(fn, hidden=hidden)
        said = str(info.value)
        assert "エラーで止まりました" in said and "d_v = 3" in said and "d_k = 2" in said, said
        assert "縦(axis=0)" not in said, said  # not the stacked heads' mistake
    with pytest.raises(CheckFailed, match="中身 V を何列ずつ頭に分けたか"):
        checks.check_multi_head(loop, hidden=hidden)


@pytest.mark.parametrize("hidden", [False, True])
def test_right_multi_head_passes(hidden, capsys):
    checks.check_multi_head(_multi(), hidden=hidden)
    out = capsys.readouterr().out
    # the visible check says ✓; the hidden one passes without a word, as in every chapter
    assert out.startswith("✓") if not hidden else out == ""


def test_one_loop_version_passes_too(capsys):
    def loop(X, W_Q, W_K, W_V, W_O, h):
        d_k, d_v = W_Q.shape[1] // h, W_V.shape[1] // h
        outs = []
        for i in range(h):
            c = slice(i * d_k, (i + 1) * d_k)
            A = softmax((X @ W_Q[:, c]) @ (X @ W_K[:, c]).T / np.sqrt(d_k))
            outs.append(A @ (X @ W_V[:, i * d_v:(i + 1) * d_v]))
        return np.hstack(outs) @ W_O

    checks.check_multi_head(loop)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("fn, hint", [
    (_multi(W_O=False), "no_W_O"),
    (_multi(split="reshape", merge="reshape"), "reshape_only"),
    (_multi(split="reshape"), "reshape_only"),
    (_multi(merge="reshape"), "merge_reshape_only"),
    (_multi(merge="rows"), "merge_reshape_only"),
    (_multi(root="none"), "no_sqrt"),
    (_multi(root="full"), "full_sqrt"),
    (_multi(root="chapter"), "sqrt_h"),  # the chapter's global d_k = 2 kept: √2 = √h on these cases
    (_multi(order=-1), "reversed"),
])
@pytest.mark.parametrize("hidden", [False, True])
def test_each_multi_head_mistake_gets_its_hint(fn, hint, hidden):
    with pytest.raises(AssertionError) as err:
        checks.check_multi_head(fn, hidden=hidden)
    assert str(err.value) == f"✗ {MULTI_HEAD_HINTS[hint]}"


def test_one_head_instead_of_h():
    def one(X, W_Q, W_K, W_V, W_O, h):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        return softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V @ W_O

    with pytest.raises(AssertionError, match="一つの頭として"):
        checks.check_multi_head(one)


def test_concatenating_on_axis_0_crashes_with_a_hint_about_the_axis():
    def axis0(X, W_Q, W_K, W_V, W_O, h):
        d_k = W_Q.shape[1] // h
        outs = [softmax((X @ W_Q[:, i * d_k:(i + 1) * d_k]) @ (X @ W_K[:, i * d_k:(i + 1) * d_k]).T)
                @ (X @ W_V[:, i * d_k:(i + 1) * d_k]) for i in range(h)]
        return np.concatenate(outs, axis=0) @ W_O

    with pytest.raises(AssertionError, match=r"縦\(axis=0\)につないでいませんか") as info:
        checks.check_multi_head(axis0)
    assert "axis=1" not in str(info.value)  # the mistake is named; the fix is the learner's


def _causal_with(sign: float):
    def causal_attention(Q, K, V):
        n_q, n_k = Q.shape[0], K.shape[0]
        S = Q @ K.T / np.sqrt(Q.shape[1]) + np.triu(np.full((n_q, n_k), sign * np.inf), k=1 + n_k - n_q)
        with np.errstate(invalid="ignore"):
            E = np.exp(S - S.max(axis=-1, keepdims=True))
            weights = E / E.sum(axis=-1, keepdims=True)
        return weights @ V, weights
    return causal_attention


@pytest.mark.parametrize("hidden", [False, True])
def test_a_plus_inf_mask_is_named_by_its_sign(hidden, capsys):
    with pytest.raises(CheckFailed) as info:
        checks.check_causal_attention(_causal_with(+1.0), hidden=hidden)
    assert "符号" in str(info.value) and "k=1" not in str(info.value)
    checks.check_causal_attention(_causal_with(-1.0), hidden=hidden)


@pytest.mark.parametrize("hidden", [False, True])
def test_a_multi_head_output_multiplied_in_the_wrong_order_is_named(hidden):
    def multi_head(X, W_Q, W_K, W_V, W_O, h):
        return checks.multi_head_variants(X, W_Q, W_K, W_V, W_O, h)["right"].T  # W_O.T @ concat.T

    with pytest.raises(CheckFailed, match="積の順番"):
        checks.check_multi_head(multi_head, hidden=hidden)


def test_no_mistake_hint_spells_out_code_of_the_solution():
    """A hint names the mistake; the reshape and transpose that mend it are the learner's to write."""
    from helpers.checks.ch08_going_further import MULTI_HEAD_HINTS

    code = [h for h in MULTI_HEAD_HINTS.values() if any(t in h for t in ("reshape(n, h, d_k)", "transpose(1, 0, 2)"))]
    assert not code, code


# ------------------------------------------------------------ 練習 3: a padding mask


def _padded(hide=lambda n_q, n_k, n_real: np.arange(n_k) >= n_real, scale=True, after=False):
    """padded_attention written with a mask that hides the entries `hide(...)` says."""
    def fn(Q, K, V, n_real):
        S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
        hidden = np.broadcast_to(hide(Q.shape[0], K.shape[0], n_real), S.shape)
        if after:
            w = softmax(S) * ~hidden
        else:
            Z = np.where(hidden, -np.inf, S)
            with np.errstate(invalid="ignore"):
                E = np.exp(Z - Z.max(axis=1, keepdims=True))
                w = E / E.sum(axis=1, keepdims=True)
        return w @ V, w
    return fn


def padded_loop(Q, K, V, n_real):
    """Right another way: attention over the real keys only, then zeros for the padding."""
    S = Q @ K[:n_real].T / np.sqrt(Q.shape[1])
    w = np.zeros((Q.shape[0], K.shape[0]))
    w[:, :n_real] = softmax(S)
    return w @ V, w


@pytest.mark.parametrize("fn", [_padded(), padded_loop])
def test_check_padded_attention_passes_right_answers(fn, capsys):
    checks.check_padded_attention(fn)
    assert "✓" in capsys.readouterr().out
    checks.check_padded_attention(fn, hidden=True)


def test_the_no_mask_hint_points_to_where_exp_of_minus_inf_is_explained():
    """Why −∞ gives weight 0 (e^{−∞} = 0) is said in the causal-mask section, not under the rows
    that are wholly hidden."""
    hint = checks.PADDING_HINTS["no_mask"]
    assert "「先を見ない目隠し:因果マスク」" in hint and "全部が隠された行" not in hint


@pytest.mark.parametrize("fn, mistake", [
    (_padded(lambda n_q, n_k, r: np.zeros(n_k, bool)), "no_mask"),
    (_padded(lambda n_q, n_k, r: (np.arange(n_q) >= r)[:, None]), "rows"),
    (_padded(lambda n_q, n_k, r: np.arange(n_k) > r), "off_by_one"),
    (_padded(lambda n_q, n_k, r: np.arange(n_k) >= r - 1), "off_by_one"),
    (_padded(lambda n_q, n_k, r: np.triu(np.ones((n_q, n_k), bool), k=1)), "causal"),
    (_padded(after=True), "zeroed_after"),
    (lambda Q, K, V, r: (lambda w: (np.nan_to_num(w) @ V, np.nan_to_num(w)))(_padded(
        lambda n_q, n_k, r: (np.arange(n_k) >= r) | (np.arange(n_q) >= r)[:, None])(Q, K, V, r)[1]), "rows_zeroed"),
    (_padded(scale=False), "no_sqrt"),
])
def test_check_padded_attention_names_each_mistake(fn, mistake):
    with pytest.raises(CheckFailed) as info:
        checks.check_padded_attention(fn)
    assert info.value.mistake == mistake
    assert checks.PADDING_HINTS[mistake] in str(info.value)


@pytest.mark.parametrize("fn", [_padded(lambda n_q, n_k, r: np.zeros(n_k, bool)),
                                lambda Q, K, V, r: (lambda w: (w @ V, w))(softmax(Q @ K.T / np.sqrt(Q.shape[1])
                                                                                  * (np.arange(len(K)) < r)))])
def test_a_padding_mask_that_hides_nothing_is_asked_about_not_handed_the_fix(fn):
    """Found grading a class: the hint to a mask that leaves the padding seen (none, or multiplied
    into the scores) named the fix whole (add -inf to the padded columns' scores), which is the
    exercise; it asks which scores give a weight of exactly 0, as chapter 02's does."""
    for hidden in (False, True):
        with pytest.raises(CheckFailed) as info:
            checks.check_padded_attention(fn, hidden=hidden)
        assert "空席の列にも重みが配られています" in str(info.value)
        assert "-inf" not in str(info.value) and "足して" not in str(info.value)


def test_check_padded_attention_wants_a_pair():
    with pytest.raises(CheckFailed) as info:
        checks.check_padded_attention(lambda Q, K, V, n_real: _padded()(Q, K, V, n_real)[1])
    assert info.value.mistake == "not_a_pair"

"""The explorables' ES modules against numpy, without a browser (Node runs the modules).

- the shared maths (js/qkv_math.js) against helpers' numpy on generated cases;
- every explorable's `numbers(traits)` in JavaScript against its Python `numbers()` at random
  settings of its controls: what the picture shows is what numpy computes.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from explorables import explorable_classes, random_controls, run_module, same_numbers

import helpers
from helpers.geometry import question_vector, rotation_scale_matrix
from helpers.heads import causal_mask
from helpers.widgets.sources import js_source, module_source

MATH = module_source("qkv_math") + "\n"
CASES = 300  # per function; five functions: 1,500 cases


def _math(function: str, cases: list[list]) -> list:
    results = run_module(MATH.replace("\nfunction ", "\nexport function "), function, cases)
    errors = [r["error"] for r in results if "error" in r]
    assert not errors, errors[:3]
    return [r["ok"] for r in results]


def test_softmax_with_temperature_and_masks_agrees_with_numpy():
    rng = np.random.default_rng(1)
    cases = []
    for _ in range(CASES):
        n = int(rng.integers(1, 9))
        scale = 10.0 ** rng.uniform(-2, 3.5)  # scores up to the thousands: stability matters
        row = rng.normal(size=n) * scale
        masked = rng.random(n) < 0.3
        masked[int(rng.integers(n))] = False  # at least one score may be looked at
        row[masked] = -np.inf
        cases.append([row.tolist(), float(10.0 ** rng.uniform(-1.5, 1.5))])
    got = _math("softmax", [[[("-Infinity" if np.isneginf(v) else v) for v in r], t] for r, t in cases])
    for (row, t), page in zip(cases, got, strict=True):
        assert same_numbers(page, helpers.softmax(np.array(row), temperature=t)) == []


def test_matmul_and_attention_agree_with_numpy():
    rng = np.random.default_rng(2)
    cases, expected = [], []
    for _ in range(CASES):
        n, d, d_v = (int(v) for v in rng.integers(1, 7, size=3))
        Q, K = rng.normal(size=(n, d)), rng.normal(size=(n, d))
        V = rng.normal(size=(n, d_v))
        cases.append([Q, K, V])
        out, weights = helpers.scaled_dot_product_attention(Q, K, V)
        expected.append({"scores": Q @ K.T / np.sqrt(d), "weights": weights, "output": out})
    for page, numpy in zip(_math("attention", cases), expected, strict=True):
        assert same_numbers(page, numpy) == []
    pairs = [[rng.normal(size=(int(a), int(b))), rng.normal(size=(int(b), int(c)))]
             for a, b, c in rng.integers(1, 6, size=(CASES, 3))]
    for (A, B), page in zip(pairs, _math("matmul", pairs), strict=True):
        assert same_numbers(page, A @ B) == []


def test_masked_attention_agrees_with_numpy():
    rng = np.random.default_rng(3)
    cases, expected = [], []
    for _ in range(CASES):
        n, d = int(rng.integers(1, 8)), int(rng.integers(1, 5))
        X = rng.normal(size=(n, d))
        cases.append([X, X, X, "causal"])
        scores = X @ X.T / np.sqrt(d) + causal_mask(n)
        expected.append(helpers.softmax(scores))
    # the mask is made in JavaScript (JSON has no -Infinity)
    source = MATH.replace("\nfunction ", "\nexport function ") + (
        "\nexport function causalAttention(Q, K, V) {"
        " return attention(Q, K, V, causalMask(Q.length)).weights; }\n")
    results = run_module(source, "causalAttention", [c[:3] for c in cases])
    for r, numpy in zip(results, expected, strict=True):
        assert same_numbers(r["ok"], numpy) == []


def test_rotations_and_questions_agree_with_numpy():
    rng = np.random.default_rng(4)
    angles = rng.uniform(-360, 360, size=CASES)
    scales = rng.uniform(0, 3, size=CASES)
    got = _math("rotationScale", [[float(a), float(s)] for a, s in zip(angles, scales, strict=True)])
    for a, s, page in zip(angles, scales, got, strict=True):
        assert same_numbers(page, rotation_scale_matrix(a, s)) == []
    lengths = rng.uniform(0.1, 4, size=CASES)
    got = _math("questionVector", [[float(a), float(n)] for a, n in zip(angles, lengths, strict=True)])
    for a, n, page in zip(angles, lengths, got, strict=True):
        assert same_numbers(page, question_vector(a, n).reshape(-1)) == []


def test_cosine_agrees_with_numpy():
    rng = np.random.default_rng(5)
    pairs = [rng.normal(size=(2, int(d))) for d in rng.integers(1, 6, size=CASES)]
    got = _math("cosine", [[a, b] for a, b in pairs])
    for (a, b), page in zip(pairs, got, strict=True):
        assert same_numbers(page, helpers.cosine_similarity(a[None], b[None])[0, 0]) == []


@pytest.mark.parametrize("module", list(explorable_classes()))
def test_every_explorable_shows_what_numpy_computes(module):
    cls = explorable_classes()[module]
    explorer = cls.example()
    rng = np.random.default_rng(6)
    settings = [random_controls(cls, explorer, rng) for _ in range(60)]
    cases = []
    for setting in settings:
        for name, value in setting.items():
            setattr(explorer, name, value)
        cases.append([explorer.state_for_page()])
    results = run_module(module_source(module), "numbers", cases)
    for setting, (state,), result in zip(settings, cases, results, strict=True):
        assert "error" not in result, (setting, result)
        for name, value in setting.items():
            setattr(explorer, name, value)
        assert same_numbers(result["ok"], explorer.numbers()) == [], (module, state)


@pytest.mark.parametrize("module", list(explorable_classes()))
def test_a_chapter_module_draws_with_the_shared_panel_heatmap_and_plane(module):
    """A chapter's module builds its panels with qkv_draw (`svg`, `heatmap`, `plane`): it never
    edits an SVG string (chapter 00 stripped a heatmap's <svg> with a regex, chapter 06 appended
    a label before </svg>) nor defines a heatmap, grid or plane of its own (chapters 08 and 03 did)."""
    code = re.sub(r"//.*", "", js_source(module))
    assert "<svg" not in code and "</svg" not in code, module
    heatmaps = re.findall(r"function (\w*[hH]eatmap\w*|\w*Layout|columnLabels|\w*Axes)\(", code)
    maps = re.findall(r"\b(?:const|let) (at|back) = \((?:x, y|px, py)\) =>", code)  # a plane's maps
    assert not heatmaps and not maps, f"{module}: {heatmaps + maps}"

"""Chapter 03's explorable: the networking party, where every guest asks, is asked and brings something.

Drawn in the browser (js/ch03_three_roles.js); this class keeps the party (tastes X and the three
tables W_Q, W_K, W_V) and the chosen guest as traits, so `explorer.person = "ミオ"` in a cell
picks ミオ in the picture too.
"""

from __future__ import annotations

import numpy as np

from .._validate import HelpersError, HelpersTypeError, arg, public
from ..data import Party, party, party_attention
from ._base import MAX_ITEMS, Choice, Explorable, at_most, data_trait

__all__ = ["party_explorer", "PartyExplorer"]


class PartyExplorer(Explorable):
    """Pick a guest: their Q against everyone's name tag K, how the softmax weights fall, and
    what they take home (the weighted mix of everyone's V, the thick green arrow)."""

    module = "ch03_three_roles"
    title = "交流会で誰が誰を探すか"
    # The party first: `person` is checked against `names`.
    names = data_trait([], "text", ("guests",))
    tastes = data_trait([], "number", ("guests", 2))
    w_q = data_trait([], "number", (2, 2))
    w_k = data_trait([], "number", (2, 2))
    w_v = data_trait([], "number", (2, 2))
    axis_labels = data_trait([], "text", (2,))
    person = Choice("ケン", "person(探す人)", options="names")

    @classmethod
    def example(cls) -> PartyExplorer:
        return party_explorer(person="アオイ")

    def guests(self) -> Party:
        """The party the picture is drawn from, rebuilt from the traits."""
        return Party(tuple(self.names), np.array(self.tastes, dtype=float), np.array(self.w_q, dtype=float),
                     np.array(self.w_k, dtype=float), np.array(self.w_v, dtype=float),
                     tuple(self.axis_labels))

    def numbers(self) -> dict:
        """What the picture shows now: `helpers.data.party_attention` for the chosen guest (q,
        scores, weights, take_home, pick), as plain lists."""
        state = party_attention(self.guests(), self.person)
        return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in state.items()}


def _a_party_on_the_plane(guests, name: str) -> Party:
    """A spec: `guests` (None: the chapter's party), everything 2-D, a few guests."""
    g = party() if guests is None else guests
    if not isinstance(g, Party):
        raise HelpersTypeError(f"{name} には helpers.data.Party を渡してください。{type(g).__name__} が来ました。")
    if g.X.shape[1] != 2 or g.W_Q.shape[1] != 2 or g.W_V.shape[1] != 2:
        raise HelpersError("この図は平面(2 次元)の交流会用です。X, Q, K, V がすべて 2 列の Party を渡してください。")
    at_most(len(g.names), MAX_ITEMS, "交流会の参加者")
    return g


# `person` is a control: its trait checks it against the guests' names, here as when set later.
@public(guests=arg(_a_party_on_the_plane), draws=True)
def party_explorer(guests: Party | None = None, person: str = "ケン", **controls) -> PartyExplorer:
    """Pick a guest: their Q against everyone's name tag K, how the softmax weights fall, and
    what they take home (the weighted mix of everyone's V, the thick green arrow)."""
    g = guests
    return PartyExplorer.starting_at(
        "party_explorer", {"person": person, **controls}, names=list(g.names), tastes=g.X.tolist(), w_q=g.W_Q.tolist(), w_k=g.W_K.tolist(),
        w_v=g.W_V.tolist(), axis_labels=list(g.axes),
    )

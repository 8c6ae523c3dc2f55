"""A second bucket advice on a data set (another k or coverage) reuses the first one's height × weight grids."""
from __future__ import annotations

from dashboard.core.body import BandProbabilities
from dashboard.core.buckets import WIDTHS, advise


def test_a_second_advice_makes_no_grid_again(monkeypatch):
    first = advise("LI", k=10, q=0.9)
    made = []
    original = BandProbabilities.group_joint

    def counting(self, *args, **kwargs):
        made.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(BandProbabilities, "group_joint", counting)
    second = advise("LI", k=11, q=0.9)
    assert made == [], f"{len(made)} of the ladder's {len([w for w in WIDTHS if w]) ** 2} grids made again"
    assert second.k == 11 and first.k == 10

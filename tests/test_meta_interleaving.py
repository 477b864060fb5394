"""Offline interleaving with simulated users (RPP section 6.1, Fig. 5 bottom row)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import irpref_cli

from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.meta.interleaving import interleaving_agreement, offline_interleaving


def _toy(seed=0, n_runs=4, n_q=5, n_docs=12):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.random() < 0.4) for d in range(n_docs)}
             for q in range(n_q)}
    qrels["q0"]["d0"] = 1
    runs = {}
    for r in range(n_runs):
        runs[f"run{r}"] = {}
        for q in range(n_q):
            if (r, q) == (1, 2):
                continue
            docs = rng.permutation(n_docs)[: int(rng.integers(2, n_docs))]
            runs[f"run{r}"][f"q{q}"] = {f"d{d}": float(len(docs) - i)
                                        for i, d in enumerate(docs)}  # distinct scores
    return qrels, runs


def _brute_oi(a_list, b_list, relevant, coins, model):
    used, team, docs = set(), [], []
    ia = ib = na = nb = 0
    for t in range(len(coins)):
        while ia < len(a_list) and a_list[ia] in used:
            ia += 1
        while ib < len(b_list) and b_list[ib] in used:
            ib += 1
        has_a, has_b = ia < len(a_list), ib < len(b_list)
        if not (has_a or has_b):
            break
        pick_a = ((na < nb) or (na == nb and coins[t])) if (has_a and has_b) else has_a
        if pick_a:
            doc, ia, na = a_list[ia], ia + 1, na + 1
        else:
            doc, ib, nb = b_list[ib], ib + 1, nb + 1
        used.add(doc)
        docs.append(doc)
        team.append("a" if pick_a else "b")
    ca = cb = 0
    total = norm = 0.0
    for k, (doc, tm) in enumerate(zip(docs, team), start=1):
        if doc in relevant:
            ca += tm == "a"
            cb += tm == "b"
        w = 1.0 if model == "uniform" else 1 / np.log2(k + 1)
        total += w * np.sign(ca - cb)
        norm += w
    return total / norm if norm else 0.0


@pytest.mark.parametrize("model", ["uniform", "dcg"])
@pytest.mark.parametrize("depth", [3, 20])
def test_team_draft_equals_brute_force(model, depth):
    qrels, runs = _toy(1)
    judged = judge_inputs(qrels, runs)
    samples, seed = 3, 9
    got = offline_interleaving(qrels, runs, model=model, depth=depth, samples=samples,
                               seed=seed)
    qidx = np.flatnonzero(judged.num_rel() > 0)
    queries = list(judged.queries[qidx])
    names = judged.run_names
    a, b = np.triu_indices(len(names), 1)
    coins = np.random.default_rng(seed).random((len(a), len(qidx), samples, 2 * depth)) < 0.5
    pair = {(names[x], names[y]): p for p, (x, y) in enumerate(zip(a, b))}
    n = 0
    for row in got.itertuples():
        rank = {r: sorted(runs[r][row.query], key=lambda d: -runs[r][row.query][d])[:depth]
                for r in (row.run_a, row.run_b)}
        relevant = {d for d, g in qrels[row.query].items() if g >= 1}
        p, q = pair[row.run_a, row.run_b], queries.index(row.query)
        want = np.mean([_brute_oi(rank[row.run_a], rank[row.run_b], relevant,
                                  coins[p, q, s], model) for s in range(samples)])
        assert row.value == pytest.approx(want, abs=1e-12), row
        n += 1
    # every pair x query with a relevant item where both runs have the query
    assert n == sum(1 for x, y in pair for qq in queries if qq in runs[x] and qq in runs[y])


def test_oi_antisymmetry_and_identity():
    qrels, runs = _toy(2)
    runs["copy"] = runs["run0"]
    t = offline_interleaving(qrels, runs, samples=50, seed=1)
    same = t[(t.run_a == "run0") & (t.run_b == "copy")]
    assert (same.value.abs() <= 0.5).all()  # identical rankings: only the coin decides
    assert t.value.between(-1, 1).all()
    assert t.equals(offline_interleaving(qrels, runs, samples=50, seed=1))


def test_agreement_with_rpp():
    qrels, runs = _toy(3, n_runs=5, n_q=8)
    t = interleaving_agreement(qrels, runs, ["RPP", "AP"], depth=12, samples=4, seed=0)
    assert list(t.columns) == ["model", "measure", "sign_agreement", "pearson"]
    assert len(t) == 4 and t.sign_agreement.between(0, 1).all()


def test_bad_parameters():
    qrels, runs = _toy(0)
    with pytest.raises(UsageError, match="model"):
        offline_interleaving(qrels, runs, model="cascade")
    with pytest.raises(UsageError, match="depth"):
        offline_interleaving(qrels, runs, depth=0)
    with pytest.raises(UsageError, match="samples"):
        interleaving_agreement(qrels, runs, samples=0)


def test_cli_interleaving(data_dir):
    d = data_dir / "dl19-passage"
    runs = [str(p) for p in sorted((d / "runs").glob("*.gz"))[:3]]
    r = irpref_cli("meta", "interleaving", str(d / "qrels.txt"), *runs,
                        "-m", "RPP", "AP", "--depth", "10", "--samples", "2")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "model\tmeasure\tsign_agreement\tpearson\tseed" and len(lines) == 5
    bad = irpref_cli("meta", "interleaving", str(d / "qrels.txt"), *runs,
                          "--model", "cascade")
    assert bad.returncode == 2

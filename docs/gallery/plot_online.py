"""
Online boosting: the loss against the examples seen
===================================================

Online BBM and AdaBoost.OL (Beygelzimer, Kale and Luo; docs/online.md) learn one example at a
time. Their progressive-validation loss counts the mistakes each model makes on an example before
it learns from it, so it is an honest estimate of the error on the stream as it goes. Both boost
20 online decision stumps on a stream of two interleaving half-moons, a boundary no single stump
draws; one stump alone is the baseline.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_moons

from dualboost import AdaBoostOLClassifier, OnlineBBMClassifier

X, y = make_moons(n_samples=10_000, noise=0.25, random_state=0)
models = {
    "one stump alone": OnlineBBMClassifier(n_learners=1, learner="stumps"),
    "Online BBM, 20 stumps": OnlineBBMClassifier(n_learners=20, learner="stumps", gamma=0.1, random_state=0),
    "AdaBoost.OL, 20 stumps": AdaBoostOLClassifier(n_learners=20, learner="stumps", random_state=0),
}
fig, ax = plt.subplots(figsize=(7, 4))
for name, model in models.items():
    for start in range(0, len(y), 500):  # the stream arrives in mini-batches of 500
        model.partial_fit(X[start : start + 500], y[start : start + 500], classes=[0, 1])
    rows = model.history_
    ax.plot([row.iteration for row in rows], [row.stopping for row in rows], marker=".", label=name)
    print(f"{name}: progressive loss {model.progressive_loss_:.4f} after {len(y)} examples")
ax.set_xlabel("examples seen")
ax.set_ylabel("progressive 0-1 loss")
ax.set_title("Online boosting on a stream of half-moons")
ax.legend()
fig.tight_layout()

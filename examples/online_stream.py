"""Online boosting on a stream: Online BBM and AdaBoost.OL (Beygelzimer et al.), one example at a time.

A synthetic stream (scikit-learn's ``make_classification``) arrives in mini-batches
(``partial_fit``) and then one example at a time (``learn_one``, River style). The progressive
validation loss (each example predicted before it is learned) is printed as the stream goes, then
the held-out error of each booster and of its weak learner alone.

Run: ``python examples/online_stream.py``
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import make_classification

from dualboost.estimators.online import AdaBoostOLClassifier, OnlineBBMClassifier


def main() -> None:
    X, y = make_classification(n_samples=6000, n_features=20, n_informative=6, flip_y=0.05, random_state=0)
    labels = np.where(y == 1, "yes", "no")
    X_stream, y_stream, X_test, y_test = X[:5000], labels[:5000], X[5000:], labels[5000:]
    models = {
        "weak learner alone": OnlineBBMClassifier(n_learners=1),
        "Online BBM (N=20)": OnlineBBMClassifier(n_learners=20, gamma=0.2, random_state=0),
        "AdaBoost.OL (N=20)": AdaBoostOLClassifier(n_learners=20, random_state=0),
        "AdaBoost.OL.S (N=20)": AdaBoostOLClassifier(n_learners=20, weighting="sampling", random_state=0),
    }
    for name, model in models.items():
        for start in range(0, 4000, 1000):  # mini-batches
            batch = slice(start, start + 1000)
            model.partial_fit(X_stream[batch], y_stream[batch], classes=["no", "yes"])
        for x, label in zip(X_stream[4000:], y_stream[4000:], strict=True):  # one example at a time
            model.learn_one(x, label)
        error = np.mean(model.predict(X_test) != y_test)
        curve = ", ".join(f"{row.stopping:.3f}" for row in model.history_)
        print(f"{name:<22} progressive loss {model.progressive_loss_:.4f}  held-out error {error:.4f}")
        print(f"{'':<22} progressive loss every 1,000 examples: {curve}")


if __name__ == "__main__":
    main()

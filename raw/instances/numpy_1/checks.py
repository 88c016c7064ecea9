"""What a fix of numpy_1 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

The z-score normalisation computes its statistics per sample (axis=1) instead of per feature. A fix standardises
each of the four features with the training set's mean and standard deviation, after which gradient descent
converges to the least-squares solution.
"""
import numpy as np


def check_statistics_per_feature():
    """`mu` and `sigma` hold one value per feature (4), from the training set"""
    assert np.size(mu) == 4 and np.size(sigma) == 4, (np.shape(mu), np.shape(sigma))
    assert np.allclose(np.ravel(mu), X_train.mean(axis=0))


def check_training_features_standardised():
    """every column of `X_train_s` has mean 0 and standard deviation 1"""
    assert np.shape(X_train_s) == np.shape(X_train)
    assert np.allclose(X_train_s.mean(axis=0), 0, atol=1e-6)
    assert np.allclose(X_train_s.std(axis=0), 1, atol=0.01)


def check_test_features_use_training_statistics():
    """`X_test_s` is `X_test` standardised with the training mean and standard deviation"""
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    assert np.allclose(X_test_s, (X_test - mean) / std, rtol=0.01, atol=0.01)


def check_gradient_descent_converged():
    """gradient descent reaches the least-squares training cost (within 5%) and predicts the test set well (R² above 0.9)"""
    cost = compute_cost(X_train_b, y_train, theta)
    best = compute_cost(X_train_b, y_train, theta_ne)
    assert cost <= 1.05 * best, (cost, best)
    assert r2 > 0.9, r2

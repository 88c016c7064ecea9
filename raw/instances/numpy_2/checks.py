"""What a fix of numpy_2 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

The hand-made confusion matrix is indexed with the class labels 1–3 of a 3×3 array. A fix maps the labels to rows
and columns 0–2, so that the matrix counts every test sample once, by true class (rows) and prediction (columns).
"""
import numpy as np


def check_counts_every_test_sample():
    """the confusion matrix is 3×3 and counts every test sample once"""
    m = np.asarray(cm)
    assert m.shape == (3, 3), m.shape
    assert int(m.sum()) == len(y_test), (int(m.sum()), len(y_test))


def check_rows_are_true_classes():
    """row i counts the test samples of variety i + 1, column j those predicted as variety j + 1"""
    m = np.asarray(cm)
    truth = np.asarray(y_test)
    predicted = np.asarray(y_pred)
    for i in range(3):
        assert int(m[i].sum()) == int((truth == i + 1).sum()), (i, m[i])
        assert int(m[:, i].sum()) == int((predicted == i + 1).sum()), (i, m[:, i])


def check_diagonal_counts_correct_predictions():
    """the diagonal counts the correct predictions, by variety"""
    m = np.asarray(cm)
    truth = np.asarray(y_test)
    predicted = np.asarray(y_pred)
    for i in range(3):
        assert int(m[i, i]) == int(((truth == i + 1) & (predicted == i + 1)).sum()), i

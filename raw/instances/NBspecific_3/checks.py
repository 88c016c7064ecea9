"""What a fix of NBspecific_3 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

The metrics cell was re-run after a new split without re-fitting and re-predicting: y_test had 90 rows, y_pred
the 60 of the old split. A fix keeps the model, its predictions and the residuals in step with the current split.
"""
import numpy as np


def check_predictions_match_split():
    """`y_pred` holds one prediction per sample of the current test split"""
    assert len(y_pred) == len(y_test) == len(X_test), (len(y_pred), len(y_test))


def check_model_fitted_on_current_split():
    """the model is the linear regression fitted on the current training split"""
    from sklearn.linear_model import LinearRegression

    reference = LinearRegression().fit(X_train, y_train)
    assert np.allclose(model.coef_, reference.coef_, rtol=1e-6, atol=1e-6)


def check_residuals_of_current_split():
    """the residuals are the current test split's targets minus the model's predictions for it"""
    assert np.allclose(np.asarray(residuals), np.asarray(y_test) - model.predict(X_test))

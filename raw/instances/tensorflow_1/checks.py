"""What a fix of tensorflow_1 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

The first Dense layer expects 11 inputs (the raw columns) but the model is trained on the one-hot encoded matrix,
which has 15. A fix derives the input shape from the prepared data, so that the model trains for its forty epochs
and is evaluated on the validation set.
"""


def check_input_matches_features():
    """the model takes as many inputs as the encoded training matrix has columns (15)"""
    assert X_train.shape[1] == 15, X_train.shape
    assert model.input_shape[-1] == X_train.shape[1], model.input_shape


def check_model_trained():
    """the model was trained for forty epochs, with a validation loss for each"""
    assert len(history.history["loss"]) == 40, len(history.history["loss"])
    assert len(history.history["val_loss"]) == 40


def check_model_evaluated():
    """the model classifies the validation patients well (accuracy above 0.7)"""
    assert acc > 0.7, acc

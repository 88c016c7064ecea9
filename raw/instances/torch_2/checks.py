"""What a fix of torch_2 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

CrossEntropyLoss with one label per sample expects class indices (int64), but the labels were made float32. A fix
gives the loss integer class indices, so that the network trains for its thirty epochs and classifies the phones.
"""
import torch


def check_model_trained():
    """the network was trained for thirty epochs and its training loss went down"""
    assert len(losses) == 30, len(losses)
    assert losses[-1] < losses[0], (losses[0], losses[-1])


def check_model_classifies_test_phones():
    """the trained network predicts the price range of the test phones well (accuracy above 0.6; four classes)"""
    model.eval()
    with torch.no_grad():
        predicted = model(X_test_t).argmax(dim=1)
    truth = torch.as_tensor(y_test.values).long()
    accuracy = (predicted == truth).float().mean().item()
    assert accuracy > 0.6, accuracy

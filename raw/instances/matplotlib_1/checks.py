"""What a fix of matplotlib_1 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

The K-Means loop tries k = 2…10 (9 values) but the elbow plot uses range(1, 11). A fix plots the nine WCSS values
against the k values actually tried, beside the silhouette scores.
"""


def _line_of(values):
    import numpy as np

    for ax in jb.axes():
        for line in ax.lines:
            y = np.asarray(line.get_ydata(), dtype=float)
            if y.shape == (len(values),) and np.allclose(y, values):
                yield np.asarray(line.get_xdata(), dtype=float)


def check_elbow_plot_drawn():
    """a plot shows the nine WCSS values against k = 2…10"""
    assert len(wcss) == 9
    assert any(list(x) == list(range(2, 11)) for x in _line_of(wcss)), "no line of wcss over k = 2…10"


def check_silhouette_plot_drawn():
    """a plot shows the nine silhouette scores against k = 2…10"""
    assert any(list(x) == list(range(2, 11)) for x in _line_of(sil)), "no line of sil over k = 2…10"

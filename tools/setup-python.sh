#!/bin/sh
# Installs the Python kernel stack that the local runtime executes notebooks
# with (docs/verify.md, "Runtimes"). Idempotent: does nothing when it is already there.
#
# On Debian/Ubuntu as root: installs Debian's packages (~100 s the first time).
# Elsewhere it prints what to install: a Python >= 3.9 with ipykernel and
# jupyter_client, plus the libraries the instances import (numpy, pandas,
# scikit-learn, matplotlib, seaborn, statsmodels, torch, torchvision), then
# point junobench at it with --python <interpreter> or JUNOBENCH_PYTHON.
set -eu

# The kernel stack, the libraries of the embedded instances, and those of the published benchmark's requirements
# that Debian packages in a few MB (tqdm, nltk, xgboost, OpenCV, plotly, imbalanced-learn): real crash notebooks
# that `add` drafts import them. Not here: TensorFlow/Keras, LightGBM and CatBoost (not in Debian), wordcloud (it
# brings about 500 MB of dependencies).
PACKAGES="python3-ipykernel python3-nbclient python3-numpy python3-pandas python3-sklearn python3-matplotlib python3-seaborn python3-statsmodels python3-torch python3-torchvision python3-pyflakes python3-tqdm python3-nltk python3-xgboost python3-opencv python3-plotly python3-imblearn"
PY=${JUNOBENCH_PYTHON:-/usr/bin/python3}

if "$PY" -c "import ipykernel, jupyter_client, nbclient, numpy, pandas, sklearn, matplotlib, seaborn, statsmodels, torch, torchvision, pyflakes, tqdm, nltk, xgboost, cv2, plotly, imblearn" >/dev/null 2>&1; then
  echo "setup-python: kernel stack present ($PY)"
  exit 0
fi

if [ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup-python: run as root (or with sudo) to install: $PACKAGES" >&2
    exit 3
  fi
  echo "setup-python: installing Debian packages (about 100 s): $PACKAGES"
  export DEBIAN_FRONTEND=noninteractive
  # Refresh the package lists once; a stale list is the usual cause of 404s.
  apt-get update -q >/dev/null
  # shellcheck disable=SC2086
  apt-get install -y -q $PACKAGES >/dev/null
  /usr/bin/python3 -c "import ipykernel, jupyter_client, numpy, pandas, sklearn, torch" >/dev/null
  echo "setup-python: done (/usr/bin/python3)"
  exit 0
fi

cat >&2 <<MSG
setup-python: not a Debian system with apt; install the stack yourself:
  python3 -m pip install ipykernel jupyter_client nbclient numpy pandas scikit-learn matplotlib seaborn statsmodels torch torchvision tqdm nltk xgboost opencv-python plotly imbalanced-learn
then run junobench with --python \$(which python3) or export JUNOBENCH_PYTHON=\$(which python3)
MSG
exit 3

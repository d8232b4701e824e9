#!/usr/bin/env bash
# The Python client as a user gets it: the wheel installed into a fresh
# virtual environment, then the pytest suite (the example among its tests)
# run from the installed package, not the source tree, against a real
# linkaged. Offline: --system-site-packages lends the venv Debian's grpcio,
# protobuf, numpy and pytest, and pip checks them against the wheel's ranges.
# Usage: python_wheel.sh PYTHON WHEEL LINKAGED ROOT
set -euo pipefail
PYTHON=$1
WHEEL=$(realpath "$2")
LINKAGED=$(realpath "$3")
ROOT=$(realpath "$4")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset PYTHONPATH

"$PYTHON" -m venv --system-site-packages "$WORK/venv"
VENV_PYTHON=$WORK/venv/bin/python
"$VENV_PYTHON" -m pip install --no-index --disable-pip-version-check --quiet "$WHEEL[numpy]"

# From here on nothing of the source tree is importable: the working
# directory is empty, and pytest puts only the tests' own directory on sys.path.
cd "$WORK"
"$VENV_PYTHON" - "$WORK/venv" "$WHEEL" <<'PY'
import pathlib, sys
import linkage
venv, wheel = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
where = pathlib.Path(linkage.__file__).resolve().parent
assert where.is_relative_to(venv.resolve()), f"linkage imported from {where}, not from the venv"
assert (where / "py.typed").is_file(), "the installed package has no py.typed"
assert wheel.name.startswith(f"linkage-{linkage.__version__}-"), (linkage.__version__, wheel.name)
print(f"linkage {linkage.__version__} from {where}")
PY
LINKAGED=$LINKAGED PYTHONDONTWRITEBYTECODE=1 \
  "$VENV_PYTHON" -m pytest -q -rs -p no:cacheprovider -o faulthandler_timeout=100 "$ROOT/client/python/tests"

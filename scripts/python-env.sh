#!/usr/bin/env bash
# python-env.sh VENV_DIR SCRIPT [ARGS...]
#
# Runs SCRIPT with the Python of a virtual environment at VENV_DIR that has onnx,
# ml_dtypes and numpy (the differential test's oracle) and safetensors (the checkpoint
# test's reader). The venv is created when missing
# (python3 -m venv) and the packages are pip-installed into it when they are missing or
# too old; once they are there, nothing touches the network. Used by ctest
# (differential_test) and CI on a fresh machine that reaches PyPI only.
#
# Environment:
#   PYTHON                  interpreter that creates the venv (default: python3)
#   TENSORCAST_PIP_PACKAGES requirement specifiers to install (default below)
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 VENV_DIR SCRIPT [ARGS...]" >&2
  exit 2
fi
venv=$1
script=$2
shift 2

python=${PYTHON:-python3}
# onnx >= 1.23: Cast-24/25 with round_mode and INT2/UINT2, Cast-28 with FLOAT6E2M3/FLOAT6E3M2
# in onnx.reference.
# numpy < 2.3: numpy 2.3 changed str() of float16/float32 to scientific notation from
# 1e3/1e6 on; docs/semantics.md (and the ONNX v1.18 string data) follow the
# older spelling (positional below 1e16), so the reference must run on numpy < 2.3.
packages=${TENSORCAST_PIP_PACKAGES:-"onnx>=1.23 ml_dtypes>=0.5.4 numpy>=1.24,<2.3 safetensors>=0.4"}

log() { echo "python-env: $*" >&2; }

# Serialise concurrent callers (parallel ctest, two build trees sharing one venv).
mkdir -p "$(dirname "$venv")"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$venv.lock"
  flock 9
fi

vpy=$venv/bin/python

# A venv whose interpreter no longer runs (python upgraded or moved) is rebuilt.
if [[ -e $venv && ! -x $vpy ]] || { [[ -x $vpy ]] && ! "$vpy" -c 'import sys' >/dev/null 2>&1; }; then
  if [[ -f $venv/pyvenv.cfg ]]; then
    log "recreating broken virtual environment $venv"
    rm -rf "$venv"
  else
    log "error: $venv exists but is not a virtual environment; remove it or pick another path"
    exit 2
  fi
fi

if [[ ! -x $vpy ]]; then
  if ! command -v "$python" >/dev/null 2>&1; then
    log "error: $python not found; install Python 3 (Debian: apt-get install python3 python3-venv)"
    exit 2
  fi
  log "creating virtual environment $venv with $("$python" --version 2>&1)"
  if ! "$python" -m venv "$venv" >/dev/null 2>"$venv.err"; then
    cat "$venv.err" >&2 || true
    rm -rf "$venv" "$venv.err"
    log "error: '$python -m venv' failed. On Debian/Ubuntu install the venv module:"
    log "         apt-get install python3-venv"
    log "       (or python3.X-venv matching '$python --version')"
    exit 2
  fi
  rm -f "$venv.err"
fi

# Are the packages importable and recent enough? (No network for this check.)
have_packages() {
  "$vpy" - "$packages" <<'EOF' >/dev/null 2>&1
import re, sys
from importlib import metadata

def key(v):
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])

OPS = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
       "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
for spec in sys.argv[1].split():
    name = re.match(r"[A-Za-z0-9_.\-]+", spec).group(0)
    version = key(metadata.version(name))          # raises when not installed
    for op, bound in re.findall(r"(>=|<=|==|!=|>|<)\s*([0-9][0-9.]*)", spec[len(name):]):
        b = key(bound)
        n = max(len(version), len(b))
        if not OPS[op](version + (0,) * (n - len(version)), b + (0,) * (n - len(b))):
            sys.exit(1)
import numpy, ml_dtypes, onnx, onnx.reference  # noqa: F401  (importable, not just installed)
EOF
}

if ! have_packages; then
  log "installing $packages into $venv (PyPI)"
  # shellcheck disable=SC2086  # word splitting of the package list is intended
  if ! "$vpy" -m pip install --quiet --disable-pip-version-check --upgrade $packages; then
    log "error: pip install failed (is PyPI reachable?)"
    exit 2
  fi
  if ! have_packages; then
    log "error: packages still not importable after pip install: $packages"
    exit 2
  fi
fi

# Release the lock before running the (long) script.
if command -v flock >/dev/null 2>&1; then
  exec 9>&-
fi
exec "$vpy" "$script" "$@"

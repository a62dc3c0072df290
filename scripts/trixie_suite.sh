#!/usr/bin/env bash
# The CPU test suite on a jax that needs Python >= 3.12 (jax 0.11, 0.12), from this
# Python 3.11 machine: a Debian trixie chroot (python3.13, made once with debootstrap),
# a venv there with requirements/dev.txt but the given jax/jaxlib, this checkout and the
# host's Rust toolchain bind-mounted, then `bridgegen build --install` for every spec
# and pytest, all inside the chroot. Needs root and network (Debian, PyPI).
#   usage: bash scripts/trixie_suite.sh VERSION [PYTEST ARGS...]     (e.g. 0.12.0.1)
#   SCIPY=1.18.1 bash scripts/trixie_suite.sh ...: against that SciPy instead of the pinned
#   one (SciPy 1.18 needs Python >= 3.12; the accuracy tests know its documented differences).
# Log: target/matrix/trixie-VERSION.log (the last line is pytest's summary).
set -euo pipefail
cd "$(dirname "$0")/.."
V="${1:?usage: trixie_suite.sh JAX_VERSION [pytest args]}"
shift
ROOTFS="${TRIXIE_ROOT:-/opt/trixie}"
REPO="$(pwd)"
TAG="$V${SCIPY:+-scipy$SCIPY}"
LOG="$REPO/target/matrix/trixie-$TAG.log"
mkdir -p "$(dirname "$LOG")"
[ -x target/release/bridgegen ] || cargo build --quiet --release --locked -p bridgegen
# array-api-extra's own tests (tests/python/test_array_api_extra.py) come from the sdist
# scripts/env.sh unpacks into .venv: a checkout without it fails that one test.
[ -f .venv/array_api_extra-0.11.5/tests/main/test_lazy.py ] || echo "trixie_suite: warning: no .venv/array_api_extra-0.11.5 (source scripts/env.sh first)" >&2

if [ ! -x "$ROOTFS/usr/bin/python3.13" ]; then
    command -v debootstrap >/dev/null || apt-get install -y -q debootstrap
    debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,g++,git,ca-certificates trixie "$ROOTFS"
fi
cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
# git: tests/python/test_out_of_tree.py copies the checkout with it.
[ -x "$ROOTFS/usr/bin/g++" ] && [ -x "$ROOTFS/usr/bin/git" ] ||
    chroot "$ROOTFS" bash -c 'apt-get update -q && apt-get install -y -q --no-install-recommends g++ git'

mounts=()
bind() {  # bind SRC DEST-inside-chroot
    mkdir -p "$ROOTFS$2"
    mountpoint -q "$ROOTFS$2" || { mount --bind "$1" "$ROOTFS$2"; mounts+=("$ROOTFS$2"); }
}
cleanup() { for m in "${mounts[@]}"; do umount "$m" || true; done; }
trap cleanup EXIT
# At its own path, so that the generated trees and target/ mean the same inside and out.
bind "$REPO" "$REPO"
bind "${CARGO_HOME:-$HOME/.cargo}" /root/.cargo
bind "${RUSTUP_HOME:-$HOME/.rustup}" /root/.rustup
mountpoint -q "$ROOTFS/proc" || { mount -t proc proc "$ROOTFS/proc"; mounts+=("$ROOTFS/proc"); }

# requirements/dev.txt with this jax and jaxlib (the rest pinned as for Python 3.11).
sed -E "s/^(jax|jaxlib)==.*/\1==$V/${SCIPY:+; s/^scipy==.*/scipy==$SCIPY/}" requirements/dev.txt >"$ROOTFS/tmp/requirements-$TAG.txt"
# The pytest arguments, quoted, so that `-k "a or b"` reaches pytest as one argument.
printf '%q ' "$@" >"$ROOTFS/tmp/pytest-args-$TAG"
chroot "$ROOTFS" env -i HOME=/root PATH=/usr/bin:/bin bash -c "
    set -euo pipefail
    venv=/venv-$TAG
    stamp=\$venv/.requirements-\$(sha256sum /tmp/requirements-$TAG.txt | cut -c1-16)
    if [ ! -f \$stamp ]; then
        rm -rf \$venv && python3.13 -m venv \$venv
        \$venv/bin/pip install -q --disable-pip-version-check -r /tmp/requirements-$TAG.txt
        touch \$stamp
    fi
    export PATH=\$venv/bin:/root/.cargo/bin:/usr/bin:/bin BRIDGEGEN_PYTHON=\$venv/bin/python
    export CARGO_TARGET_DIR=$REPO/target/trixie BRIDGEGEN_JAXLIB_UNDER_TEST=$V
    cd $REPO
    python -c 'import sys, jax, jaxlib; print(\"python\", sys.version.split()[0], \"jax\", jax.__version__, \"jaxlib\", jaxlib.__version__)'
    for s in specs/*.toml; do target/release/bridgegen build \$s --install --quiet --cuda-arch none --out /tmp/dist-$TAG; done
    eval set -- \$(cat /tmp/pytest-args-$TAG)
    PATH=$REPO/target/release:\$PATH python -m pytest -q -p no:cacheprovider tests/python \"\$@\"
" 2>&1 | tee "$LOG"
exit "${PIPESTATUS[0]}"

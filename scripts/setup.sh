#!/usr/bin/env bash
# Installs what the course needs on Debian or Ubuntu, and only what is missing: run it again and
# it changes nothing. The README, .ci/run, the Gradescope autograder (autograder/gradescope/
# setup.sh), the GitHub Classroom workflow and the dev container (.devcontainer/) all install
# through this one script, so each gets the same packages and the same pinned versions.
#
#   scripts/setup.sh            OpenCL on the CPU (PoCL and the ICD loader), clinfo, and the
#                               graders' tools: Oclgrind, valgrind, bubblewrap, and g++ (which
#                               builds the Oclgrind plugin that counts bank conflicts)
#   scripts/setup.sh --rust     also a C toolchain and, when cargo is not found, Rust (rustup)
#   scripts/setup.sh --book     also what builds the book: mdBook, Node.js with npm, and the
#                               MathJax pinned in book/package-lock.json (into book/node_modules)
#   scripts/setup.sh --rusticl  also Mesa's OpenCL driver (rusticl), a second implementation
#   scripts/setup.sh --ci       also what .ci/run's own checks use: Chromium (the book's page
#                               test), zip and unzip (the Gradescope bundle), python3-venv
#   scripts/setup.sh --check    installs nothing: lists what is missing, fails if anything is
#
# Flags combine. System packages come from the distribution's own archive (apt-get); mdBook
# and Rust, which Debian does not ship at the versions the course needs, at the versions below.
# Run as root, or as a user with sudo.
set -euo pipefail

# The pinned versions. Rust: any stable release at least the `rust-version` of Cargo.toml.
MDBOOK_VERSION=0.5.4
RUST_TOOLCHAIN=stable

BASE=(pocl-opencl-icd ocl-icd-libopencl1 clinfo oclgrind valgrind bubblewrap g++)
RUST=(build-essential curl ca-certificates)
BOOK=(nodejs npm)
RUSTICL=(mesa-opencl-icd)
CI=(chromium zip unzip python3-venv)

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

rust=0 book=0 rusticl=0 ci=0 check=0
for arg in "$@"; do
    case $arg in
    --rust) rust=1 ;;
    --book) book=1 ;;
    --rusticl) rusticl=1 ;;
    --ci) ci=1 ;;
    --check) check=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "setup.sh: unknown flag $arg" >&2; usage >&2; exit 2 ;;
    esac
done

course=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

say() { printf 'setup: %s\n' "$*"; }

as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        echo "setup.sh: installing needs root; run it as root or install sudo" >&2
        exit 1
    fi
}

installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

# The packages wanted, less those installed. A command already on PATH stands for its package
# where it may come from elsewhere (Node.js from NodeSource ships npm inside its nodejs).
wanted=("${BASE[@]}")
[ $rust = 1 ] && wanted+=("${RUST[@]}")
if [ $book = 1 ] && ! { command -v node >/dev/null && command -v npm >/dev/null; }; then
    wanted+=("${BOOK[@]}")
fi
[ $rusticl = 1 ] && wanted+=("${RUSTICL[@]}")
if [ $ci = 1 ]; then
    for p in "${CI[@]}"; do
        if [ "$p" = chromium ] && { [ -n "${CHROMIUM:-}" ] || command -v chromium >/dev/null; }; then
            continue
        fi
        wanted+=("$p")
    done
fi

missing=()
if command -v dpkg-query >/dev/null; then
    for p in "${wanted[@]}"; do installed "$p" || missing+=("$p"); done
else
    missing=("${wanted[@]}")
fi

mdbook_ok() { mdbook --version 2>/dev/null | grep -q " v$MDBOOK_VERSION\$"; }
cargo_bin() { command -v cargo || { [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ] && echo "${CARGO_HOME:-$HOME/.cargo}/bin/cargo"; }; }
mathjax_version() {
    node -e "console.log(require(process.argv[1]).$1)" "$2" 2>/dev/null || true
}
mathjax_ok() {
    local lock=$course/book/package-lock.json
    [ -f "$lock" ] || return 0 # the script alone, outside a checkout (a container's image)
    local want have
    want=$(mathjax_version "packages['node_modules/mathjax'].version" "$lock")
    have=$(mathjax_version version "$course/book/node_modules/mathjax/package.json")
    [ -n "$want" ] && [ "$want" = "$have" ]
}

if [ $check = 1 ]; then
    status=0
    if [ ${#missing[@]} -gt 0 ]; then say "missing packages: ${missing[*]}"; status=1; fi
    if [ $rust = 1 ] && [ -z "$(cargo_bin)" ]; then say "missing: Rust (cargo)"; status=1; fi
    if [ $book = 1 ] && ! mdbook_ok; then say "missing: mdBook $MDBOOK_VERSION"; status=1; fi
    if [ $book = 1 ] && ! mathjax_ok; then say "missing: MathJax in book/node_modules"; status=1; fi
    [ $status = 0 ] && say "everything asked for is installed"
    exit $status
fi

if [ ${#missing[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null; then
        echo "setup.sh: needs apt-get (Debian or Ubuntu) to install: ${missing[*]}." >&2
        echo "The book's chapter \"Setting up\" says what to install elsewhere." >&2
        exit 1
    fi
    say "installing ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ $rust = 1 ] && [ -z "$(cargo_bin)" ]; then
    say "installing Rust ($RUST_TOOLCHAIN) with rustup"
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
        sh -s -- -y --profile minimal --default-toolchain "$RUST_TOOLCHAIN"
    say "Rust is in ${CARGO_HOME:-$HOME/.cargo}/bin: open a new shell, or run . \"${CARGO_HOME:-$HOME/.cargo}/env\""
fi

if [ $book = 1 ]; then
    if ! mdbook_ok; then
        cargo=$(cargo_bin) || { echo "setup.sh: mdBook is built with cargo: add --rust, or install Rust first" >&2; exit 1; }
        say "installing mdBook $MDBOOK_VERSION (cargo install: minutes)"
        "$cargo" install mdbook --version "=$MDBOOK_VERSION" --locked
    fi
    if ! mathjax_ok; then
        say "installing MathJax from book/package-lock.json"
        npm ci --prefix "$course/book" --no-audit --no-fund
    fi
fi

# What OpenCL sees: PoCL's CPU device at least.
clinfo -l

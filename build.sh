#!/usr/bin/env bash
# The one entry point: set up what is missing, build the extension, test it, run it.
#
#   ./build.sh            install missing tools, build the unpacked extension (load the repository root)
#   ./build.sh test       build, then every test: cargo test, wasm tests in headless Chrome, end to end
#   ./build.sh run ...    build, then run a task headlessly (./build.sh run --help)
#   ./build.sh bench      build, then benchmark the page map on ../shared/corpus: time, exact tokens (bench/results/)
#   ./build.sh bench requests   build, then measure each request's tokens by part and agent, full and compact
#   ./build.sh bench steps      build, then measure the agent's own time per step, outside the model
#   ./build.sh bench notebook   build, then measure tokens per step against items collected into a file
#   ./build.sh bench real-model build, then run the shop task on a small local model held to each
#                               request's JSON schema by llama.cpp (slow, bounded; bench/results/)
#   ./build.sh eval ...   build, then measure a model on a task suite (./build.sh eval --help)
#   ./build.sh install-mcp   build the MCP host, register it with Chrome and Chromium, print app configs
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"

WASM_TARGET=wasm32-unknown-unknown
CORE_OUT=extension/core
# The BPE vocabularies the core loads at run time for exact token counts (not compiled in).
VOCAB_OUT=extension/vocab
WASM_ARTIFACT="target/$WASM_TARGET/release/agent_wasm.wasm"
# Our own temp folder, so Chromium and chromedriver profiles do not pile up in /tmp.
export TMPDIR="$ROOT/.tmp"
mkdir -p "$TMPDIR"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The wasm-bindgen version in Cargo.lock; the CLI must match it exactly.
locked_wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

ensure_rust_tools() {
  command -v cargo >/dev/null || die "cargo is missing: install Rust with rustup (https://rustup.rs) and run this again."
  if ! rustup target list --installed | grep -qx "$WASM_TARGET"; then
    say "Adding the $WASM_TARGET target"
    rustup target add "$WASM_TARGET"
  fi
  [ -f Cargo.lock ] || cargo generate-lockfile
  local want have
  want="$(locked_wasm_bindgen_version)"
  have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
  if [ "$have" != "$want" ]; then
    say "Installing wasm-bindgen-cli $want (matches Cargo.lock; takes several minutes once)"
    # No --locked: its lockfile pins crates some registry mirrors lack.
    cargo install wasm-bindgen-cli --version "$want" --force
  fi
}

ensure_npm_packages() {
  command -v npm >/dev/null || die "npm is missing: install Node.js 20 or newer and run this again."
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "Installing npm packages from package-lock.json"
    npm ci --no-audit --no-fund
  fi
}

ensure_test_tools() {
  if ! command -v wasm-pack >/dev/null; then
    say "Installing wasm-pack (takes a few minutes once)"
    # Unoptimised: it only runs cargo and the test runner, and builds in half the time (a fresh
    # run compiles it while the build tools compile too, on two cores).
    cargo install wasm-pack --locked --debug
  fi
  ensure_chromium
}

# chromium-l10n holds the browser's languages other than English, for the tests of the
# extension's other languages.
ensure_chromium() {
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! dpkg -s chromium-l10n >/dev/null 2>&1; then
    say "Installing Chromium, chromedriver and Chromium's languages from Debian"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver chromium-l10n >/dev/null
  fi
}

# Copies o200k_base and cl100k_base from the tiktoken-rs crate that Cargo.lock pins (cargo
# metadata fetches it if needed) into extension/vocab/, checking them against OpenAI's published
# SHA-256 of each file.
install_vocabularies() {
  local assets file want
  assets="$(cargo metadata --format-version 1 | node -e '
    let json = "";
    process.stdin.on("data", (chunk) => (json += chunk)).on("end", () => {
      const crate = JSON.parse(json).packages.find((p) => p.name === "tiktoken-rs");
      if (!crate) { console.error("tiktoken-rs is not in Cargo.lock"); process.exit(1); }
      console.log(require("path").join(require("path").dirname(crate.manifest_path), "assets"));
    });')" || die "could not find the tiktoken-rs crate's vocabulary files (cargo metadata)"
  mkdir -p "$VOCAB_OUT"
  for file in o200k_base.tiktoken cl100k_base.tiktoken; do
    case "$file" in
      o200k_base.tiktoken) want=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d ;;
      cl100k_base.tiktoken) want=223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7 ;;
    esac
    if ! cmp -s "$assets/$file" "$VOCAB_OUT/$file"; then
      say "Copying the $file vocabulary into $VOCAB_OUT"
      [ -f "$assets/$file" ] || die "$assets/$file is missing"
      [ "$(sha256sum "$assets/$file" | cut -d' ' -f1)" = "$want" ] || die "$assets/$file is not OpenAI's $file"
      cp "$assets/$file" "$VOCAB_OUT/$file.tmp" && mv "$VOCAB_OUT/$file.tmp" "$VOCAB_OUT/$file"
    fi
  done
}

build() {
  ensure_build_tools
  build_core
}

ensure_build_tools() {
  ensure_rust_tools
  ensure_npm_packages
  install_vocabularies
}

# The core for the extension: the release wasm, its bindings, then wasm-opt. Most of it runs on
# one core (LTO in one codegen unit; wasm-opt from npm is binaryen compiled to wasm).
build_core() {
  say "Building the core (release)"
  cargo build --release --target "$WASM_TARGET" -p agent-wasm
  if [ -f "$CORE_OUT/agent_wasm_bg.wasm" ] && [ "$CORE_OUT/agent_wasm_bg.wasm" -nt "$WASM_ARTIFACT" ]; then
    say "Core is up to date"
    return
  fi
  say "Generating bindings and optimising the wasm"
  rm -rf "$CORE_OUT"
  wasm-bindgen --target web --no-typescript --out-dir "$CORE_OUT" "$WASM_ARTIFACT"
  node_modules/.bin/wasm-opt -O3 --enable-reference-types --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals \
    "$CORE_OUT/agent_wasm_bg.wasm" -o "$CORE_OUT/agent_wasm_bg.wasm"
  say "Built: load $ROOT as an unpacked extension (chrome://extensions, Developer mode, Load unpacked)"
}

MCP_HOST_BINARY="target/release/rust-browser-agent-mcp"

build_mcp_host() {
  command -v cargo >/dev/null || die "cargo is missing: install Rust with rustup (https://rustup.rs) and run this again."
  say "Building the MCP host (release)"
  cargo build --release -p agent-native-host
}

# Writes the native messaging host manifest (for this user only) where Chrome and Chromium look
# for it, then shows how to add the server to the common MCP clients.
install_mcp() {
  build_mcp_host
  local binary dirs dir
  binary="$ROOT/$MCP_HOST_BINARY"
  case "$(uname -s)" in
    Darwin) dirs=("$HOME/Library/Application Support/Google/Chrome/NativeMessagingHosts"
                  "$HOME/Library/Application Support/Chromium/NativeMessagingHosts") ;;
    *) dirs=("${XDG_CONFIG_HOME:-$HOME/.config}/google-chrome/NativeMessagingHosts"
             "${XDG_CONFIG_HOME:-$HOME/.config}/chromium/NativeMessagingHosts") ;;
  esac
  for dir in "${dirs[@]}"; do
    mkdir -p "$dir"
    "$binary" --manifest "$binary" > "$dir/com.rust_browser_agent.mcp.json"
    say "Registered the host for the browser in $dir"
  done
  cat <<EOF

Turn on "Let AI apps use the agent (MCP)" in the extension's settings and restart the browser,
then add the server to your app:

  Claude Desktop (claude_desktop_config.json) or Cursor (~/.cursor/mcp.json):
    { "mcpServers": { "browser-agent": { "command": "$binary" } } }

  Claude Code:
    claude mcp add browser-agent -- "$binary"
EOF
}

# Runs a function in the background, its output kept in $TMPDIR/NAME.log; `finish_job NAME`
# waits for it and shows that output.
declare -A JOBS
start_job() {
  local name=$1
  shift
  ( "$@" ) > "$TMPDIR/$name.log" 2>&1 &
  JOBS[$name]=$!
}
finish_job() {
  local name=$1 status=0
  wait "${JOBS[$name]}" || status=$?
  cat "$TMPDIR/$name.log" >&2
  [ "$status" = 0 ] || die "$name failed (exit $status; its output is above)"
}

# Every test. A 2-core machine is kept busy: the test tools install while the build tools do, and
# the core (mostly one core's work) builds while the native tests use the other.
run_tests() {
  start_job test-tools ensure_test_tools
  ensure_build_tools
  start_job core build_core
  say "Format and lints"
  cargo fmt --all -- --check
  cargo clippy --workspace --all-targets --quiet -- -D warnings
  say "Native tests (cargo test)"
  cargo test --workspace
  # Built unoptimised and for the whole workspace, examples included, so that it shares what
  # `cargo test --workspace` just compiled (same profile, same features): seconds, where a release
  # build (LTO) or a build of one package (other features) compiles everything again, minutes on a
  # 2-core machine. The examples are the core's request schemas, which grammar.test.mjs reads.
  say "The MCP host and the core's examples (debug), for the end-to-end tests"
  cargo build --workspace --bins --examples
  finish_job test-tools
  finish_job core
  say "Wasm tests in headless Chrome (wasm-pack test)"
  # --mode no-install: a version mismatch fails clearly instead of downloading a runner.
  CHROMEDRIVER="$(command -v chromedriver)" wasm-pack test --headless --chrome --mode no-install crate/wasm
  say "End-to-end tests in headless Chromium"
  # Two files at a time: much of a test is waiting for a page or a request. A test that hangs
  # fails after 10 minutes, and a file whose tests are over exits even when something it opened
  # is still listening, so a hang cannot stall the run.
  node --test --test-concurrency=2 --test-timeout=600000 --test-force-exit tests/e2e/
}

# MiniWoB++'s task pages for `./build.sh eval --suite miniwob`: the PyPI wheel of the version
# pinned in runner/eval/miniwob-pin.txt (version, then the wheel's SHA-256), unpacked into .tmp/miniwob/.
ensure_miniwob() {
  local version sha dir wheels wheel
  { read -r version; read -r sha; } < runner/eval/miniwob-pin.txt
  dir="$TMPDIR/miniwob/$version"
  [ -f "$dir/miniwob/html/core/core.js" ] && return
  command -v python3 >/dev/null || die "python3 is missing: MiniWoB++'s pages come from PyPI (apt-get install python3 python3-pip)"
  say "Installing MiniWoB++ $version's pages from PyPI into $dir"
  wheels="$TMPDIR/miniwob-wheel"
  rm -rf "$wheels" "$dir.part"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --dest "$wheels" "miniwob==$version" \
    || die "pip could not download miniwob==$version from PyPI (is PyPI reachable? pip install --upgrade pip may help)"
  wheel="$wheels/miniwob-$version-py3-none-any.whl"
  [ "$(sha256sum "$wheel" | cut -d' ' -f1)" = "$sha" ] || die "$wheel is not the miniwob $version wheel pinned in runner/eval/miniwob-pin.txt (its SHA-256 differs)"
  python3 -m zipfile -e "$wheel" "$dir.part" && mv "$dir.part" "$dir"
  rm -rf "$wheels"
}

# True when the eval's arguments ask for the MiniWoB++ suite.
wants_miniwob() {
  local previous="" arg
  for arg in "$@"; do
    [ "$arg" = "--suite=miniwob" ] || { [ "$previous" = "--suite" ] && [ "$arg" = miniwob ]; } && return 0
    previous="$arg"
  done
  return 1
}

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }

BENCH_USAGE='usage: ./build.sh bench [--runs N] [--filter TEXT] [--window WIDTHxHEIGHT (1280x720)] [--save-maps DIR]
                                                      the page map on ../shared/corpus, its exact tokens
       ./build.sh bench requests                      each request'"'"'s tokens by part and agent, full and compact
       ./build.sh bench steps [--runs N]              the agent'"'"'s own time per step, outside the model
       ./build.sh bench notebook                      tokens per step against items collected into a file
       ./build.sh bench eval-tokens [--parallel N]    input tokens per step and per task on the eval suite, by agent
       ./build.sh bench real-model [--max-steps N] [--max-tokens N] [--planning-interval N]
                                   [--request-minutes M] [--total-minutes M]
                                                      the shop task on a small local model (slow)
Each builds first; results go to bench/results/.'

# --help anywhere after a command that takes no other options answers at once, building nothing
# (run and eval answer it themselves, after the build).
wants_help() {
  local arg
  for arg in "$@"; do case "$arg" in -h|--help) return 0 ;; esac; done
  return 1
}
if [ $# -gt 0 ] && wants_help "${@:2}"; then
  case "$1" in
    build|test|install-mcp) usage; exit 0 ;;
    bench) echo "$BENCH_USAGE"; exit 0 ;;
  esac
fi

case "${1:-build}" in
  build) build ;;
  test) run_tests ;;
  run) shift; build; ensure_chromium; exec node runner/cli.mjs "$@" ;;
  eval) shift; build; ensure_chromium; if wants_miniwob "$@"; then ensure_miniwob; fi; exec node runner/eval/cli.mjs "$@" ;;
  bench)
    shift; build; ensure_chromium
    if [ "${1:-}" = requests ]; then shift; exec node bench/request-sizes.mjs "$@"; fi
    if [ "${1:-}" = steps ]; then shift; exec node bench/step-time.mjs "$@"; fi
    if [ "${1:-}" = real-model ]; then shift; exec node bench/real-model.mjs "$@"; fi
    if [ "${1:-}" = notebook ]; then shift; exec node bench/notebook.mjs "$@"; fi
    if [ "${1:-}" = eval-tokens ]; then shift; exec node bench/eval-tokens.mjs "$@"; fi
    exec node bench/page-map.mjs "$@" ;;
  install-mcp) install_mcp ;;
  -h|--help|help) usage ;;
  *) echo "unknown command: $1 (use build, test, run, eval, bench or install-mcp)" >&2; exit 2 ;;
esac

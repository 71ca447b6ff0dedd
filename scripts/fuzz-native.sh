#!/usr/bin/env bash
# Sanitizer fuzzing of hookd's C programs (docs/fuzzing.md): builds a fuzz target with
# gcc -fsanitize=address,undefined and runs it with a seed. Linux.
#
#   scripts/fuzz-native.sh spawner [--seed N] [--minutes M | --seconds S] [--cases N] [--process-cases N]
#                                  [--out DIR] [--spawner-source FILE] [-v]
#   scripts/fuzz-native.sh client [--seed N] [--minutes M | --seconds S] [--cases N] [--out DIR]
#                                 [--client-source FILE] [-v]
#   scripts/fuzz-native.sh <target> --seed N --replay FILE --case K [--out DIR]   (one saved case again)
#
# Targets: spawner (native/hookd-spawner.c in the fuzzer's own process, then as its own process on a
# sixth of the time: --process-cases, default a fifth of --cases; 0 skips it), spawner-process (that
# second part alone), client (native/hookd-client.c, a forked child per case, against a fake daemon).
# Without --cases, --seconds or --minutes: 60 seconds. Builds go to --out (default .tmp/fuzz), a
# failing input to <out>/crashes/. Exit code: 0 no failure, 1 a failure (its seed, case and saved input
# printed), 2 no usable compiler or a usage error, 3 a set-up problem, 211 a sanitizer report. FUZZ_CC
# picks the compiler (default gcc); temporary runtime dirs go to $TMPDIR (default /tmp).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
fuzz_dir="$root/test/fuzz"
cc=${FUZZ_CC:-gcc}
flags=(-std=gnu99 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1
  -Wall -Wextra -Werror)

usage() {
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[ $# -ge 1 ] || usage
target=$1
shift
seed='' cases='' seconds='' process_cases='' out="$root/.tmp/fuzz" replay='' replay_case=0 verbose=()
spawner_source="$root/native/hookd-spawner.c"
client_source="$root/native/hookd-client.c"
need() { [ $# -ge 2 ] && [ -n "$2" ] || { echo "fuzz-native: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case $1 in
    --seed) need "$@"; seed=$2; shift 2 ;;
    --cases) need "$@"; cases=$2; shift 2 ;;
    --process-cases) need "$@"; process_cases=$2; shift 2 ;;
    --seconds) need "$@"; seconds=$2; shift 2 ;;
    --minutes) need "$@"; seconds=$(($2 * 60)); shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --spawner-source) need "$@"; spawner_source=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --client-source) need "$@"; client_source=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --replay) need "$@"; replay=$2; shift 2 ;;
    --case) need "$@"; replay_case=$2; shift 2 ;;
    -v) verbose=(-v); shift ;;
    *) usage ;;
  esac
done
case $target in spawner | spawner-process | client) ;; *) usage ;; esac
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
if [ -z "$cases" ] && [ -z "$seconds" ]; then seconds=60; fi

# A compiler that builds with both sanitizers, or a clear error (CI installs gcc and libc6-dev; gcc brings
# libasan and libubsan).
# The builds and the saved inputs are private: a new --out is created 0700, an existing one must be the
# user's and writable by no one else (not /tmp itself).
private_dir() {
  local owner mode
  [ -d "$1" ] || mkdir -p -m 700 "$1"
  read -r owner mode < <(stat -c '%u %a' "$1")
  if [ "$owner" != "$(id -u)" ] || (((8#$mode & 8#022) != 0)); then
    echo "fuzz-native: $1 must be a directory of yours that no one else can write (--out)" >&2
    exit 2
  fi
}
private_dir "$out"
out=$(cd "$out" && pwd)
private_dir "$out/crashes"
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "fuzz-native: no $cc: the sanitizer fuzzing needs gcc with AddressSanitizer and UBSan" \
    "(Debian: apt-get install gcc libc6-dev; FUZZ_CC names another compiler)" >&2
  exit 2
fi
printf 'int main(void) { return 0; }\n' >"$out/probe.c"
if ! probe_error=$("$cc" "${flags[@]}" -o "$out/probe" "$out/probe.c" 2>&1) || ! "$out/probe"; then
  echo "fuzz-native: $cc cannot build with -fsanitize=address,undefined (libasan or libubsan missing?)" \
    "(Debian: apt-get install gcc libc6-dev): ${probe_error%%$'\n'*}" >&2
  exit 2
fi

# No fuzzed input may run a program: every exec-like call of a program under test must be one its fuzz
# build replaces (-Wl,--wrap=<name>, test/fuzz/fake-exec.c), or it is not built.
check_execs() { # check_execs <source> <wrapped names...>
  local source=$1 name
  shift
  for name in $(grep -oE '\b(exec[lv]p?e?|fexecve|posix_spawnp?|system|popen)[[:space:]]*\(' "$source" |
    tr -d ' \t(' | sort -u); do
    case " $* " in
      *" $name "*) ;;
      *) echo "fuzz-native: $source calls $name(), which its fuzz build does not replace: not built" >&2; exit 3 ;;
    esac
  done
}

# build <output> <sources...> [-- flags...]: rebuilt when a fuzz source, the program under test, this
# script or the flags changed.
build() {
  local output=$1 stale=0 f
  shift
  local -a sources=() extra=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do sources+=("$1"); shift; done
  [ $# -gt 0 ] && shift && extra=("$@")
  [ -e "$output" ] || stale=1
  for f in "$fuzz_dir"/*.[ch] "$root/native/hookd-wire.h" "$spawner_source" "$client_source" "$0"; do
    [ "$f" -nt "$output" ] && stale=1
  done
  [ "$(cat "$output.flags" 2>/dev/null)" = "${extra[*]}" ] || stale=1
  [ $stale = 0 ] && return 0
  # -I native: a source given elsewhere (--spawner-source, --client-source) still finds hookd-wire.h.
  "$cc" "${flags[@]}" -I"$fuzz_dir" -I"$root/native" "${extra[@]}" -o "$output" "${sources[@]}"
  printf '%s' "${extra[*]}" >"$output.flags"
}

# run <program> <driver target> <cases> <seconds> <corpus> [more driver options...]
run() {
  local program=$1 t=$2 n=$3 s=$4 corpus=$5
  shift 5
  local -a budget=(--cases "${n:-4000000000}")
  [ -n "$s" ] && budget+=(--seconds "$s")
  # What a replay needs besides the seed and the case (printed with a failure).
  local hint=" --out $out"
  [ "$spawner_source" = "$root/native/hookd-spawner.c" ] || hint+=" --spawner-source $spawner_source"
  [ "$client_source" = "$root/native/hookd-client.c" ] || hint+=" --client-source $client_source"
  local -a opts=(--target "$t" --seed "$seed" --crash-dir "$out/crashes" --replay-hint "$hint" "$@")
  if [ -n "$replay" ]; then
    exec "$program" "${opts[@]}" --replay "$replay" --case "$replay_case"
  fi
  "$program" "${opts[@]}" "${budget[@]}" --corpus "$fuzz_dir/corpus/$corpus" "${verbose[@]}"
}

# The time of a two-part target: five sixths to the first part.
first_seconds='' second_seconds=''
if [ -n "$seconds" ]; then
  second_seconds=$(((seconds + 5) / 6))
  first_seconds=$((seconds - second_seconds))
  [ "$first_seconds" -ge 1 ] || first_seconds=1
fi

# One entry per program under test: its build, then its driver targets. A new target is a harness in
# test/fuzz/, seeds in test/fuzz/corpus/<name>/, an entry here and one in
# test/integration/fuzz/native-sanitizers.heavy.test.ts.
wrap=(-Wl,--wrap=execve)
common=("$fuzz_dir/driver.c" "$fuzz_dir/sanitizer-options.c" "$fuzz_dir/fake-exec.c")
case $target in
  spawner | spawner-process)
    check_execs "$spawner_source" execve
    program="$out/fuzz-spawner"
    build "$program" "${common[@]}" "$fuzz_dir/spawner-model.c" "$fuzz_dir/spawner-inproc.c" \
      "$fuzz_dir/spawner-process.c" -- "-DSPAWNER_SOURCE=\"$spawner_source\"" "${wrap[@]}"
    if [ "$target" = spawner ]; then
      run "$program" spawner "$cases" "$first_seconds" spawner
      [ -n "$process_cases" ] || [ -z "$cases" ] || process_cases=$(((cases + 4) / 5))
      [ "$process_cases" != 0 ] || exit 0
      cases=$process_cases seconds=$second_seconds
    fi
    # The program itself, unchanged but for its execve (the stub).
    build "$out/hookd-spawner-fuzz" "$spawner_source" "$fuzz_dir/fake-exec.c" "$fuzz_dir/sanitizer-options.c" \
      -- "${wrap[@]}"
    run "$program" spawner-process "$cases" "$seconds" spawner --program "$out/hookd-spawner-fuzz"
    ;;
  client)
    # Its execvp (the Node path) is the fake Node path of client-harness.c; a smaller quarantine keeps
    # the fork of each case cheap.
    check_execs "$client_source" execvp
    program="$out/fuzz-client"
    build "$program" "$fuzz_dir/driver.c" "$fuzz_dir/sanitizer-options.c" "$fuzz_dir/client-model.c" \
      "$fuzz_dir/client-harness.c" -- "-DCLIENT_SOURCE=\"$client_source\"" \
      '-DFUZZ_ASAN_MORE="quarantine_size_mb=16"' -Wl,--wrap=execvp
    run "$program" client "$cases" "$seconds" client
    ;;
esac

#!/bin/bash
# hookd fast client (issue 12; docs/hook.md, "The fast client").
#
# Run by absolute path, as the agent's hook command: /bin/bash /abs/bin/hookd-client.bash --agent droid
# It hands the event (the stdin bytes, the environment, umask, cwd, parent pid) to the running daemon's
# loopback listener (daemon.fastListener), prints the daemon's answer and exits with its code. Falls
# back to the Node path (`node dist/hookd.cjs hook "$@"`, same stdin bytes) ONLY when the daemon did
# not acknowledge the event, so no command ever runs twice.
#
# Cheap on purpose: one fork on the common path (the subshell that copies stdin with cat); everything
# else is a bash builtin. No daemon (no listener file, a refused connection, no greeting in time): the
# Node path with the agent's stdin untouched.
# bash 3.2 (macOS) compatible, checked by test/unit/fast-client-script.test.ts: no `read -t` fractions,
# no mapfile, no ${var@Q}, no associative arrays, no `;&`, no ${var,,}.
# Event data never becomes shell text here: it is copied by cat and sent with printf '%s'.

__hk_cv=2 # this script's version; the daemon serves a range of them (FAST_CLIENT_VERSIONS)
__hk_dir=${BASH_SOURCE[0]%/*}
__hk_node=${HOOKD_NODE:-node}
__hk_wait=${HOOKD_CLIENT_WAIT_S:-2}
case $__hk_wait in '' | *[!0-9]*) __hk_wait=2 ;; esac

# The Node path with stdin as it is (the agent's own, untouched).
__hk_node_path() {
  exec 3>&-
  exec "$__hk_node" "$__hk_dir/../dist/hookd.cjs" hook "$@"
}
# The Node path with the private copy as its stdin; it unlinks the copy once it has checked the path.
__hk_fallback() {
  exec 3>&-
  HOOKD_CLIENT_STDIN_COPY=$__hk_in exec "$__hk_node" "$__hk_dir/../dist/hookd.cjs" hook "$@" < "$__hk_in"
}

if [ -n "$HOOKD_RUNTIME_DIR" ]; then
  __hk_rt=$HOOKD_RUNTIME_DIR
elif [ -n "$XDG_RUNTIME_DIR" ]; then
  __hk_rt=$XDG_RUNTIME_DIR/hookd
elif [ -n "$HOOKD_STATE_DIR" ]; then
  __hk_rt=$HOOKD_STATE_DIR/run
elif [ -n "$XDG_STATE_HOME" ]; then
  __hk_rt=$XDG_STATE_HOME/hookd/run
else
  __hk_rt=$HOME/.local/state/hookd/run
fi
__hk_file=$__hk_rt/hookd.fast

if [ "$HOOKD" = 0 ] || [ -L "$__hk_file" ] || [ ! -f "$__hk_file" ] || [ -L "$__hk_rt" ]; then
  __hk_node_path "$@"
fi
read -r __hk_port __hk_dsec __hk_tok __hk_proto __hk_gen < "$__hk_file" 2> /dev/null
case $__hk_port in '' | *[!0-9]*) __hk_node_path "$@" ;; esac
if [ -z "$__hk_dsec" ] || [ -z "$__hk_tok" ]; then __hk_node_path "$@"; fi

__hk_agent=-
if [ "$1" = --agent ] && [ -n "$2" ]; then __hk_agent=$2; fi
case $__hk_agent in droid | claude) ;; *) __hk_agent=- ;; esac

# Connect and let the daemon speak first: nothing is sent to a listener that does not know its secret
# (a stale port bound by someone else), and stdin is not touched until it does.
trap "" PIPE
{ exec 3<> "/dev/tcp/127.0.0.1/$__hk_port"; } 2> /dev/null || __hk_node_path "$@"
IFS=' ' read -r -t "$__hk_wait" __hk_hello __hk_got <&3 || __hk_node_path "$@"
if [ "$__hk_hello" != HOOKD-FAST ] || [ "$__hk_got" != "$__hk_dsec" ]; then __hk_node_path "$@"; fi

# The environment: on Linux the daemon reads it from /proc/<pid>/environ (exactly what the agent gave
# this process); elsewhere the names go to a private file and a builtin loop sends NAME=value entries.
__hk_env=list
if [ "$HOOKD_CLIENT_PROC" != 0 ] && [ -r "/proc/$$/environ" ]; then __hk_env=proc; fi
printf '%s\n%s %s %s\n%s\n%s %s %s\n' "$__hk_tok" 2 "$__hk_cv" "${__hk_gen:--}" "$__hk_agent" \
  "$$" "$PPID" "$__hk_env" >&3 2> /dev/null || __hk_node_path "$@"
umask >&3 2> /dev/null || __hk_node_path "$@"

# The one fork: stdin, whole, into a private file (umask 077, created exclusively) in the runtime dir.
__hk_in=$__hk_rt/c.$$.$RANDOM$RANDOM
if [ $__hk_env = proc ]; then
  (umask 077 && set -C && exec cat > "$__hk_in") 2> /dev/null || __hk_fallback "$@"
  printf '%s\0%s\0\0' "$PWD" "$__hk_in" >&3 2> /dev/null || __hk_fallback "$@"
else
  (umask 077 && set -C && compgen -e > "$__hk_in.n" && exec cat > "$__hk_in") 2> /dev/null ||
    __hk_fallback "$@"
  __hk_kv=("$PWD" "$__hk_in")
  while IFS= read -r __hk_name; do
    __hk_kv[${#__hk_kv[@]}]="$__hk_name=${!__hk_name}"
  done < "$__hk_in.n"
  printf '%s\0' "${__hk_kv[@]}" '' >&3 2> /dev/null || __hk_fallback "$@"
fi

# ACK (the daemon took the event), DENY (versions, caps) or LOCAL (a command must run in this process
# tree); no answer in time (a stopped daemon): the Node path. A daemon that reads this request later
# finds the connection closed and never runs it.
IFS=' ' read -r -t "$__hk_wait" __hk_ack __hk_id <&3 || __hk_fallback "$@"
[ "$__hk_ack" = ACK ] || __hk_fallback "$@"
# A GO that cannot be written never reached the daemon: it did not run the event.
printf 'GO\n' >&3 2> /dev/null || __hk_fallback "$@"

# From here on the event is the daemon's, never run again by the Node path.
if ! IFS=' ' read -r __hk_r __hk_code __hk_olen __hk_elen <&3 || [ "$__hk_r" != RESULT ]; then
  printf 'hookd: the daemon went away while running the event (%s)\n' "$__hk_id" >&2
  exit 1
fi
case "$__hk_code$__hk_olen$__hk_elen" in '' | *[!0-9]*) exit 1 ;; esac
if [ "$__hk_olen" -eq 0 ] && [ "$__hk_elen" -eq 0 ]; then exit "$__hk_code"; fi
if [ "$__hk_olen" -gt 0 ] && [ "$__hk_elen" -gt 0 ]; then
  # Both (rare): split the rest of the stream by the announced lengths.
  __hk_out=$__hk_rt/o.$$.$RANDOM$RANDOM
  (umask 077 && set -C && exec cat <&3 > "$__hk_out")
  head -c "$__hk_olen" "$__hk_out"
  tail -c "$__hk_elen" "$__hk_out" >&2
  rm -f "$__hk_out"
  exit "$__hk_code"
fi
if [ "$__hk_code" = 0 ]; then
  if [ "$__hk_olen" -gt 0 ]; then exec cat <&3; fi
  exec cat <&3 >&2
fi
if [ "$__hk_olen" -gt 0 ]; then cat <&3; else cat <&3 >&2; fi
exit "$__hk_code"

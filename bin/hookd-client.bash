#!/bin/bash
# Shell options from the agent's environment (SHELLOPTS=xtrace would print the token on stderr), and the
# posix mode the installed command starts bash in (`bash --posix`: no BASH_ENV file run first), off.
{ set +o xtrace +o verbose +o posix +o allexport +o errexit +o errtrace +o functrace +o keyword +o noclobber +o noglob +o nounset +o onecmd +o pipefail; } 2> /dev/null
# Names this script uses for itself (__hk_*) in the agent's environment: the Node path, which forwards
# them as they are (here they would be overwritten, and sent with this script's values).
if [ -n "${!__hk_*}" ]; then exec "${HOOKD_NODE:-node}" "${BASH_SOURCE[0]%/*}/../dist/hookd.cjs" hook "$@"; fi
# hookd fast client (issue 12; docs/hook.md, "The fast client").
#
# Run by absolute path, as the agent's hook command: /bin/bash /abs/bin/hookd-client.bash --agent droid
# It hands the event (the stdin bytes, the environment, umask, cwd, parent pid) to the running daemon's
# loopback listener (daemon.fastListener), prints the daemon's answer and exits with its code. Falls
# back to the Node path (`node dist/hookd.cjs hook "$@"`, same stdin bytes) ONLY when the daemon did
# not acknowledge the event, so no command ever runs twice.
#
# Cheap on purpose: on Linux no fork at all for a stdin under 4 KiB (the common case), else one (cat);
# elsewhere one more, $(compgen -e). No daemon (no listener file, a refused connection, no greeting in
# time): the Node path with the agent's stdin untouched.
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
# The Node path with the private copy as its stdin (written now when stdin went inline); it unlinks the
# copy once it has checked the path.
# After an ACK, HOOKD_FAST_EVENT_ID is the id the daemon acknowledged (its in-flight record's): the Node
# path's event takes it, so the journal keeps the event once (src/hook/fast-event-id.ts); before, empty.
__hk_fallback() {
  exec 3>&-
  if [ "$__hk_path" = - ]; then
    (umask 077 && set -C && exec > "$__hk_in" && printf '%s' "$__hk_body") 2> /dev/null
  fi
  HOOKD_FAST_EVENT_ID=$__hk_fid HOOKD_CLIENT_STDIN_COPY=$__hk_in exec "$__hk_node" "$__hk_dir/../dist/hookd.cjs" hook "$@" < "$__hk_in"
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
# `read -u 3`, not `<&3`: a redirection is a dozen system calls. The greeting line keeps its timeout
# to the end (a peer that is not the daemon may send part of a line and stall).
IFS=' ' read -r -u 3 -t "$__hk_wait" __hk_hello __hk_got || __hk_node_path "$@"
if [ "$__hk_hello" != HOOKD-FAST ] || [ "$__hk_got" != "$__hk_dsec" ]; then __hk_node_path "$@"; fi

# The environment: on Linux the daemon reads it from /proc/<pid>/environ (exactly what the agent gave
# this process); elsewhere a builtin loop sends NAME=value entries for the names `compgen -e` lists.
__hk_env=list
if [ "$HOOKD_CLIENT_PROC" != 0 ] && [ -r "/proc/$$/environ" ]; then __hk_env=proc; fi
{ printf '%s\n%s %s %s\n%s\n%s %s %s\n' "$__hk_tok" 2 "$__hk_cv" "${__hk_gen:--}" "$__hk_agent" \
  "$$" "$PPID" "$__hk_env" && umask; } >&3 2> /dev/null || __hk_node_path "$@"

# stdin: up to 4 KiB is read by the builtin (a byte per system call, cheaper than a fork at that size;
# LC_ALL=C so that -n and ${#} count bytes) and sent inline. All of stdin read, and no NUL byte in it:
# no fork, no file. Else what was read, and the rest by cat (the one fork), go to a private file (umask
# 077, created exclusively) in the runtime dir, which the daemon reads.
__hk_in=$__hk_rt/c.$$.$RANDOM$RANDOM
__hk_lc=${LC_ALL-__hk_unset}
LC_ALL=C
__hk_body=
IFS= read -r -d '' -n 4096 __hk_body
__hk_more=$? # 0: a NUL byte or 4 KiB stopped the read; else the end of stdin
if [ $__hk_more = 0 ]; then
  if [ ${#__hk_body} -lt 4096 ]; then __hk_nul='\0'; else __hk_nul=; fi
  if [ "$__hk_lc" = __hk_unset ]; then unset LC_ALL; else LC_ALL=$__hk_lc; fi
  (umask 077 && set -C && exec > "$__hk_in" && printf "%s$__hk_nul" "$__hk_body" && exec cat) 2> /dev/null ||
    __hk_fallback "$@"
  __hk_body=
  __hk_path=$__hk_in
else
  if [ "$__hk_lc" = __hk_unset ]; then unset LC_ALL; else LC_ALL=$__hk_lc; fi
  __hk_path=-
fi
if [ $__hk_env = proc ] && [ $__hk_path = - ]; then
  # The common case in one write: cwd, no copy, the end of the (empty) list, the stdin inline.
  printf '%s\0-\0\0%s\0' "$PWD" "$__hk_body" >&3 2> /dev/null || __hk_fallback "$@"
elif [ $__hk_env = proc ]; then
  printf '%s\0%s\0\0' "$PWD" "$__hk_path" >&3 2> /dev/null || __hk_fallback "$@"
else
  # Names are identifiers (no blanks, no glob characters): split as words. One fork (no exec).
  __hk_kv=("$PWD" "$__hk_path")
  for __hk_name in $(compgen -e); do
    __hk_kv[${#__hk_kv[@]}]="$__hk_name=${!__hk_name}"
  done
  printf '%s\0' "${__hk_kv[@]}" '' >&3 2> /dev/null || __hk_fallback "$@"
  if [ $__hk_path = - ]; then printf '%s\0' "$__hk_body" >&3 2> /dev/null || __hk_fallback "$@"; fi
fi

# ACK (the daemon took the event), DENY (versions, caps) or LOCAL (a command must run in this process
# tree); no answer in time (a stopped daemon): the Node path. A daemon that reads this request later
# finds the connection closed and never runs it.
# Only the first byte is waited for with a timeout (`read -t` costs three more system calls per byte):
# the daemon, whose greeting matched, writes each answer line in one write.
IFS= read -r -u 3 -t "$__hk_wait" -n 1 __hk_c || __hk_fallback "$@"
IFS=' ' read -r -u 3 __hk_ack __hk_lost __hk_id || __hk_fallback "$@"
{ [ "$__hk_c" = A ] && [ "$__hk_ack" = CK ]; } || __hk_fallback "$@"
# The exit code if the daemon goes away from here on: 2 when a guard of the event fails closed, else 1.
[ "$__hk_lost" = 2 ] || __hk_lost=1
# A GO that cannot be written never reached the daemon: it did not run the event (it wrote the event's
# in-flight record: the Node path takes the event under the acknowledged id).
__hk_fid=$__hk_id
printf 'GO\n' >&3 2> /dev/null || __hk_fallback "$@"

# From here on the event is the daemon's, never run again by the Node path.
if ! IFS=' ' read -r -u 3 __hk_r __hk_code __hk_olen __hk_elen || [ "$__hk_r" != RESULT ]; then
  printf 'hookd: the daemon went away while running the event (%s)\n' "$__hk_id" >&2
  exit $__hk_lost
fi
case "$__hk_code$__hk_olen$__hk_elen" in '' | *[!0-9]*) exit $__hk_lost ;; esac
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

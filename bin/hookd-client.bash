#!/bin/bash
# hookd fast client (experimental, issue 12; docs/hook.md, "The fast client").
#
# Run by absolute path, as the agent's hook command: /bin/bash /abs/bin/hookd-client.bash --agent droid
# It forwards the event (raw stdin bytes, the environment bash exports, umask, cwd, parent pid) to the
# running daemon's loopback listener (daemon.fastListener), prints the daemon's answer and exits with
# its code. Works with bash 3.2. Falls back to the Node path (`node dist/hookd.cjs hook "$@"`, same
# stdin bytes) ONLY when the daemon did not acknowledge the event, so no command ever runs twice.
#
# Event data never becomes shell text here: it is only copied (cat) and sent with printf '%s'.

__hk_dir=${BASH_SOURCE[0]%/*}
__hk_node=${HOOKD_NODE:-node}
__hk_wait=${HOOKD_CLIENT_WAIT_S:-2}
case $__hk_wait in '' | *[!0-9]*) __hk_wait=2 ;; esac

# The Node path, with stdin as it is now (the agent's pipe, or the saved copy).
__hk_node_path() {
  exec "$__hk_node" "$__hk_dir/../dist/hookd.cjs" hook "$@"
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

# No listener file (no daemon, or its listener is off): the Node path with the agent's stdin untouched.
if [ "$HOOKD" = 0 ] || [ -L "$__hk_file" ] || [ ! -f "$__hk_file" ] || [ -L "$__hk_rt" ]; then
  __hk_node_path "$@"
fi
read -r __hk_port __hk_dsec __hk_tok < "$__hk_file" 2>/dev/null
case $__hk_port in '' | *[!0-9]*) __hk_node_path "$@" ;; esac
if [ -z "$__hk_dsec" ] || [ -z "$__hk_tok" ]; then __hk_node_path "$@"; fi

__hk_agent=-
if [ "$1" = --agent ] && [ -n "$2" ]; then __hk_agent=$2; fi
case $__hk_agent in droid | claude) ;; *) __hk_agent=- ;; esac

# The stdin bytes, whole, into a private file (created exclusively, umask 077) in the private runtime
# dir; then the request head (token, agent, umask, parent pid, stdin length, cwd, environment) into
# another. No command substitution: each costs a fork of bash.
__hk_in=$__hk_rt/c.$$.$RANDOM$RANDOM
__hk_names=$__hk_in.n
__hk_req=$__hk_in.r
__hk_fallback() {
  exec 3>&-
  if [ -f "$__hk_in" ]; then exec 0< "$__hk_in"; fi
  rm -f "$__hk_in" "$__hk_names" "$__hk_req"
  trap - HUP INT TERM
  __hk_node_path "$@"
}
trap 'rm -f "$__hk_in" "$__hk_names" "$__hk_req"; exit 129' HUP
trap 'rm -f "$__hk_in" "$__hk_names" "$__hk_req"; exit 130' INT
trap 'rm -f "$__hk_in" "$__hk_names" "$__hk_req"; exit 143' TERM
set -C
{ umask > "$__hk_names"; } 2> /dev/null || __hk_fallback "$@"
read -r __hk_umask < "$__hk_names"
umask 077
if ! cat > "$__hk_in"; then
  umask "$__hk_umask"
  __hk_fallback "$@"
fi
compgen -e >| "$__hk_names"
{
  printf '%s\n%s\n%s\n%s\n' "$__hk_tok" "$__hk_agent" "$__hk_umask" "$PPID"
  wc -c < "$__hk_in"
  printf '%s\0' "$PWD"
  while IFS= read -r __hk_name; do
    printf '%s=%s\0' "$__hk_name" "${!__hk_name}"
  done < "$__hk_names"
  printf '\0'
} > "$__hk_req" || __hk_fallback "$@"
set +C
umask "$__hk_umask"

trap "" PIPE
{ exec 3<> "/dev/tcp/127.0.0.1/$__hk_port"; } 2> /dev/null || __hk_fallback "$@"
# The daemon speaks first; nothing is sent to a listener that does not know its secret.
IFS=' ' read -r -t "$__hk_wait" __hk_proto __hk_got <&3 || __hk_fallback "$@"
if [ "$__hk_proto" != HOOKD-FAST1 ] || [ "$__hk_got" != "$__hk_dsec" ]; then __hk_fallback "$@"; fi
cat "$__hk_req" "$__hk_in" >&3 2> /dev/null
IFS=' ' read -r -t "$__hk_wait" __hk_ack __hk_id <&3 || __hk_fallback "$@"
[ "$__hk_ack" = ACK ] || __hk_fallback "$@"

# Acknowledged: from here on the event is the daemon's, never run again by the Node path.
printf 'GO\n' >&3
rm -f "$__hk_in" "$__hk_names" "$__hk_req"
trap - HUP INT TERM
if ! IFS=' ' read -r __hk_r __hk_code __hk_olen __hk_elen <&3 || [ "$__hk_r" != RESULT ]; then
  printf 'hookd: the daemon went away while running the event (%s)\n' "$__hk_id" >&2
  exit 1
fi
case "$__hk_code$__hk_olen$__hk_elen" in '' | *[!0-9]*) exit 1 ;; esac
if [ "$__hk_olen" -gt 0 ] && [ "$__hk_elen" -gt 0 ]; then
  __hk_out=$__hk_rt/o.$$.$RANDOM$RANDOM
  umask 077
  set -C
  cat <&3 > "$__hk_out"
  set +C
  head -c "$__hk_olen" "$__hk_out"
  tail -c "$__hk_elen" "$__hk_out" >&2
  rm -f "$__hk_out"
elif [ "$__hk_olen" -gt 0 ]; then
  cat <&3
elif [ "$__hk_elen" -gt 0 ]; then
  cat <&3 >&2
fi
exit "$__hk_code"

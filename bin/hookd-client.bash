#!/bin/bash
# The retired bash fast client of older hookd versions. Agent settings written by them run this file;
# it now runs the Node path (`hookd hook`), which is always safe. Re-run `hookd install` to wire the
# native client instead (docs/hook.md, "The fast client"). bash cannot reach the daemon's unix socket or
# check who listens on it, so no bash client talks to the daemon any more.
{ set +o xtrace +o verbose +o posix +o allexport +o errexit +o nounset; } 2> /dev/null
HOOKD_CLIENT_PROTOCOL=bash exec "${HOOKD_NODE:-node}" "${BASH_SOURCE[0]%/*}/../dist/hookd.cjs" hook "$@"

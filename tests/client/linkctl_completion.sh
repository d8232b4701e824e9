#!/usr/bin/env bash
# linkctl completion bash|zsh: each script is valid shell, and each shell's
# completion offers the expected candidates for typed lines: subcommands,
# flags (the verb's and, after it, the global ones), nested subcommands, and
# world names from a real linkaged (also through --server typed on the line),
# none and no error output without a server.
#   bash: _linkctl driven with COMP_WORDS/COMP_CWORD, split as bash splits
#         (at ':' and '=');
#   zsh:  the real completion system (compinit) in an interactive zsh in a
#         pseudo-terminal, the line typed and Tab pressed (zsh_complete.zsh).
set -u
source "$(dirname "$0")/common.sh" "$@"
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$WORK"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# linkctl by its own name on PATH, as users run it (zsh asks `linkctl world list`).
mkdir bin && ln -s "$LINKCTL" bin/linkctl
export PATH="$WORK/bin:$PATH"
linkctl world create lab >/dev/null && linkctl world create lab2 >/dev/null || fail "creating worlds"

# --- bash ---
linkctl completion bash >linkctl.bash || fail "linkctl completion bash exited $?"
bash -n linkctl.bash || fail "the bash script does not parse"

# bash_candidates WORD...: the sorted candidates for the last WORD (already split as bash does).
bash_candidates() {
  bash -c 'source ./linkctl.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _linkctl
           printf "%s\n" "${COMPREPLY[@]}" | sort | xargs' _ "$@" 2>bash.err
  [ -s bash.err ] && fail "bash completion wrote to stderr for '$*': $(cat bash.err)"
}
# bash_expect WANT WORD...: the candidates are exactly WANT (space-separated, sorted).
bash_expect() {
  local want=$1; shift
  local got; got=$(bash_candidates "$@")
  [ "$got" == "$want" ] || fail "bash: '$*' offers '$got', wanted '$want'"
}

bash_expect "world" linkctl wo
bash_expect "watch world" linkctl w
bash_expect "create delete fork get list update watch" linkctl world ""
bash_expect "apply" linkctl batch ""
bash_expect "bash zsh" linkctl completion ""
bash_expect "--rate" linkctl world watch --r
bash_expect "--seconds --server" linkctl world watch --s         # the verb's flag and a global one
bash_expect "--mass" linkctl body add --ma
bash_expect "" linkctl body add --mass ""                        # a number: nothing (bash offers file names)
bash_expect "" linkctl world create ""                           # a new world's name: nothing
bash_expect "default lab lab2" linkctl world get ""
bash_expect "lab lab2" linkctl world watch --rate 5 l           # a flag's value is not a positional
bash_expect "lab lab2" linkctl --world l
bash_expect "lab lab2" linkctl --world = l                       # --world=l
bash_expect "=default =lab =lab2" linkctl --world =              # --world=
bash_expect "lab lab2" linkctl world fork l
bash_expect "" linkctl world fork lab l                          # the copy's new name
bash_expect "lab lab2" linkctl body list --world l               # a global flag after the verb
(
  failures=0
  # The server named on the line (split at ':' as bash does), not in the environment.
  unset LINKCTL_SERVER
  bash_expect "lab lab2" linkctl --server 127.0.0.1 : "$PORT" world delete l
  bash_expect "lab lab2" linkctl -s 127.0.0.1 : "$PORT" world delete l
  # No server: no names, no error output, within the half second it is given.
  start=$(date +%s%N)
  LINKCTL_SERVER=127.0.0.1:1 bash_expect "" linkctl world get ""
  ms=$((($(date +%s%N) - start) / 1000000))
  [ $ms -lt 3000 ] || fail "bash: completing without a server took $ms ms"
  exit $failures
) || failures=$((failures + $?))

# --- zsh ---
if ! command -v zsh >/dev/null; then
  fail "zsh is not installed (scripts/setup.sh installs it)"
else
  linkctl completion zsh >_linkctl || fail "linkctl completion zsh exited $?"
  zsh -n _linkctl || fail "the zsh script does not parse"
  head -1 _linkctl | grep -qx '#compdef linkctl' || fail "the zsh script does not start with #compdef linkctl"

  # zsh_expect WANT LINE: zsh's completion of LINE offers exactly WANT (sorted).
  zsh_expect() {
    local got
    got=$(timeout 20 zsh "$HERE/zsh_complete.zsh" "$WORK/_linkctl" "$2" 2>zsh.err | sort | xargs)
    [ "$got" == "$1" ] || fail "zsh: '$2' offers '$got', wanted '$1' $(head -c 300 zsh.err)"
  }
  zsh_expect "watch world" "linkctl w"
  zsh_expect "create delete fork get list update watch" "linkctl world "
  zsh_expect "bash zsh" "linkctl completion "
  zsh_expect "--seconds --server" "linkctl world watch --s"
  zsh_expect "default lab lab2" "linkctl world get "
  zsh_expect "lab lab2" "linkctl --world l"
  zsh_expect "--world=lab --world=lab2" "linkctl --world=la"
  (
    failures=0
    unset LINKCTL_SERVER
    zsh_expect "lab lab2" "linkctl --server 127.0.0.1:$PORT world watch --rate 5 l"
    LINKCTL_SERVER=127.0.0.1:1 zsh_expect "" "linkctl world delete "
    exit $failures
  ) || failures=$((failures + $?))
fi

if [ $failures -ne 0 ]; then echo "$failures completion check(s) failed"; exit 1; fi
echo "bash and zsh complete linkctl"

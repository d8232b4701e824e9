#!/usr/bin/env zsh
# zsh_complete.zsh SCRIPT LINE: the candidates zsh's own completion system
# offers at the end of LINE, one per line, after loading the completion
# script SCRIPT (the way a user does: compinit, then source it).
#
# An interactive zsh runs in a pseudo-terminal (zsh/zpty); LINE is typed
# followed by a Tab. Its compadd is wrapped to print each match it is given
# (after the real compadd's own matching against what was typed), between
# two marker lines printed before and after completion; the shell then exits.
emulate -L zsh
zmodload zsh/zpty || { print -u2 "zsh_complete: no zsh/zpty"; exit 2; }
local script=$1 line=$2

# The setup, sourced in one line (the interactive shell reads it all at once).
local setup=$(mktemp)
trap 'rm -f $setup' EXIT
# compinit first (it empties compprefuncs and comppostfuncs), its dump beside
# the script: made by the first run, read by the next.
print -r -- "autoload -Uz compinit && compinit -u -d ${(q)script:h}/.zcompdump" >$setup
cat >>$setup <<'SETUP'
PROMPT= RPROMPT=
unset zle_bracketed_paste
zmodload zsh/zutil
bindkey '^I' complete-word
zstyle ':completion:*' insert-tab false
marker() { print -r -- '@@marker@@' }
compprefuncs=(marker)
comppostfuncs=(marker exit)
compadd() {
  # A call that asks for the matches (-O, -A, -D) is the completion system's own.
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a hits
  local -A pre
  builtin compadd -A hits "$@"
  zparseopts -E -A pre P: p:
  local h
  for h in $hits; do print -r -- "$IPREFIX${pre[-P]}${pre[-p]}$h"; done
}
SETUP
print -r -- "source ${(q)script}" >>$setup
print -r -- "print -r -- @@ready@@" >>$setup

zpty shell zsh -f -i
zpty -w shell "source ${(q)setup}"
local out
while zpty -r shell out; do [[ $out == @@ready@@* ]] && break; done

zpty -w -n shell "$line"$'\t'
local inside=0
while zpty -r shell out; do
  out=${out%$'\r\n'}
  out=${out%$'\n'}
  if [[ $out == *@@marker@@* ]]; then
    (( inside )) && break
    inside=1
    continue
  fi
  (( inside )) && print -r -- "$out"
done
zpty -d shell

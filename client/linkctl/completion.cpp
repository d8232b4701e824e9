// completion bash|zsh: the app's commands and flags as shell tables, and the
// one function per shell that walks a command line over them.
#include "completion.hpp"

#include <iostream>
#include <vector>

#include "linkctl.hpp"

namespace linkage::linkctl {
namespace {

struct Flag {
  std::vector<std::string> names;  // "-s", "--server"
  std::string description;
  bool value = false;  // takes a value (a flag without one is a switch)
  bool world = false;  // the value is a world's name
};

// One command of the tree; `path` is the words that reach it ("linkctl world create").
struct Command {
  std::string path;
  std::vector<std::pair<std::string, std::string>> subcommands;  // name, description
  std::vector<Flag> flags;
  std::vector<std::string> positionals;  // each one's type name, in order ("WORLD", "TEXT", ...)
};

bool is_world(const CLI::Option* opt) { return opt->get_type_name().rfind("WORLD", 0) == 0; }

// Hidden commands and flags (CLI11's empty group) are left out, as in --help.
void collect(CLI::App* app, const std::string& path, std::vector<Command>& out) {
  Command c{.path = path, .subcommands = {}, .flags = {}, .positionals = {}};
  for (const CLI::Option* opt : app->get_options()) {
    if (opt->get_group().empty()) continue;
    if (!opt->nonpositional()) {
      c.positionals.push_back(is_world(opt) ? "WORLD" : "OTHER");
      continue;
    }
    Flag f{.names = {}, .description = opt->get_description(), .value = opt->get_expected_max() > 0,
           .world = is_world(opt)};
    for (const std::string& s : opt->get_snames()) f.names.push_back("-" + s);
    for (const std::string& l : opt->get_lnames()) f.names.push_back("--" + l);
    c.flags.push_back(std::move(f));
  }
  const std::vector<CLI::App*> subs = app->get_subcommands([](CLI::App* sub) { return !sub->get_group().empty(); });
  for (CLI::App* sub : subs) c.subcommands.emplace_back(sub->get_name(), sub->get_description());
  out.push_back(std::move(c));
  for (CLI::App* sub : subs) collect(sub, path + " " + sub->get_name(), out);
}

// The root's flags that say how to reach the server, passed on to `world
// list` when completing a world's name. Not --json and --timeout: the script
// reads the human table and gives the server half a second.
std::vector<std::string> connection_flags(const Command& root) {
  std::vector<std::string> names;
  for (const Flag& f : root.flags) {
    if (f.world) continue;
    for (const std::string& n : f.names)
      if (n != "--json" && n != "--timeout" && n != "--help" && n != "-h") names.push_back(n);
  }
  return names;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::vector<std::string> flag_names(const Command& c, bool Flag::*which = nullptr) {
  std::vector<std::string> names;
  for (const Flag& f : c.flags)
    if (which == nullptr || f.*which) names.insert(names.end(), f.names.begin(), f.names.end());
  return names;
}

// Any text as one shell word: '...', or $'...' (bash and zsh both read it)
// for text with quotes, backslashes or newlines.
std::string quoted(const std::string& text) {
  if (text.find_first_of("'\\\n") == std::string::npos) return "'" + text + "'";
  std::string out = "$'";
  for (char ch : text) {
    if (ch == '\\' || ch == '\'') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + "'";
}

// The tables both scripts walk: per command, its subcommands, flags, flags
// that take a value, flags whose value is a world, and positional types.
// `described`: the subcommand and flag lists as "name:description" lines
// (zsh's _describe); else names separated by spaces.
std::string tables(const std::vector<Command>& commands, bool described) {
  std::string subs, flags, valued, worlds, positionals;
  auto entry = [](const std::string& key, const std::string& value) {
    return "  [" + quoted(key) + "]=" + quoted(value) + "\n";
  };
  auto described_entry = [](const std::string& key, const std::string& value) {
    // zsh's assignment form: key value pairs.
    return "  " + quoted(key) + " " + quoted(value) + "\n";
  };
  for (const Command& c : commands) {
    std::vector<std::string> sub_words, flag_words;
    for (const auto& [name, description] : c.subcommands)
      sub_words.push_back(described ? name + ":" + description : name);
    for (const Flag& f : c.flags)
      for (const std::string& n : f.names) flag_words.push_back(described ? n + ":" + f.description : n);
    const std::string sep = described ? "\n" : " ";
    std::string sub_text, flag_text;
    for (const std::string& w : sub_words) sub_text += (sub_text.empty() ? "" : sep) + w;
    for (const std::string& w : flag_words) flag_text += (flag_text.empty() ? "" : sep) + w;
    auto add = described ? described_entry : entry;
    subs += add(c.path, sub_text);
    flags += add(c.path, flag_text);
    valued += add(c.path, " " + join(flag_names(c, &Flag::value)) + " ");
    worlds += add(c.path, " " + join(flag_names(c, &Flag::world)) + " ");
    positionals += add(c.path, join(c.positionals));
  }
  const std::string conn = quoted(" " + join(connection_flags(commands.front())) + " ");
  if (described)
    return "typeset -gA _linkctl_subs _linkctl_flags _linkctl_valued _linkctl_worldflags _linkctl_positionals\n"
           "_linkctl_subs=(\n" + subs + ")\n_linkctl_flags=(\n" + flags + ")\n_linkctl_valued=(\n" + valued +
           ")\n_linkctl_worldflags=(\n" + worlds + ")\n_linkctl_positionals=(\n" + positionals +
           ")\ntypeset -g _linkctl_conn=" + conn + "\n";
  return "declare -gA _linkctl_subs=(\n" + subs + ")\ndeclare -gA _linkctl_flags=(\n" + flags +
         ")\ndeclare -gA _linkctl_valued=(\n" + valued + ")\ndeclare -gA _linkctl_worldflags=(\n" + worlds +
         ")\ndeclare -gA _linkctl_positionals=(\n" + positionals + ")\ndeclare -g _linkctl_conn=" + conn + "\n";
}

// The walk, the same in both shells: each word before the cursor either
// enters a subcommand (whose flags join those of the commands above it, as
// CLI11's fallthrough allows them after the verb), is a flag (one that takes
// a value swallows the next word; the connection flags are kept for `world
// list`), or is the next positional argument.
constexpr const char* kBash = R"BASH(
# The server's worlds, asked quietly: no server, no names (within half a second).
_linkctl_worlds() {
  "${COMP_WORDS[0]}" "$@" --timeout 0.5 world list 2>/dev/null | awk 'NR > 1 {print $1}'
}

_linkctl() {
  local i w words=()
  # Bash splits "host:port" and "--flag=value" at ':' and '=' (COMP_WORDBREAKS): join them again.
  for ((i = 0; i <= COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    if ((i > 1)) && [[ $w == [:=] || ${COMP_WORDS[i - 1]} == [:=] ]]; then
      words[${#words[@]} - 1]+=$w
    else
      words+=("$w")
    fi
  done
  local typed=${words[${#words[@]} - 1]} cur=${COMP_WORDS[COMP_CWORD]}
  unset 'words[${#words[@]} - 1]'

  local cmd=linkctl expect="" npos=0 conn=()
  local flags=${_linkctl_flags[linkctl]} valued=${_linkctl_valued[linkctl]} worldflags=${_linkctl_worldflags[linkctl]}
  for w in "${words[@]:1}"; do
    if [[ -n $expect ]]; then
      [[ $_linkctl_conn == *" $expect "* ]] && conn+=("$expect" "$w")
      expect=""
    elif [[ $w == -* ]]; then
      if [[ $w != *=* && $valued == *" $w "* ]]; then
        expect=$w
      elif [[ $_linkctl_conn == *" ${w%%=*} "* ]]; then
        conn+=("$w")
      fi
    elif [[ " ${_linkctl_subs[$cmd]} " == *" $w "* ]]; then
      cmd+=" $w"
      npos=0
      flags+=" ${_linkctl_flags[$cmd]}"
      valued+=${_linkctl_valued[$cmd]}
      worldflags+=${_linkctl_worldflags[$cmd]}
    else
      npos=$((npos + 1))
    fi
  done

  local candidates="" prefix="" value=$typed
  if [[ -n $expect ]]; then
    [[ $worldflags == *" $expect "* ]] && candidates=$(_linkctl_worlds "${conn[@]}")
  elif [[ $typed == -*=* ]]; then
    prefix=${typed%%=*}=
    value=${typed#*=}
    [[ $worldflags == *" ${typed%%=*} "* ]] && candidates=$(_linkctl_worlds "${conn[@]}")
  elif [[ $typed == -* ]]; then
    candidates=$flags
  else
    candidates=${_linkctl_subs[$cmd]}
    local kinds=(${_linkctl_positionals[$cmd]})
    [[ ${kinds[npos]} == WORLD ]] && candidates+=" $(_linkctl_worlds "${conn[@]}")"
  fi
  COMPREPLY=($(compgen -P "$prefix" -W "$candidates" -- "$value"))
  # Bash replaces only its own current word, which starts after the last ':' or '='.
  local before=${typed:0:${#typed}-${#cur}}
  [[ -n $before ]] && COMPREPLY=("${COMPREPLY[@]#"$before"}")
  return 0
}
# Nothing to offer (a file's name, a number): bash's own file name completion.
complete -o default -F _linkctl linkctl
)BASH";

constexpr const char* kZsh = R"ZSH(
# The server's worlds, asked quietly: no server, no names (within half a second).
_linkctl_worlds() {
  local -a names
  names=(${(f)"$(${words[1]} "$@" --timeout 0.5 world list 2>/dev/null | awk 'NR > 1 {print $1}')"})
  (( ${#names} )) && compadd -a names
}

_linkctl() {
  local cmd=linkctl expect="" npos=0 w
  local -a conn flags
  local valued=${_linkctl_valued[linkctl]} worldflags=${_linkctl_worldflags[linkctl]}
  flags=(${(f)_linkctl_flags[linkctl]})
  for w in "${(@Q)words[2,CURRENT-1]}"; do
    if [[ -n $expect ]]; then
      [[ $_linkctl_conn == *" $expect "* ]] && conn+=("$expect" "$w")
      expect=""
    elif [[ $w == -* ]]; then
      if [[ $w != *=* && $valued == *" $w "* ]]; then
        expect=$w
      elif [[ $_linkctl_conn == *" ${w%%=*} "* ]]; then
        conn+=("$w")
      fi
    elif (( ${${(f)_linkctl_subs[$cmd]}[(I)${(b)w}:*]} )); then
      cmd+=" $w"
      npos=0
      flags+=(${(f)_linkctl_flags[$cmd]})
      valued+=${_linkctl_valued[$cmd]}
      worldflags+=${_linkctl_worldflags[$cmd]}
    else
      npos=$((npos + 1))
    fi
  done

  if [[ -n $expect ]]; then
    if [[ $worldflags == *" $expect "* ]]; then _linkctl_worlds "${conn[@]}"; else _files; fi
  elif [[ $PREFIX == -*=* ]]; then
    local flag=${PREFIX%%=*}
    compset -P '*='
    if [[ $worldflags == *" $flag "* ]]; then _linkctl_worlds "${conn[@]}"; else _files; fi
  elif [[ $PREFIX == -* ]]; then
    _describe -t options 'option' flags
  else
    local -a subs kinds
    subs=(${(f)_linkctl_subs[$cmd]})
    kinds=(${=_linkctl_positionals[$cmd]})
    if (( ${#subs} )); then
      _describe -t commands 'command' subs
    elif [[ ${kinds[npos + 1]} == WORLD ]]; then
      _linkctl_worlds "${conn[@]}"
    else
      _files
    fi
  fi
}

# Autoloaded from fpath, this file is the function's body; sourced, it defines it.
if [[ $funcstack[1] == _linkctl ]]; then
  _linkctl "$@"
else
  compdef _linkctl linkctl
fi
)ZSH";

}  // namespace

std::string completion_script(CLI::App& app, const std::string& shell) {
  std::vector<Command> commands;
  collect(&app, app.get_name(), commands);
  if (shell == "zsh")
    return "#compdef " + app.get_name() +
           "\n# zsh completion for linkctl, written by `linkctl completion zsh` from its own commands\n"
           "# and flags. Save it as _linkctl in a directory on $fpath (before compinit runs),\n"
           "# or: source <(linkctl completion zsh)\n\n" +
           tables(commands, true) + kZsh;
  return "# bash completion for linkctl, written by `linkctl completion bash` from its own commands\n"
         "# and flags. source <(linkctl completion bash), or save it as\n"
         "# ~/.local/share/bash-completion/completions/linkctl\n\n" +
         tables(commands, false) + kBash;
}

void add_completion_command(CLI::App& app) {
  CLI::App* completion = command(app, "completion", "Print a shell completion script (bash or zsh)",
                                 "  source <(linkctl completion bash)\n"
                                 "  linkctl completion bash > ~/.local/share/bash-completion/completions/linkctl\n"
                                 "  linkctl completion zsh > ~/.zfunc/_linkctl    # with fpath=(~/.zfunc $fpath) before compinit");
  completion->require_subcommand(1);
  for (const char* shell : {"bash", "zsh"}) {
    command(*completion, shell, std::string("The ") + shell + " script, on standard output")
        ->callback([&app, shell] { std::cout << completion_script(app, shell); });
  }
}

}  // namespace linkage::linkctl

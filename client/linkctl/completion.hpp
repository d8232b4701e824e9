#pragma once
// Shell completion for linkctl, written from the CLI11 app itself: every
// command, flag and positional argument the app has, walked at the moment the
// script is printed, so the script cannot fall behind the commands.
//
// An argument typed "WORLD" (type_name) is a world's name: the scripts
// complete it with the names `linkctl world list` gives (asked quietly, with
// the connection flags typed on the line; no server, no names).

#include <CLI/CLI.hpp>

#include <string>

namespace linkage::linkctl {

// The script for `shell` ("bash" or "zsh") completing `app` (the root).
std::string completion_script(CLI::App& app, const std::string& shell);

// `completion bash|zsh`: prints the script of the root app.
void add_completion_command(CLI::App& app);

}  // namespace linkage::linkctl

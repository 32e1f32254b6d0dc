// What every command does with its command line: CLI11 parses, and usage
// errors end the same way everywhere: "<program>: <what is wrong>" on
// stderr, with a closest-match suggestion for a mistyped name, and exit 64.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gt {

struct CommandLine {
  std::string prog;  ///< "gpu-triage", "gpu-triage free": the error prefix
  std::vector<std::string>
      more_names;  ///< options accepted elsewhere (serve's own), for suggestions
};

/// Parses argv into app (which must allow extras: every word CLI11 does not
/// know is reported here, the first one, in the order given). nullopt: go
/// on; else the exit code to leave with, after printing: 0 for --help, 64
/// for a usage error.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const CommandLine& cl);

/// "<prog>: <message>" on stderr, the message shown (for_terminal: it may
/// quote a name, a path or input from outside): every error and warning a
/// command prints goes through here (tests/e2e/layering.sh).
void print_error(const std::string& prog, const std::string& message);

/// Prints "<prog>: <message>" and where to read the help; returns 64. With
/// `json` also the error object on stdout (json_error).
int usage_error(const std::string& prog, const std::string& message, bool json = false);

/// A command that failed before it had its answer: "<prog>: <message>" on
/// stderr and, when the caller asked for JSON, {"error": message,
/// "exit_code": code} on stdout (docs/json.md): JSON asked, JSON given.
/// Returns code.
int command_error(const std::string& prog, const std::string& message, int code, bool json);

/// Whether the command line asks for --json (a word before any "--"): a
/// usage error is answered in JSON too, though parsing did not finish.
bool asks_json(int argc, char** argv);

/// The app's option names as typed: "--json", "-V".
std::vector<std::string> option_names(const CLI::App& app);

/// A CLI11 check: a whole number from lo to hi, else a message that names
/// the text ("'abc' is not a whole number from 0 to 1024", "2000 is too
/// large (at most 1024)"). CLI11 puts the option's name in front.
CLI::Validator whole_number(uint64_t lo, uint64_t hi);

/// A CLI11 check for a library option (--nvml-lib, --cuda-lib): an empty
/// value (a variable that expanded to nothing) is refused, never read as
/// "the default", which would test another library than the operator named.
CLI::Validator library_path();

}  // namespace gt

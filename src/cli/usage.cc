#include "cli/usage.h"

#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/suggest.h"
#include "model/exit_code.h"
#include "util/json_text.h"
#include "util/numeric.h"
#include "util/terminal_text.h"

namespace gt {
namespace {

/// "unknown option '--jsn'; did you mean '--json'?" for the first word
/// CLI11 left over.
std::string unexpected(const std::string& word, const CLI::App& app, const CommandLine& cl) {
  if (word.size() > 1 && word[0] == '-') {
    std::vector<std::string> names = option_names(app);
    names.insert(names.end(), cl.more_names.begin(), cl.more_names.end());
    return "unknown option '" + word + "'" + did_you_mean(word, names);
  }
  return "unexpected argument '" + word + "'";
}

void print_json_error(const std::string& message, int code) {
  nlohmann::ordered_json j = {{"error", message}, {"exit_code", code}};
  std::cout << json_text(j, 2) << "\n" << std::flush;
}

}  // namespace

void print_error(const std::string& prog, const std::string& message) {
  std::cerr << prog << ": " << for_terminal(message) << "\n";
}

int usage_error(const std::string& prog, const std::string& message, bool json) {
  print_error(prog, message);
  std::cerr << "Run '" << prog << " --help' for more information.\n";
  if (json) print_json_error(message, static_cast<int>(ExitCode::kUsage));
  return static_cast<int>(ExitCode::kUsage);
}

int command_error(const std::string& prog, const std::string& message, int code, bool json) {
  print_error(prog, message);
  if (json) print_json_error(message, code);
  return code;
}

bool asks_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return false;
    if (std::strcmp(argv[i], "--json") == 0) return true;
  }
  return false;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const CommandLine& cl) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return usage_error(cl.prog, e.what(), asks_json(argc, argv));
  }
  std::vector<std::string> rest = app.remaining();
  if (rest.empty()) return std::nullopt;
  return usage_error(cl.prog, unexpected(rest.front(), app, cl), asks_json(argc, argv));
}

CLI::Validator whole_number(uint64_t lo, uint64_t hi) {
  const bool bounded = hi <= 1000000;  // else the bound is no news (a type's maximum)
  const std::string from_to =
      bounded ? " from " + std::to_string(lo) + " to " + std::to_string(hi) : "";
  return CLI::Validator(
      [lo, hi, from_to](std::string& text) -> std::string {
        const std::string shown = text.size() > 64 ? text.substr(0, 64) + "..." : text;
        bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits) return "'" + shown + "' is not a whole number" + from_to;
        std::optional<uint64_t> v = parse_int<uint64_t>(text);
        if (!v || *v > hi) return shown + " is too large (at most " + std::to_string(hi) + ")";
        if (*v < lo) return shown + " is too small (at least " + std::to_string(lo) + ")";
        return "";
      },
      bounded ? std::to_string(lo) + "-" + std::to_string(hi) : "");
}

CLI::Validator library_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "needs a library path or name, not ''" : "";
      },
      "LIB");
}

}  // namespace gt

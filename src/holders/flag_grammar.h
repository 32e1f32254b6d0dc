// A program of no known name (python3 serve.py, ./server, /app/main) is a
// server's when its arguments use flags that one server's own parser alone
// defines: a script of one's own built on vLLM's EngineArgs takes
// --kv-transfer-config, one on SGLang's ServerArgs --mem-fraction-static.
// Only flags unique to one parser decide (the parsers read are named in
// flag_grammar.cc); a flag several servers define (--tensor-parallel-size:
// vLLM, SGLang and Aphrodite alike; --gpu-memory-utilization: vLLM and
// Aphrodite) decides nothing, and flags of two servers at once decide
// nothing either. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gt {

/// What a command line's flags say of its kind.
struct FlagVerdict {
  std::optional<std::string> kind;  ///< the one server whose flags it uses; null: none or several
  std::vector<std::string> flags;   ///< the unique flags found ("--mem-fraction-static"), in order
  std::vector<std::string> kinds;  ///< every server one of them belongs to (two or more: undecided)
};

/// Reads the program's own arguments in `argv` (a whole command line:
/// after an interpreter and its script, or a process launcher's program,
/// holders/wrapper_command.h). Flags as "--flag V" or "--flag=V".
FlagVerdict kind_by_flags(const std::vector<std::string>& argv);

/// The identity note for a verdict with found flags: "kind vLLM by its
/// flags (--kv-transfer-config): serve.py is no entry point of vLLM's", or
/// why several kinds' flags decide nothing. "" when no unique flag was found.
std::string flag_verdict_note(const FlagVerdict& v, const std::string& program);

}  // namespace gt

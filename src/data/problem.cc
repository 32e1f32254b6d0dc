#include "data/problem.h"

namespace gt {

const char* problem_code_name(ProblemCode code) {
  switch (code) {
    case ProblemCode::kEmpty:
      return "empty";
    case ProblemCode::kTruncated:
      return "truncated";
    case ProblemCode::kZeroFilled:
      return "zero-filled";
    case ProblemCode::kChecksum:
      return "checksum";
    case ProblemCode::kMalformed:
      return "malformed";
    case ProblemCode::kSizeMismatch:
      return "size-mismatch";
    case ProblemCode::kNonFinite:
      return "non-finite";
    case ProblemCode::kNotRegular:
      return "not-regular";
  }
  return "malformed";
}

void note_unverifiable(FileCheck& check, std::string reason) {
  if (!check.unverifiable) check.unverifiable = std::move(reason);
}

}  // namespace gt

// Result<T>: a value or an Error with a kind and a context chain.
//
// Core code never throws across layers and never exits: a failure is a value
// that callers enrich on the way up ("reading GPU 3 PCIe link: ...").
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace gt {

enum class ErrorKind {
  kNotFound,
  kPermissionDenied,
  kMalformed,
  kUnsupported,
  kLibraryError,
  kTimeout,
  kIo,
};

/// Returns a stable lowercase word for `kind` ("not-found", ...).
const char* error_kind_name(ErrorKind kind);

struct Error {
  ErrorKind kind;
  std::string message;

  /// Returns a copy whose message is "<context>: <message>".
  Error with_context(const std::string& context) const {
    return Error{kind, context + ": " + message};
  }
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Result<void> equivalent.
struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

}  // namespace gt

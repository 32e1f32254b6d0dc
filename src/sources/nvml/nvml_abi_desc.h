// A type's ABI shape as a short string, so a function signature declared by
// our nvml_types.h/NvmlApi and one declared by NVIDIA's nvml.h can be
// compared from two translation units (the two headers cannot meet in one).
//
// The string keeps what the calling convention and the callee's writes
// depend on: integers by signedness and size ("u4", "s8"), enums by size
// ("e4"), floating point ("f8"), pointers with what they point to
// ("p(u4)"), const ("k"), complete structs and unions by size ("S68",
// "U8"), incomplete ones (NVML's handles) as "opaque", arrays by extent.
// Names are left out on purpose: NVIDIA's structs are named *_st, ours are
// anonymous typedefs. Deliberately header-only and free of any NVML header:
// tests/nvidia/abi_probe.cc includes it next to NVIDIA's nvml.h.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

namespace gt::abi {

template <typename T>
std::string describe_type();

namespace detail {

template <typename T>
concept Complete = requires {
  sizeof(T);
};

template <typename... Args>
std::string describe_args() {
  std::string out;
  ((out += (out.empty() ? "" : ",") + describe_type<Args>()), ...);
  return out;
}

template <typename F>
struct Fn;
template <typename R, typename... Args>
struct Fn<R(Args...)> {
  static std::string describe() {
    return describe_type<R>() + "(" + describe_args<Args...>() + ")";
  }
};

}  // namespace detail

template <typename T>
std::string describe_type() {
  if constexpr (std::is_const_v<T>) {
    return "k" + describe_type<std::remove_const_t<T>>();
  } else if constexpr (std::is_void_v<T>) {
    return "v";
  } else if constexpr (std::is_function_v<T>) {
    return detail::Fn<T>::describe();
  } else if constexpr (std::is_pointer_v<T>) {
    return "p(" + describe_type<std::remove_pointer_t<T>>() + ")";
  } else if constexpr (std::is_array_v<T>) {
    return "a" + std::to_string(std::extent_v<T>) + "(" + describe_type<std::remove_extent_t<T>>() +
           ")";
  } else if constexpr (!detail::Complete<T>) {
    return "opaque";
  } else if constexpr (std::is_enum_v<T>) {
    return "e" + std::to_string(sizeof(T));
  } else if constexpr (std::is_same_v<T, char>) {
    return "c1";
  } else if constexpr (std::is_integral_v<T>) {
    return (std::is_signed_v<T> ? "s" : "u") + std::to_string(sizeof(T));
  } else if constexpr (std::is_floating_point_v<T>) {
    return "f" + std::to_string(sizeof(T));
  } else if constexpr (std::is_union_v<T>) {
    return "U" + std::to_string(sizeof(T));
  } else {
    return "S" + std::to_string(sizeof(T));
  }
}

}  // namespace gt::abi

#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "triton_jit/dtype.h"

namespace triton_jit {

// A device pointer with an explicit Triton element type: the form for fp16, bf16, fp8 and any
// element type that has no C++ type of its own.
struct TypedPtr {
  const void* ptr = nullptr;
  DType dtype = DType::u8;
  // The buffer's size in bytes, 0 when unknown. Needed only where the runtime itself writes the
  // buffer: an autotuned kernel's reset_to_zero and restore_value arguments while tuning.
  uint64_t bytes = 0;
};

struct TensorDescriptor;

// A dtype for a tl.constexpr parameter as torch spells it: torch.float16, what `x.dtype` is in
// Python. A plain DType given to a constexpr parameter is Triton's dtype (tl.float16); Triton
// keys the two apart, so they compile to distinct kernels.
struct TorchDType {
  DType dtype = DType::fp32;
};

// One argument of a call, tagged with what Python would see: None, bool, int, float, a pointer,
// a string, a dtype or a host tensor descriptor. This is the dynamic form every call goes through;
// templates only build it.
class ArgValue {
 public:
  // New kinds go at the end: the values are part of the key's codes.
  enum class Kind : uint8_t { None, Bool, Int, UInt, Float, Pointer, String, DType, TensorDesc };

  constexpr ArgValue() noexcept : kind_(Kind::None), dtype_(DType::u8), extent_hi_(0), len_(0), u_(0) {}

  static constexpr ArgValue none() noexcept { return ArgValue(); }
  static constexpr ArgValue boolean(bool v) noexcept { return ArgValue(Kind::Bool, v ? 1u : 0u); }
  static constexpr ArgValue integer(int64_t v) noexcept { return ArgValue(Kind::Int, static_cast<uint64_t>(v)); }
  // Values that fit int64 are stored as Int so a value means the same whatever its C++ type.
  static constexpr ArgValue unsigned_integer(uint64_t v) noexcept {
    return v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? ArgValue(Kind::Int, v)
                                                                           : ArgValue(Kind::UInt, v);
  }
  static ArgValue floating(double v) noexcept {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return ArgValue(Kind::Float, bits);
  }
  // `bytes`: the buffer's size when known (see TypedPtr::bytes), kept up to 2^46 - 1; 0 when
  // unknown. A known size also decides Triton's HIP range flag ('S': at most 2^31 - 1 bytes).
  static ArgValue pointer(const void* p, DType dtype, uint64_t bytes = 0) noexcept {
    ArgValue a(Kind::Pointer, reinterpret_cast<uintptr_t>(p));
    a.dtype_ = dtype;
    if (bytes != 0) a.set_extent(bytes, bytes);
    return a;
  }
  // A pointer into a framework's storage of `storage_bytes` bytes (torch's untyped_storage(),
  // what Triton's HIP backend measures), of which the argument spans `bytes` (0: unknown, as
  // for a view with gaps). The storage's size is known even when it is 0.
  static ArgValue pointer_in_storage(const void* p, DType dtype, uint64_t bytes, uint64_t storage_bytes) noexcept {
    ArgValue a(Kind::Pointer, reinterpret_cast<uintptr_t>(p));
    a.dtype_ = dtype;
    a.set_extent(bytes, storage_bytes);
    return a;
  }
  static ArgValue pointer_address(uint64_t address, DType dtype) noexcept {
    ArgValue a(Kind::Pointer, address);
    a.dtype_ = dtype;
    return a;
  }
  // Only the view is kept: the characters must outlive the call.
  static ArgValue string(std::string_view s) noexcept {
    ArgValue a(Kind::String, reinterpret_cast<uintptr_t>(s.data()));
    a.len_ = static_cast<uint32_t>(s.size());
    return a;
  }

  // A dtype, for tl.constexpr parameters only: Triton's (tl.float16) or torch's (torch.float16).
  // The 64 bits hold the dtype, and bit 8 the torch spelling.
  static constexpr ArgValue triton_dtype(DType dtype) noexcept {
    ArgValue a(Kind::DType, static_cast<uint64_t>(dtype));
    a.dtype_ = dtype;
    return a;
  }
  static constexpr ArgValue torch_dtype(DType dtype) noexcept {
    ArgValue a(Kind::DType, static_cast<uint64_t>(dtype) | kTorchSpelling);
    a.dtype_ = dtype;
    return a;
  }
  // Only the address is kept: the descriptor must outlive the call (tensor_descriptor.h).
  // `dtype`: the element type of the descriptor's base.
  static ArgValue tensor_descriptor(const TensorDescriptor* d, DType dtype) noexcept {
    ArgValue a(Kind::TensorDesc, reinterpret_cast<uintptr_t>(d));
    a.dtype_ = dtype;
    return a;
  }

  Kind kind() const noexcept { return kind_; }
  bool as_bool() const noexcept { return u_ != 0; }
  int64_t as_int() const noexcept { return static_cast<int64_t>(u_); }
  uint64_t as_uint() const noexcept { return u_; }
  double as_float() const noexcept {
    double v;
    std::memcpy(&v, &u_, sizeof v);
    return v;
  }
  uint64_t address() const noexcept { return u_; }
  // A pointer's buffer size in bytes; 0 when unknown.
  uint64_t extent() const noexcept {
    return kind_ == Kind::Pointer ? (static_cast<uint64_t>(extent_hi_ & kExtentHiMask) << 32 | len_) : 0;
  }
  // Whether the pointer lies in a buffer known to hold at most 2^31 - 1 bytes: Triton's HIP
  // backend then specializes it with 'S' (HIPBackend.is_within_2gb). False when the size is unknown.
  bool within_2gb() const noexcept { return kind_ == Kind::Pointer && (extent_hi_ & kRangeBits) == kRangeBits; }
  const TensorDescriptor* as_tensor_descriptor() const noexcept {
    return reinterpret_cast<const TensorDescriptor*>(static_cast<uintptr_t>(u_));
  }
  DType dtype() const noexcept { return dtype_; }  // of a pointer, a dtype or a descriptor's base
  bool is_torch_dtype() const noexcept { return kind_ == Kind::DType && (u_ & kTorchSpelling) != 0; }
  std::string_view as_string() const noexcept {
    return std::string_view(reinterpret_cast<const char*>(static_cast<uintptr_t>(u_)), len_);
  }
  // The raw 64 bits: integer value, float bits, address, string data pointer or dtype.
  uint64_t bits() const noexcept { return u_; }

 private:
  static constexpr uint64_t kTorchSpelling = uint64_t{1} << 8;
  // extent_hi_'s top bits: the buffer's size is known, and it is at most 2^31 - 1 bytes.
  static constexpr uint16_t kSizeKnown = 0x8000, kWithin2GiB = 0x4000, kRangeBits = kSizeKnown | kWithin2GiB;
  static constexpr uint16_t kExtentHiMask = 0x3fff;
  void set_extent(uint64_t bytes, uint64_t buffer_bytes) noexcept {
    if (bytes < (uint64_t{1} << 46)) {
      len_ = static_cast<uint32_t>(bytes);
      extent_hi_ = static_cast<uint16_t>(bytes >> 32);
    }
    extent_hi_ |= static_cast<uint16_t>(kSizeKnown | (buffer_bytes <= 0x7fffffffu ? kWithin2GiB : 0));
  }
  constexpr ArgValue(Kind k, uint64_t bits) noexcept : kind_(k), dtype_(DType::u8), len_(0), u_(bits) {}

  Kind kind_;
  DType dtype_;
  uint16_t extent_hi_ = 0;  // a pointer's extent: bits 32..45 (len_ holds bits 0..31), then kRangeBits
  uint32_t len_;            // a string's length, a pointer's extent bits 0..31
  uint64_t u_;
};

// Every call copies these around: they stay two words, copied as bytes.
static_assert(sizeof(ArgValue) == 16 && std::is_trivially_copyable_v<ArgValue>);

// A view of arguments: the non-template call takes this.
struct ArgSpan {
  const ArgValue* data = nullptr;
  size_t size = 0;
  const ArgValue& operator[](size_t i) const noexcept { return data[i]; }
  const ArgValue* begin() const noexcept { return data; }
  const ArgValue* end() const noexcept { return data + size; }
};

namespace detail {

template <typename T>
struct always_false : std::false_type {};

template <typename T>
struct pointee_dtype {
  static constexpr bool known = false;
};
#define TRITON_JIT_POINTEE(T, D)             \
  template <>                                \
  struct pointee_dtype<T> {                  \
    static constexpr bool known = true;      \
    static constexpr DType value = DType::D; \
  }
TRITON_JIT_POINTEE(bool, u1);
TRITON_JIT_POINTEE(int8_t, i8);
TRITON_JIT_POINTEE(int16_t, i16);
TRITON_JIT_POINTEE(int32_t, i32);
TRITON_JIT_POINTEE(int64_t, i64);
TRITON_JIT_POINTEE(uint8_t, u8);
TRITON_JIT_POINTEE(uint16_t, u16);
TRITON_JIT_POINTEE(uint32_t, u32);
TRITON_JIT_POINTEE(uint64_t, u64);
TRITON_JIT_POINTEE(float, fp32);
TRITON_JIT_POINTEE(double, fp64);
#undef TRITON_JIT_POINTEE
// long long and long are distinct types on LP64 even where both are 64 bits wide.
template <>
struct pointee_dtype<long long> : pointee_dtype<std::conditional_t<sizeof(long long) == 8, int64_t, int32_t>> {};
template <>
struct pointee_dtype<unsigned long long>
    : pointee_dtype<std::conditional_t<sizeof(long long) == 8, uint64_t, uint32_t>> {};

template <typename T>
inline constexpr bool is_char_type_v = std::is_same_v<T, char> || std::is_same_v<T, wchar_t> ||
                                       std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;

}  // namespace detail

// How a C++ type becomes an argument: the one extension point for argument types. Specialize
// it for your own types (the torch layer does so for at::Tensor, std::optional<at::Tensor>,
// c10::Scalar and c10::ScalarType); the primary template handles the built-in types listed in the
// README.
template <typename T, typename = void>
struct ArgConverter {
  static ArgValue convert(const T& value) {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, ArgValue>) {
      return value;
    } else if constexpr (std::is_same_v<U, bool>) {
      return ArgValue::boolean(value);
    } else if constexpr (detail::is_char_type_v<U>) {
      static_assert(detail::always_false<T>::value,
                    "triton_jit: a character is ambiguous; cast it to an integer type (int8_t, int32_t) "
                    "or pass a string (const char*, std::string_view) for a string constexpr");
      return {};
    } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
      return ArgValue::integer(static_cast<int64_t>(value));
    } else if constexpr (std::is_integral_v<U>) {
      return ArgValue::unsigned_integer(static_cast<uint64_t>(value));
    } else if constexpr (std::is_same_v<U, float> || std::is_same_v<U, double>) {
      return ArgValue::floating(static_cast<double>(value));
    } else if constexpr (std::is_same_v<U, TypedPtr>) {
      return ArgValue::pointer(value.ptr, value.dtype, value.bytes);
    } else if constexpr (std::is_same_v<U, DType>) {
      return ArgValue::triton_dtype(value);
    } else if constexpr (std::is_same_v<U, TorchDType>) {
      return ArgValue::torch_dtype(value.dtype);
    } else if constexpr (std::is_same_v<U, std::nullptr_t> || std::is_same_v<U, std::nullopt_t>) {
      return ArgValue::none();
    } else if constexpr (std::is_same_v<U, std::string_view> || std::is_same_v<U, std::string>) {
      return ArgValue::string(value);
    } else if constexpr (std::is_same_v<U, const char*> || std::is_same_v<U, char*>) {
      static_assert(std::is_same_v<U, const char*>,
                    "triton_jit: char* is ambiguous; pass const char* for a string constexpr or "
                    "triton_jit::TypedPtr{p, DType::i8} for a device buffer");
      return ArgValue::string(value);
    } else if constexpr (std::is_pointer_v<U>) {
      using P = std::remove_cv_t<std::remove_pointer_t<U>>;
      static_assert(!std::is_void_v<P>,
                    "triton_jit: a void* has no element type; pass triton_jit::TypedPtr{ptr, DType::fp16} "
                    "(or a typed pointer such as float*)");
      static_assert(detail::pointee_dtype<P>::known || std::is_void_v<P>,
                    "triton_jit: no Triton element type for this pointer; pass "
                    "triton_jit::TypedPtr{ptr, DType::...}");
      if constexpr (detail::pointee_dtype<P>::known) {
        return ArgValue::pointer(value, detail::pointee_dtype<P>::value);
      } else {
        return {};
      }
    } else {
      static_assert(detail::always_false<T>::value,
                    "triton_jit: unsupported argument type. Supported: integers, bool, float, double, "
                    "typed device pointers, triton_jit::TypedPtr, nullptr/std::nullopt, std::optional<T>, "
                    "strings and dtypes (DType, TorchDType; constexpr only), triton_jit::ArgValue, and types "
                    "with an ArgConverter specialization");
      return {};
    }
  }
};

// An empty optional is None; a value converts as its type does.
template <typename T>
struct ArgConverter<std::optional<T>> {
  static ArgValue convert(const std::optional<T>& value) {
    return value ? ArgConverter<std::remove_cv_t<T>>::convert(*value) : ArgValue::none();
  }
};

// One C++ argument in its tagged form, through ArgConverter. String literals decay to const char*.
template <typename T>
ArgValue to_arg(const T& value) {
  return ArgConverter<std::decay_t<const T>>::convert(value);
}

}  // namespace triton_jit

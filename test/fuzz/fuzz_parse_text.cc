// Fuzz target: text -> every numeric type through Cast(STRING -> T), default options
// (saturate, round_mode "up"). Checks, for any input bytes:
// - text in the accepted syntax (optional ASCII whitespace around an optional sign and a
//   decimal number with optional fraction and exponent, or inf / infinity / nan in any
//   case) parses, and any other text is a kParseError; BOOL also accepts true / false;
// - FLOAT and DOUBLE equal glibc's correctly rounded strtof / strtod;
// - every other target against an exact oracle written here, independently of the library:
//   the decimal text is compared exactly with dyadic values (glibc prints a double's exact
//   decimal expansion), so a float result must lie within half a step of the text's value,
//   ties to the even code, beyond MAX be the saturated or infinite code, and a NaN the
//   format's NaN code; FLOAT8E8M0 must be the smallest power of two at or above |x|;
//   integers the value truncated toward zero and saturated; BOOL non-zero -> 1.
// And, through Arrow's string layout (tensorcast/strings.h):
// - the input split into several texts (at commas, or in two halves without one), behind
//   a few lead elements (a sliced array, offset > 0), with a validity bitmap taken from
//   the input's bytes or none, NullPolicy kZero or kError, int32 or int64 offsets (one of
//   these eight variants per input, by a hash of it): CastFromArrowStrings gives, for
//   every target, the codes that Cast gives for the same texts as std::string elements
//   (a null as "0" under kZero, as a text that is not a number under kError), the same
//   status and the same index of the first bad element;
// - DOUBLE and FLOAT values read from the input's bytes: CastToArrowStrings (a size query,
//   then exactly that capacity, both offset widths) writes Cast's texts, and
//   CastFromArrowStrings reads them back to the same bits (a NaN to a NaN).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::DataType;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool EqualsIgnoreCase(const std::string& a, const char* b) {
  if (a.size() != std::strlen(b)) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

// The accepted syntax, written independently of the library's parser.
bool Accepted(const std::string& text, std::string* core) {
  size_t b = 0, e = text.size();
  while (b < e && IsSpace(text[b])) ++b;
  while (e > b && IsSpace(text[e - 1])) --e;
  *core = text.substr(b, e - b);
  size_t i = 0;
  const std::string& s = *core;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const std::string word = s.substr(i);
  if (EqualsIgnoreCase(word, "inf") || EqualsIgnoreCase(word, "infinity") ||
      EqualsIgnoreCase(word, "nan")) {
    return true;
  }
  size_t digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// The exact value of accepted numeric text: (-1)^negative * 0.DIGITS * 10^exponent with
// DIGITS free of leading and trailing zeros (empty for zero).
struct Decimal {
  bool negative = false;
  bool nan = false, inf = false;
  std::string digits;
  long exponent = 0;
};

Decimal ParseDecimal(const std::string& core) {
  Decimal d;
  size_t i = 0;
  if (i < core.size() && (core[i] == '+' || core[i] == '-')) d.negative = core[i++] == '-';
  const std::string word = core.substr(i);
  if (EqualsIgnoreCase(word, "nan")) {
    d.nan = true;
    return d;
  }
  if (EqualsIgnoreCase(word, "inf") || EqualsIgnoreCase(word, "infinity")) {
    d.inf = true;
    return d;
  }
  std::string all;
  long point = -1;
  for (; i < core.size() && core[i] != 'e' && core[i] != 'E'; ++i) {
    if (core[i] == '.') {
      point = static_cast<long>(all.size());
    } else {
      all += core[i];
    }
  }
  if (point < 0) point = static_cast<long>(all.size());
  long exp10 = 0;
  if (i < core.size()) {
    ++i;
    bool neg = false;
    if (core[i] == '+' || core[i] == '-') neg = core[i++] == '-';
    for (; i < core.size(); ++i) exp10 = std::min(exp10 * 10 + (core[i] - '0'), 100000000L);
    if (neg) exp10 = -exp10;
  }
  const size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) return d;  // zero
  const size_t last = all.find_last_not_of('0');
  d.digits = all.substr(first, last - first + 1);
  d.exponent = point - static_cast<long>(first) + exp10;
  return d;
}

// The exact decimal expansion of a finite double m >= 0, as a Decimal.
Decimal ExactDecimal(double m) {
  char buf[1200];
  std::snprintf(buf, sizeof buf, "%.1100e", m);  // glibc prints the exact value
  return ParseDecimal(buf);
}

// Sign of |x| - m for a finite x and a finite m >= 0, exactly.
int CompareMagnitude(const Decimal& x, double m) {
  const Decimal y = ExactDecimal(m);
  if (x.digits.empty() || y.digits.empty()) {
    return static_cast<int>(!x.digits.empty()) - static_cast<int>(!y.digits.empty());
  }
  if (x.exponent != y.exponent) return x.exponent < y.exponent ? -1 : 1;
  const size_t n = std::max(x.digits.size(), y.digits.size());
  for (size_t k = 0; k < n; ++k) {
    const char a = k < x.digits.size() ? x.digits[k] : '0';
    const char b = k < y.digits.size() ? y.digits[k] : '0';
    if (a != b) return a < b ? -1 : 1;
  }
  return 0;
}

// The small float formats, described here independently of the library.
struct Format {
  DataType type;
  int bits, exponent_bits, mantissa_bits, bias;
  bool fnuz;                            // 0x80 is NaN, one zero
  unsigned max_code;                    // the largest finite magnitude code
  unsigned nan_positive, nan_negative;  // the codes of "nan" and "-nan"
};

constexpr Format kFormats[] = {
    {DataType::kFloat16, 16, 5, 10, 15, false, 0x7BFF, 0x7E00, 0xFE00},
    {DataType::kBfloat16, 16, 8, 7, 127, false, 0x7F7F, 0x7FC0, 0xFFC0},
    {DataType::kFloat8E4M3FN, 8, 4, 3, 7, false, 0x7E, 0x7F, 0xFF},
    {DataType::kFloat8E4M3FNUZ, 8, 4, 3, 8, true, 0x7F, 0x80, 0x80},
    {DataType::kFloat8E5M2, 8, 5, 2, 15, false, 0x7B, 0x7E, 0xFE},
    {DataType::kFloat8E5M2FNUZ, 8, 5, 2, 16, true, 0x7F, 0x80, 0x80},
    // FLOAT4E2M1 has no NaN: a positive NaN gives 0x8, a negative one 0x0.
    {DataType::kFloat4E2M1, 4, 2, 1, 1, false, 0x7, 0x8, 0x0},
    // FLOAT6E2M3 (largest 7.5) and FLOAT6E3M2 (largest 28): no NaN either, the same rule.
    {DataType::kFloat6E2M3, 6, 2, 3, 1, false, 0x1F, 0x20, 0x00},
    {DataType::kFloat6E3M2, 6, 3, 2, 3, false, 0x1F, 0x20, 0x00},
};

// The value of a magnitude code (sign bit clear) of a finite number.
double MagnitudeValue(const Format& f, unsigned c) {
  const unsigned m = c & ((1u << f.mantissa_bits) - 1);
  const int e = static_cast<int>(c >> f.mantissa_bits);
  if (e == 0) return std::ldexp(m, 1 - f.bias - f.mantissa_bits);
  return std::ldexp((1u << f.mantissa_bits) + m, e - f.bias - f.mantissa_bits);
}

// A finite x with |x| <= MAX: the code must be the correctly rounded (RNE) neighbour.
bool RoundedCorrectly(const Format& f, const Decimal& x, unsigned code) {
  const unsigned sign_bit = 1u << (f.bits - 1);
  const unsigned c = code & (sign_bit - 1);
  const bool negative = (code & sign_bit) != 0;
  if (c > f.max_code || (f.fnuz && code == sign_bit)) return false;  // Inf or NaN
  if (c == 0 && f.fnuz) {
    if (negative) return false;  // the one zero is 0x00
  } else if (negative != x.negative) {
    return false;
  }
  const double v = MagnitudeValue(f, c);
  const bool even = (c & 1) == 0;
  if (c < f.max_code) {
    const int up = CompareMagnitude(x, (v + MagnitudeValue(f, c + 1)) / 2);
    if (up > 0 || (up == 0 && !even)) return false;
  }
  if (c > 0) {
    const int down = CompareMagnitude(x, (v + MagnitudeValue(f, c - 1)) / 2);
    if (down < 0 || (down == 0 && !even)) return false;
  }
  return true;
}

// FLOAT8E8M0 with saturate and round_mode "up": 2^(c - 127), the smallest power of two at or
// above |x|, 0x00 for |x| <= 2^-127 (and zero), 0xFE above 2^127; 0xFF for NaN.
bool E8M0Correct(const Decimal& x, unsigned code) {
  if (x.nan) return code == 0xFF;
  if (x.inf) return code == 0xFE;
  if (code > 0xFE) return false;
  if (CompareMagnitude(x, std::ldexp(1.0, 127)) > 0) return code == 0xFE;
  if (CompareMagnitude(x, std::ldexp(1.0, static_cast<int>(code) - 127)) > 0) return false;
  return code == 0 || CompareMagnitude(x, std::ldexp(1.0, static_cast<int>(code) - 128)) > 0;
}

struct IntegerType {
  DataType type;
  int bits;
  bool is_signed;
};

constexpr IntegerType kIntegers[] = {
    {DataType::kInt8, 8, true},     {DataType::kUint8, 8, false},   {DataType::kInt16, 16, true},
    {DataType::kUint16, 16, false}, {DataType::kInt32, 32, true},   {DataType::kUint32, 32, false},
    {DataType::kInt64, 64, true},   {DataType::kUint64, 64, false}, {DataType::kInt4, 4, true},
    {DataType::kUint4, 4, false},   {DataType::kInt2, 2, true},     {DataType::kUint2, 2, false},
};

// Integers: truncated toward zero, saturated; NaN -> 0, +-Inf -> the limits.
bool IntegerCorrect(const Decimal& x, int bits, bool is_signed, const uint8_t* out) {
  const __int128 lo = is_signed ? -(static_cast<__int128>(1) << (bits - 1)) : 0;
  const __int128 hi = (static_cast<__int128>(1) << (bits - (is_signed ? 1 : 0))) - 1;
  __int128 want = 0;
  if (x.inf) {
    want = x.negative ? lo : hi;
  } else if (!x.nan && x.exponent > 0) {
    if (x.exponent > 30) {
      want = x.negative ? lo : hi;
    } else {
      __int128 ip = 0;
      for (long k = 0; k < x.exponent; ++k) {
        ip = ip * 10 + (k < static_cast<long>(x.digits.size()) ? x.digits[k] - '0' : 0);
      }
      want = x.negative ? -ip : ip;
      want = want < lo ? lo : want > hi ? hi : want;
    }
  }
  uint64_t raw = 0;
  std::memcpy(&raw, out, static_cast<size_t>(bits < 8 ? 1 : bits / 8));
  if (bits < 64) raw &= (uint64_t{1} << bits) - 1;
  __int128 got = raw;
  if (is_signed && (raw >> (bits - 1)) != 0) {
    got -= static_cast<__int128>(1) << bits;
  }
  return got == want;
}

void Fail(const char* what, const std::string& text) {
  std::fprintf(stderr, "fuzz_parse_text: %s for text of %zu bytes\n", what, text.size());
  std::abort();
}

// ---- Arrow strings --------------------------------------------------------------------

// Element i of a buffer of `bits`-wide codes (packed types: their bits).
uint64_t CodeAt(const std::vector<uint8_t>& buf, int bits, size_t i) {
  if (bits < 8) {  // bits [i * bits, (i + 1) * bits) of the little-endian bit stream
    const size_t bit = i * static_cast<size_t>(bits);
    unsigned window = buf[bit / 8];
    if (bit % 8 + static_cast<size_t>(bits) > 8)
      window |= static_cast<unsigned>(buf[bit / 8 + 1]) << 8;
    return (window >> (bit % 8)) & ((1u << bits) - 1);
  }
  uint64_t v = 0;
  std::memcpy(&v, buf.data() + i * static_cast<size_t>(bits) / 8, static_cast<size_t>(bits) / 8);
  return v;
}

// The texts of the Arrow check: the whole input, then its comma-separated pieces (or its
// two halves when it has no comma).
std::vector<std::string> SplitTexts(const std::string& text) {
  std::vector<std::string> texts = {text};
  if (text.find(',') == std::string::npos) {
    texts.push_back(text.substr(0, text.size() / 2));
    texts.push_back(text.substr(text.size() / 2));
    return texts;
  }
  size_t begin = 0;
  for (;;) {
    const size_t comma = text.find(',', begin);
    texts.push_back(
        text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return texts;
}

// An Arrow column of `lead` elements that are not numbers ("lead!") and then the texts.
// Validity bit k is bit (k % 8) of input byte (k / 8) % size, counted from the end.
struct ArrowColumn {
  std::vector<int32_t> offsets32;
  std::vector<int64_t> offsets64;
  std::string data;
  std::vector<uint8_t> validity;
  size_t lead = 0;
};

ArrowColumn MakeColumn(const std::vector<std::string>& texts, size_t lead, const uint8_t* bytes,
                       size_t size) {
  ArrowColumn c;
  c.lead = lead;
  c.offsets32.push_back(0);
  c.offsets64.push_back(0);
  const size_t n = lead + texts.size();
  for (size_t i = 0; i < n; ++i) {
    c.data += i < lead ? std::string("lead!") : texts[i - lead];
    c.offsets32.push_back(static_cast<int32_t>(c.data.size()));
    c.offsets64.push_back(static_cast<int64_t>(c.data.size()));
  }
  c.validity.resize((n + 7) / 8);
  for (size_t j = 0; j < c.validity.size(); ++j) c.validity[j] = bytes[size - 1 - j % size];
  return c;
}

bool IsNull(const ArrowColumn& c, bool use_validity, size_t i) {
  const size_t k = c.lead + i;
  return use_validity && ((c.validity[k / 8] >> (k % 8)) & 1) == 0;
}

// One of the eight variants of the Arrow check (bitmap or none, null policy, offset
// width), chosen by a hash of the input so that an input always takes the same one.
unsigned Variant(const std::string& input) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (char ch : input) h = (h ^ static_cast<uint8_t>(ch)) * 16777619u;
  return (h ^ (h >> 16)) & 7;
}

// CastFromArrowStrings of the column against Cast of the same texts as std::string.
void CheckArrowAgainstStrings(const std::vector<std::string>& texts, const ArrowColumn& c,
                              DataType type, unsigned variant, const std::string& input) {
  const size_t n = texts.size();
  const int bits = tensorcast::BitWidth(type);
  const bool use_validity = (variant & 1) != 0;
  const tensorcast::NullPolicy policy =
      (variant & 2) != 0 ? tensorcast::NullPolicy::kZero : tensorcast::NullPolicy::kError;
  const int width = (variant & 4) != 0 ? 8 : 4;
  // The std::string texts: a null is "0" (the zero code of every target with the default
  // options) under kZero, a text that is not a number under kError.
  std::vector<std::string> strings = texts;
  for (size_t i = 0; i < n; ++i) {
    if (IsNull(c, use_validity, i)) {
      strings[i] = policy == tensorcast::NullPolicy::kZero ? "0" : "null";
    }
  }
  std::vector<uint8_t> want(tensorcast::StorageBytes(type, n), 0xA5);
  const tensorcast::Status ws =
      tensorcast::Cast(strings.data(), DataType::kString, want.data(), type, n);
  tensorcast::ArrowStrings a;
  a.offsets = width == 8 ? static_cast<const void*>(c.offsets64.data()) : c.offsets32.data();
  a.offset_width = width;
  a.data = c.data.data();
  a.validity = use_validity ? c.validity.data() : nullptr;
  a.offset = static_cast<int64_t>(c.lead);
  a.null_policy = policy;
  std::vector<uint8_t> got(want.size(), 0x5A);
  const tensorcast::Status gs = tensorcast::CastFromArrowStrings(a, got.data(), type, n);
  if (gs.code() != ws.code()) Fail("Arrow: another status than Cast of the texts", input);
  if (gs.ok()) {
    if (got != want) Fail("Arrow: other codes than Cast of the texts", input);
    return;
  }
  if (gs.code() != tensorcast::StatusCode::kParseError) Fail("Arrow: not a parse error", input);
  const size_t bad = ws.elements_written();
  if (gs.elements_written() != bad) Fail("Arrow: another first bad element", input);
  if (gs.message().find("element " + std::to_string(bad) + ":") == std::string::npos) {
    Fail("Arrow: the message does not name the first bad element", input);
  }
  for (size_t i = 0; i < bad; ++i) {
    if (CodeAt(got, bits, i) != CodeAt(want, bits, i)) {
      Fail("Arrow: an element before the first bad one differs", input);
    }
  }
}

// DOUBLE or FLOAT values -> Arrow strings -> the same type.
template <typename T>
void CheckRoundTrip(const std::vector<T>& values, DataType type, const std::string& input) {
  const size_t n = values.size();
  if (n == 0) return;
  std::vector<std::string> strings(n);
  if (!tensorcast::Cast(values.data(), type, strings.data(), DataType::kString, n).ok()) {
    Fail("round trip: Cast to STRING failed", input);
  }
  for (int width : {4, 8}) {
    std::vector<int64_t> offsets(n + 1, -7);  // room for either width
    tensorcast::ArrowStringsOut out;
    out.offsets = offsets.data();
    out.offset_width = width;
    tensorcast::Status s = tensorcast::CastToArrowStrings(values.data(), type, &out, n);
    if (s.code() != tensorcast::StatusCode::kBufferTooSmall) Fail("round trip: size query", input);
    if (offsets[0] != -7) Fail("round trip: the size query wrote offsets", input);
    std::string data(out.data_size, '#');
    out.data = &data[0];
    out.data_capacity = data.size();
    s = tensorcast::CastToArrowStrings(values.data(), type, &out, n);
    if (!s.ok() || out.data_size != data.size()) Fail("round trip: exact capacity", input);
    const auto offset = [&](size_t i) -> size_t {
      if (width == 8) return static_cast<size_t>(offsets[i]);
      int32_t v;
      std::memcpy(&v, reinterpret_cast<const char*>(offsets.data()) + 4 * i, 4);
      return static_cast<size_t>(v);
    };
    if (offset(0) != 0 || offset(n) != data.size()) Fail("round trip: first or last offset", input);
    for (size_t i = 0; i < n; ++i) {
      if (offset(i) > offset(i + 1) ||
          data.compare(offset(i), offset(i + 1) - offset(i), strings[i]) != 0) {
        Fail("round trip: another text than Cast to STRING", input);
      }
    }
    tensorcast::ArrowStrings a;
    a.offsets = offsets.data();
    a.offset_width = width;
    a.data = data.data();
    std::vector<T> back(n);
    if (!tensorcast::CastFromArrowStrings(a, back.data(), type, n).ok()) {
      Fail("round trip: the texts do not parse", input);
    }
    for (size_t i = 0; i < n; ++i) {
      const bool same = std::isnan(values[i]) ? std::isnan(back[i])
                                              : std::memcmp(&values[i], &back[i], sizeof(T)) == 0;
      if (!same) Fail("round trip: other bits back", input);
    }
  }
}

template <typename T>
std::vector<T> ValuesOf(const uint8_t* data, size_t size) {
  std::vector<T> v(size / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), data, v.size() * sizeof(T));
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string core;
  const bool ok = Accepted(text, &core) && text.find('\0') == std::string::npos;
  const std::vector<std::string> texts = SplitTexts(text);
  const unsigned variant = Variant(text);
  const ArrowColumn column = size == 0
                                 ? MakeColumn(texts, 1, reinterpret_cast<const uint8_t*>("\xFF"), 1)
                                 : MakeColumn(texts, 1 + size % 3, data, size);
  CheckRoundTrip(ValuesOf<double>(data, size), DataType::kDouble, text);
  CheckRoundTrip(ValuesOf<float>(data, size), DataType::kFloat, text);
  for (int code = 1; code <= tensorcast::kMaxDataTypeCode; ++code) {
    const auto type = static_cast<DataType>(code);
    if (!tensorcast::IsCastable(type) || type == DataType::kString) continue;
    CheckArrowAgainstStrings(texts, column, type, variant, text);
    // BOOL also takes "true" / "false" in any case.
    const bool accept = ok || (type == DataType::kBool && text.find('\0') == std::string::npos &&
                               (EqualsIgnoreCase(core, "true") || EqualsIgnoreCase(core, "false")));
    uint8_t out[16] = {};
    const tensorcast::Status s = tensorcast::Cast(&text, DataType::kString, out, type, 1);
    if (accept != s.ok()) Fail(accept ? "accepted text refused" : "bad text accepted", text);
    if (!accept) {
      if (s.code() != tensorcast::StatusCode::kParseError) Fail("not a parse error", text);
      continue;
    }
    if (type == DataType::kDouble) {
      const double want = std::strtod(core.c_str(), nullptr);
      double got;
      std::memcpy(&got, out, sizeof got);
      if (std::isnan(want) ? !std::isnan(got) : std::memcmp(&want, &got, 8) != 0) {
        Fail("DOUBLE differs from strtod", text);
      }
      continue;
    }
    if (type == DataType::kFloat) {
      const float want = std::strtof(core.c_str(), nullptr);
      float got;
      std::memcpy(&got, out, sizeof got);
      if (std::isnan(want) ? !std::isnan(got) : std::memcmp(&want, &got, 4) != 0) {
        Fail("FLOAT differs from strtof", text);
      }
      continue;
    }
    const Decimal x = ParseDecimal(core);
    if (type == DataType::kBool) {
      if (EqualsIgnoreCase(core, "true") || EqualsIgnoreCase(core, "false")) {
        if (out[0] != (EqualsIgnoreCase(core, "true") ? 1 : 0)) Fail("BOOL word", text);
      } else if (out[0] != ((x.nan || x.inf || !x.digits.empty()) ? 1 : 0)) {
        Fail("BOOL differs from x != 0", text);
      }
      continue;
    }
    if (type == DataType::kFloat8E8M0) {
      if (!E8M0Correct(x, out[0])) Fail("FLOAT8E8M0 is not the power of two at or above |x|", text);
      continue;
    }
    bool integer = false;
    for (const IntegerType& it : kIntegers) {
      if (it.type != type) continue;
      integer = true;
      if (!IntegerCorrect(x, it.bits, it.is_signed, out)) {
        Fail("integer is not the truncated, saturated value", text);
      }
    }
    if (integer) continue;
    bool checked = false;
    for (const Format& f : kFormats) {
      if (f.type != type) continue;
      checked = true;
      unsigned code = out[0];
      if (f.bits == 16) code |= static_cast<unsigned>(out[1]) << 8;
      if (f.bits < 8) code &= (1u << f.bits) - 1;  // one packed element in the low bits
      if (x.nan) {
        if (code != (x.negative ? f.nan_negative : f.nan_positive)) Fail("not the NaN code", text);
        continue;
      }
      // Beyond MAX (Inf included): FLOAT16 and BFLOAT16 round to MAX below MAX + half a
      // step and overflow to Inf from there (the tie goes to the even Inf); the float8
      // formats saturate (the default), FLOAT4E2M1 and the FLOAT6 formats always do.
      const unsigned sign = x.negative ? 1u << (f.bits - 1) : 0;
      const double max = MagnitudeValue(f, f.max_code);
      if (x.inf || CompareMagnitude(x, max) > 0) {
        unsigned want = sign | f.max_code;
        if (f.bits == 16) {
          const double half_step = (max - MagnitudeValue(f, f.max_code - 1)) / 2;
          if (x.inf || CompareMagnitude(x, max + half_step) >= 0) want = sign | (f.max_code + 1);
        }
        if (code != want) Fail("beyond MAX: not the saturated or infinite code", text);
        continue;
      }
      if (!RoundedCorrectly(f, x, code)) Fail("not the correctly rounded code", text);
    }
    if (!checked) Fail("no oracle for a numeric type", text);
  }
  return 0;
}

// The reference Cast: every element is decoded to its exact value (exact.h) and
// encoded once into the target. Strings go through string_codec.h.
#include "lib/reference/reference_cast.h"

#include <charconv>
#include <cstring>
#include <string>
#include <string_view>

#include "lib/reference/exact.h"
#include "lib/reference/string_codec.h"
#include "lib/type_facts.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tensorcast stores elements little-endian and supports little-endian hosts only"
#endif

namespace tensorcast {
namespace reference {
namespace {

enum class Kind { kFloat, kSigned, kUnsigned, kBool, kString };

Kind KindOf(DataType t) {
  switch (Facts(t).kind) {
    case TypeKind::kSignedInt: return Kind::kSigned;
    case TypeKind::kUnsignedInt: return Kind::kUnsigned;
    case TypeKind::kBool: return Kind::kBool;
    case TypeKind::kString: return Kind::kString;
    default: return Kind::kFloat;
  }
}

Exact Decode(DataType type, Kind kind, int bits, uint64_t code) {
  switch (kind) {
    case Kind::kSigned: return FromSigned(SignExtend(code, bits));
    case Kind::kUnsigned: return FromUnsigned(code);
    case Kind::kBool: {
      Exact x = FromUnsigned(code != 0 ? 1 : 0);
      x.is_bool = true;
      return x;
    }
    default: return DecodeFloat(type, code);
  }
}

uint64_t Encode(DataType type, Kind kind, int bits, const Exact& x, const CastOptions& options) {
  switch (kind) {
    case Kind::kSigned: return EncodeInt(x, bits, true);
    case Kind::kUnsigned: return EncodeInt(x, bits, false);
    case Kind::kBool: return IsNonZero(x) ? 1 : 0;
    default: return EncodeFloat(type, x, options);
  }
}

std::string FormatElement(DataType type, Kind kind, int bits, uint64_t code) {
  char buf[32];
  switch (kind) {
    case Kind::kSigned:
      return std::string(buf, std::to_chars(buf, buf + sizeof(buf), SignExtend(code, bits)).ptr);
    case Kind::kUnsigned: return std::string(buf, std::to_chars(buf, buf + sizeof(buf), code).ptr);
    case Kind::kBool: return code != 0 ? "True" : "False";
    default: return FormatFloat(type, code);
  }
}

bool EqualsIgnoreCaseTrimmed(std::string_view s, const char* word) {
  size_t b = 0, e = s.size();
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (b < e && space(s[b])) ++b;
  while (e > b && space(s[e - 1])) --e;
  const size_t n = std::strlen(word);
  if (e - b != n) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = s[b + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != word[i]) return false;
  }
  return true;
}

// Parses one string element into the target code. Returns false if it is not a number.
bool ParseElement(std::string_view s, DataType type, Kind kind, int bits,
                  const CastOptions& options, Decimal* scratch, uint64_t* code) {
  if (kind == Kind::kBool) {
    if (EqualsIgnoreCaseTrimmed(s, "true")) {
      *code = 1;
      return true;
    }
    if (EqualsIgnoreCaseTrimmed(s, "false")) {
      *code = 0;
      return true;
    }
  }
  if (!ParseDecimal(s, scratch)) return false;
  const Decimal& d = *scratch;
  switch (kind) {
    case Kind::kSigned: *code = DecimalToInt(d, bits, true); return true;
    case Kind::kUnsigned: *code = DecimalToInt(d, bits, false); return true;
    case Kind::kBool: *code = (d.kind != Decimal::kFinite || d.len != 0) ? 1 : 0; return true;
    default: break;
  }
  if (type == DataType::kDouble) {
    const double v = DecimalToDouble(d);
    std::memcpy(code, &v, sizeof(v));
    return true;
  }
  *code = EncodeFloat(type, DecimalToExact(d), options);
  return true;
}

// The length of the valid UTF-8 sequence that starts at byte i of s (no overlong form,
// no surrogate, at most U+10FFFF), or 0.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1Fu;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0Fu;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3Fu);
  }
  static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return n;
}

std::string Quote(std::string_view s) {
  constexpr size_t kMax = 64;
  static const char kHex[] = "0123456789abcdef";
  std::string q = "\"";
  size_t i = 0;
  while (i < s.size() && i < kMax) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c >= 0x80 ? Utf8Length(s, i) : 1;
    if (c >= 0x80 && n != 0 && i + n <= kMax) {  // a whole UTF-8 character: as it is
      q.append(s.data() + i, n);
      i += n;
      continue;
    }
    if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
      q += "\\x";
      q += kHex[c >> 4];
      q += kHex[c & 0xF];
    } else {
      q += static_cast<char>(c);
    }
    ++i;
  }
  if (i < s.size()) q += "...";
  return q + "\"";
}

}  // namespace

uint64_t LoadCode(const void* src, int bits, size_t i) {
  const auto* p = static_cast<const unsigned char*>(src);
  switch (bits) {
    case 2: return (p[i / 4] >> (2 * (i % 4))) & 0x3;
    case 4: return (p[i / 2] >> (4 * (i % 2))) & 0xF;
    case 6: {  // bits [6i, 6i + 6): the next byte only when the element crosses into it
      const size_t bit = 6 * i;
      const unsigned shift = bit % 8;
      unsigned v = p[bit / 8] >> shift;
      if (shift > 2) v |= static_cast<unsigned>(p[bit / 8 + 1]) << (8 - shift);
      return v & 0x3F;
    }
    case 8: return p[i];
    case 16: {
      uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      return v;
    }
    case 32: {
      uint32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      return v;
    }
  }
}

void StoreCode(void* dst, int bits, size_t i, uint64_t code) {
  auto* p = static_cast<unsigned char*>(dst);
  switch (bits) {
    case 2: {
      const unsigned shift = 2 * (i % 4);
      const auto v = static_cast<unsigned char>((code & 0x3) << shift);
      p[i / 4] = shift == 0 ? v : static_cast<unsigned char>(p[i / 4] | v);
      return;
    }
    case 4: {
      const unsigned shift = 4 * (i % 2);
      const auto v = static_cast<unsigned char>((code & 0xF) << shift);
      p[i / 2] = shift == 0 ? v : static_cast<unsigned char>(p[i / 2] | v);
      return;
    }
    case 6: {  // a byte that the element starts is assigned, so padding stays zero
      const size_t bit = 6 * i;
      const unsigned shift = bit % 8;
      const auto c = static_cast<unsigned>(code & 0x3F);
      const auto low = static_cast<unsigned char>(c << shift);
      p[bit / 8] = shift == 0 ? low : static_cast<unsigned char>(p[bit / 8] | low);
      if (shift > 2) p[bit / 8 + 1] = static_cast<unsigned char>(c >> (8 - shift));
      return;
    }
    case 8: p[i] = static_cast<unsigned char>(code); return;
    case 16: {
      const auto v = static_cast<uint16_t>(code);
      std::memcpy(p + 2 * i, &v, 2);
      return;
    }
    case 32: {
      const auto v = static_cast<uint32_t>(code);
      std::memcpy(p + 4 * i, &v, 4);
      return;
    }
    default: std::memcpy(p + 8 * i, &code, 8); return;
  }
}

int64_t SignExtend(uint64_t code, int bits) {
  if (bits >= 64) return static_cast<int64_t>(code);
  const uint64_t sign = 1ull << (bits - 1);
  return static_cast<int64_t>((code ^ sign) - sign);
}

bool ParseText(std::string_view text, DataType type, const CastOptions& options, Decimal* scratch,
               uint64_t* code) {
  return ParseElement(text, type, KindOf(type), BitWidth(type), options, scratch, code);
}

std::string FormatText(DataType type, uint64_t code) {
  return FormatElement(type, KindOf(type), BitWidth(type), code);
}

std::string QuoteText(std::string_view text) { return Quote(text); }

Status Cast(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
            const CastOptions& options) {
  const Kind sk = KindOf(src_type), dk = KindOf(dst_type);
  const int sbits = BitWidth(src_type), dbits = BitWidth(dst_type);
  if (sk == Kind::kString && dk == Kind::kString) {
    const auto* in = static_cast<const std::string*>(src);
    auto* out = static_cast<std::string*>(dst);
    for (size_t i = 0; i < count; ++i) out[i] = in[i];
    return Status::Ok();
  }
  // Same type: a copy, except that saturating E5M2 turns +-Inf into +-MAX and NaNs
  // into the canonical NaN (the reference clips, then converts).
  if (src_type == dst_type && !(src_type == DataType::kFloat8E5M2 && options.saturate)) {
    const size_t bytes = StorageBytes(src_type, count);
    if (src != dst) std::memcpy(dst, src, bytes);
    const size_t used_bits = (count * static_cast<size_t>(sbits)) % 8;
    if (used_bits != 0) {  // packed: the padding of a partial last byte is zero
      auto* last = static_cast<unsigned char*>(dst) + bytes - 1;
      *last = static_cast<unsigned char>(*last & ((1u << used_bits) - 1));
    }
    return Status::Ok();
  }
  if (sk == Kind::kString) {
    const auto* in = static_cast<const std::string*>(src);
    Decimal scratch;
    for (size_t i = 0; i < count; ++i) {
      uint64_t code = 0;
      if (!ParseElement(in[i], dst_type, dk, dbits, options, &scratch, &code)) {
        return Status(StatusCode::kParseError,
                      "element " + std::to_string(i) + ": cannot parse " + Quote(in[i]) + " as " +
                          DataTypeName(dst_type) + " (" + std::to_string(i) +
                          " elements before it were written)",
                      i);
      }
      StoreCode(dst, dbits, i, code);
    }
    return Status::Ok();
  }
  if (dk == Kind::kString) {
    auto* out = static_cast<std::string*>(dst);
    for (size_t i = 0; i < count; ++i) {
      out[i] = FormatElement(src_type, sk, sbits, LoadCode(src, sbits, i));
    }
    return Status::Ok();
  }
  for (size_t i = 0; i < count; ++i) {
    const Exact x = Decode(src_type, sk, sbits, LoadCode(src, sbits, i));
    StoreCode(dst, dbits, i, Encode(dst_type, dk, dbits, x, options));
  }
  return Status::Ok();
}

}  // namespace reference
}  // namespace tensorcast

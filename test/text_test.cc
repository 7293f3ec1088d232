// The fast paths of strings <-> numbers (lib/text/: the scans of scan_number.h and
// window_scan-inl.h, the roundings of decimal_to_binary.h, the formatting of
// format_number.h) against the exact slow path (the reference codec, lib/reference/), on
// the texts where they are most likely to differ: exact decimal midpoints between neighbouring
// values of every float format and texts just above and below them (19, 20, 25 digits and the exact
// expansion), texts of 800+ digits, subnormals and the ends of every range, integers around every
// integer bound, random shortest spellings of doubles and floats over the whole
// exponent range, and the syntax's corners. Every numeric target and option is cast in
// one batch through the public Cast (blocks, patches, packed outputs) and compared
// element by element with the reference's code for that text, on every Highway target
// (test/target_loop.h): the window scan on AVX3_DL, the scalar scan on the others.
// Formatting: FLOAT, DOUBLE and integer texts against the reference's.
//
// Also the Arrow string layout through the C++ API (tensorcast/strings.h): both offset
// widths, validity, sliced arrays, empty strings, the null policies, bad offsets, the
// capacity protocol and the int32 offset limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "lib/dispatch/targets.h"
#include "lib/reference/reference_cast.h"
#include "lib/text/format_column.h"
#include "lib/text/format_number.h"
#include "lib/text/scan_targets.h"
#include "tensorcast/tensorcast.h"
#include "test/target_loop.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

using DT = DataType;

const DT kNumeric[] = {
    DT::kFloat,      DT::kUint8,          DT::kInt8,     DT::kUint16,       DT::kInt16,
    DT::kInt32,      DT::kInt64,          DT::kBool,     DT::kFloat16,      DT::kDouble,
    DT::kUint32,     DT::kUint64,         DT::kBfloat16, DT::kFloat8E4M3FN, DT::kFloat8E4M3FNUZ,
    DT::kFloat8E5M2, DT::kFloat8E5M2FNUZ, DT::kUint4,    DT::kInt4,         DT::kFloat4E2M1,
    DT::kFloat8E8M0, DT::kUint2,          DT::kInt2};

uint64_t LoadElement(const std::vector<uint8_t>& buf, int bits, size_t i) {
  switch (bits) {
    case 2: return (buf[i / 4] >> (2 * (i % 4))) & 0x3;
    case 4: return (buf[i / 2] >> (4 * (i % 2))) & 0xF;
    default: {
      uint64_t v = 0;
      std::memcpy(&v, buf.data() + i * static_cast<size_t>(bits) / 8,
                  static_cast<size_t>(bits) / 8);
      return v;
    }
  }
}

// The options worth trying for a target.
std::vector<CastOptions> OptionsFor(DT t) {
  std::vector<CastOptions> v;
  if (t == DT::kFloat8E8M0) {
    for (bool sat : {true, false}) {
      for (RoundMode m : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
        v.push_back(test::Opt(sat, m));
      }
    }
  } else if (t == DT::kFloat8E4M3FN || t == DT::kFloat8E4M3FNUZ || t == DT::kFloat8E5M2 ||
             t == DT::kFloat8E5M2FNUZ) {
    v.push_back(test::Opt(true));
    v.push_back(test::Opt(false));
  } else {
    v.push_back(CastOptions());
  }
  return v;
}

// The ways a batch of texts is parsed: std::string elements (the window scan reads each
// text with a masked load), StringView elements (the same, the texts of one buffer) and
// Arrow's layout (plain loads of 32 bytes while they stay inside the texts' bytes). Each
// runs on every target: with the window scan on AVX3_DL, with the scalar scan elsewhere.
enum class ParsePath { kStrings, kViews, kArrow };
constexpr ParsePath kParsePaths[] = {ParsePath::kStrings, ParsePath::kViews, ParsePath::kArrow};

const char* PathName(ParsePath path) {
  return path == ParsePath::kStrings ? "strings" : path == ParsePath::kViews ? "views" : "arrow";
}

// The texts of a batch in each layout.
struct Batch {
  explicit Batch(const std::vector<std::string>& t) : texts(t) {
    offsets.push_back(0);
    for (const std::string& x : texts) {
      data += x;
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
    for (size_t i = 0; i < texts.size(); ++i) {
      views.push_back(StringView{data.data() + offsets[i], texts[i].size()});
    }
  }
  const std::vector<std::string>& texts;
  std::vector<int32_t> offsets;
  std::string data;
  std::vector<StringView> views;
};

Status ParseBatch(const Batch& batch, DT t, const CastOptions& o, ParsePath path, void* out) {
  const size_t n = batch.texts.size();
  switch (path) {
    case ParsePath::kStrings: return Cast(batch.texts.data(), DT::kString, out, t, n, o);
    case ParsePath::kViews: return CastFromStringViews(batch.views.data(), out, t, n, o);
    case ParsePath::kArrow: break;
  }
  ArrowStrings a;
  a.offsets = batch.offsets.data();
  a.data = batch.data.data();
  return CastFromArrowStrings(a, out, t, n, o);
}

// Casts every text to every target and option in one batch, by every path on every
// Highway target, and compares each element with the reference's code for that text alone.
void ExpectParsesLikeReference(const std::vector<std::string>& texts) {
  const Batch batch(texts);
  test::TargetLoop loop;
  for (DT t : kNumeric) {
    const int bits = BitWidth(t);
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    for (const CastOptions& o : OptionsFor(t)) {
      reference::Decimal scratch;
      std::vector<uint64_t> want(texts.size());
      for (size_t i = 0; i < texts.size(); ++i) {
        ASSERT_TRUE(reference::ParseText(texts[i], t, o, &scratch, &want[i])) << texts[i];
        want[i] &= mask;
      }
      loop.Run([&] {
        for (ParsePath path : kParsePaths) {
          std::vector<uint8_t> out(StorageBytes(t, texts.size()) + 1, 0xA5);
          const Status s = ParseBatch(batch, t, o, path, out.data());
          ASSERT_TRUE(s.ok()) << DataTypeName(t) << " (" << PathName(path) << "): " << s.message();
          int failures = 0;
          for (size_t i = 0; i < texts.size() && failures < 10; ++i) {
            const uint64_t got = LoadElement(out, bits, i);
            if (got != want[i]) {
              ++failures;
              ADD_FAILURE() << "\"" << texts[i] << "\" -> " << DataTypeName(t) << " ("
                            << PathName(path) << ") saturate=" << o.saturate
                            << " round_mode=" << static_cast<int>(o.round_mode) << ": got "
                            << test::Hex(got) << ", reference " << test::Hex(want[i]);
            }
          }
          EXPECT_EQ(out.back(), 0xA5)
              << DataTypeName(t) << " (" << PathName(path) << "): wrote past the end";
        }
      });
    }
  }
}

// The exact decimal expansion of a double ("%.*e" prints every digit).
std::string Exact(double v) {
  char buf[1200];
  std::snprintf(buf, sizeof(buf), "%.1100e", v);
  std::string s(buf);
  // Trailing zeros of the mantissa carry no value.
  const size_t e = s.find('e');
  size_t end = e;
  while (end > 0 && s[end - 1] == '0') --end;
  if (s[end - 1] == '.') --end;
  return s.substr(0, end) + s.substr(e);
}

// A decimal text d.ddd...e+X cut (truncated) to n significant digits.
std::string Cut(const std::string& exact, size_t n) {
  const size_t e = exact.find('e');
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (exact[i] >= '0' && exact[i] <= '9') digits += exact[i];
  }
  if (digits.size() <= n) return exact;
  std::string m = exact.substr(0, exact[0] == '-' ? 1 : 0);
  const std::string kept = digits.substr(0, n);
  m += kept.substr(0, 1) + "." + kept.substr(1);
  return m + exact.substr(e);
}

// The exact text with one more non-zero digit far after its last one (just above).
std::string JustAbove(const std::string& exact, size_t zeros) {
  const size_t e = exact.find('e');
  std::string m = exact.substr(0, e);
  if (m.find('.') == std::string::npos) m += '.';
  return m + std::string(zeros, '0') + "1" + exact.substr(e);
}

// Texts near the midpoints of a float format whose values (as doubles) are `values`,
// sorted ascending and all finite.
void AddMidpointTexts(const std::vector<double>& values, std::vector<std::string>* texts) {
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    const bool long_text = i % 8 == 0;
    const double mid = values[i] / 2 + values[i + 1] / 2;  // exact (power-of-two scaling)
    if (!(mid > values[i] && mid < values[i + 1])) continue;
    const std::string x = Exact(mid);
    texts->push_back(x);
    texts->push_back(JustAbove(x, 3));
    if (long_text) texts->push_back(JustAbove(x, 900));  // 900+ digits (slow: some only)
    for (size_t n : {9, 12, 15, 16, 17, 19, 20, 25}) texts->push_back(Cut(x, n));
    texts->push_back("-" + Cut(x, 19));
    // The neighbours themselves, exactly and cut.
    texts->push_back(Exact(values[i + 1]));
    texts->push_back(Cut(Exact(values[i + 1]), 19));
  }
}

std::vector<double> AllValues(DT t) {
  const int bits = BitWidth(t);
  std::vector<double> v;
  const size_t codes = size_t{1} << bits;
  std::vector<uint8_t> in(StorageBytes(t, codes));
  for (size_t c = 0; c < codes; ++c) {
    if (bits == 16) {
      const auto x = static_cast<uint16_t>(c);
      std::memcpy(in.data() + 2 * c, &x, 2);
    } else if (bits == 8) {
      in[c] = static_cast<uint8_t>(c);
    } else {
      in[c / 2] = static_cast<uint8_t>(in[c / 2] | (c << (4 * (c % 2))));
    }
  }
  std::vector<double> d(codes);
  EXPECT_TRUE(Cast(in.data(), t, d.data(), DT::kDouble, codes).ok());
  for (double x : d) {
    if (std::isfinite(x) && x >= 0) v.push_back(x);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

TEST(TextFastPaths, NearTiesOfEverySmallFormatParseLikeTheReference) {
  std::vector<std::string> texts;
  for (DT t : {DT::kFloat8E4M3FN, DT::kFloat8E4M3FNUZ, DT::kFloat8E5M2, DT::kFloat8E5M2FNUZ,
               DT::kFloat8E8M0, DT::kFloat4E2M1}) {
    AddMidpointTexts(AllValues(t), &texts);
  }
  // FLOAT16 and BFLOAT16: every 29th neighbouring pair (all binades, normal and subnormal).
  for (DT t : {DT::kFloat16, DT::kBfloat16}) {
    const std::vector<double> all = AllValues(t);
    std::vector<double> some;
    for (size_t i = 0; i + 1 < all.size(); i += 29) {
      some.push_back(all[i]);
      some.push_back(all[i + 1]);
    }
    AddMidpointTexts(some, &texts);
  }
  // E8M0's round-to-nearest boundaries are 1.5 * 2^k.
  for (int k = -140; k <= 130; k += 3) texts.push_back(Exact(1.5 * std::ldexp(1.0, k)));
  ExpectParsesLikeReference(texts);
}

TEST(TextFastPaths, NearTiesOfFloatAndDoubleParseLikeTheReference) {
  std::mt19937_64 rng(7);
  std::vector<std::string> texts;
  std::vector<double> pairs;
  for (int i = 0; i < 300; ++i) {
    // float32 neighbours over the whole range, subnormals included.
    const auto b = static_cast<uint32_t>(rng() % 0x7F7FFFFFu);
    pairs.push_back(static_cast<double>(test::F32(b)));
    pairs.push_back(static_cast<double>(test::F32(b + 1)));
  }
  for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
    AddMidpointTexts({pairs[i], pairs[i + 1]}, &texts);
  }
  // Double midpoints are not doubles: texts around them from the neighbours' exact
  // expansions, cut to 17-19 digits and extended.
  for (int i = 0; i < 300; ++i) {
    const uint64_t b = rng() % 0x7FEFFFFFFFFFFFFFull;
    const double a = test::F64(b), c = test::F64(b + 1);
    texts.push_back(Cut(Exact(a), 17));
    texts.push_back(Cut(Exact(c), 19));
    texts.push_back(JustAbove(Exact(a), 5));
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", a);
    texts.push_back(buf);
    std::snprintf(buf, sizeof(buf), "%.20g", c);
    texts.push_back(buf);
  }
  ExpectParsesLikeReference(texts);
}

TEST(TextFastPaths, RandomShortestSpellingsParseLikeTheReference) {
  std::mt19937_64 rng(11);
  std::vector<std::string> texts;
  char buf[64];
  for (int i = 0; i < 4000; ++i) {
    const double d = test::F64(rng() & 0x7FFFFFFFFFFFFFFFull);
    if (!std::isfinite(d)) continue;
    // Typical data: magnitudes 1e-10 .. 1e10, shortest round trip, both signs.
    const double typical = std::ldexp(static_cast<double>(rng() >> 11), -53) *
                           std::pow(10.0, static_cast<int>(rng() % 21) - 10);
    for (double v : {d, typical, -typical}) {
      std::snprintf(buf, sizeof(buf), "%.17g", v);
      texts.push_back(buf);
      const float f = static_cast<float>(v);
      std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(f));
      texts.push_back(buf);
    }
    std::snprintf(buf, sizeof(buf), "%.6f", typical);  // positional, trailing zeros
    texts.push_back(buf);
  }
  ExpectParsesLikeReference(texts);
}

TEST(TextFastPaths, SubnormalsRangeEndsAndSyntaxParseLikeTheReference) {
  std::vector<std::string> texts = {
      "0", "-0", "0.0", "-0.0", "000", "0e5", ".0", "0.", "00.000e-999", "1", "-1", "+1", " 7 ",
      "\t-8.5\n", "1e0", "1E+0", "1.e1", ".5", "5.", "-.5e-1", "4.9406564584124654e-324",
      "2.4703282292062327e-324", "2.4703282292062328e-324", "2.2250738585072014e-308",
      "2.2250738585072011e-308", "1.7976931348623157e308", "1.7976931348623158e308",
      "1.797693134862315807e308", "1e309", "-1e400", "1e-400", "1.401298464324817e-45",
      "7.006492321624085e-46", "7.006492321624086e-46", "1.1754943508222875e-38",
      "3.4028234663852886e38", "3.4028235677973366e38", "3.4028235677973367e38", "3.40282357e38",
      "65504", "65519.99", "65520", "448", "464", "464.00001", "57344", "61440", "240", "248",
      "1e-27", "1e27", "9.999999999999999999e26", "1e-28", "1e28", "123456789012345678901234567890",
      "0.000000000000000000000000001", "12345678901234567890123", "1234567890123456789",
      "12345678901234567890", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
      "-9223372036854775809", "18446744073709551615", "18446744073709551616", "1e19", "1e20",
      "-1e19", "9999999999999999999", "99999999999999999999", "4294967295", "4294967296",
      "-2147483648", "-2147483649", "32767.9", "-32768.9", "255.5", "-0.99", "127", "128", "-128",
      "-129", "7", "8", "-8", "-9", "1", "2", "-2", "-3", "3.9", "inf", "-Infinity", "NaN", "-nan",
      "+INF", "1e99999999999999999999", "1e-99999999999", std::string(1000, '9'),
      "0." + std::string(1000, '0') + "1", "1" + std::string(400, '0'),
      "1." + std::string(30, '0') + "1", "0.1", "0.2", "0.3", "1.5", "2.5", "-2.5", "0.5",
      // The in-register scan's limits and its syntax checks.
      "1234567890123456789012345678901", "12345678901234567890123456789012",
      "123456789012345678901234567890123", "-1.234567890123456789012345678901",
      "0.00000000000000000000001234", "0.000000000000000000000001234", "0000000000000000000000001",
      "00000000000000000000000001", "1e00000005", "1e000000005", "1e+00000005", "-1e-0000005",
      "1e99999999", "1e-99999999", "9.999999999999999e22", "1e22", "1e23", "8.98846567431158e307",
      "8.988465674311579e307", "8.98846567431158e+307", "1.7976931348623157e+308",
      "-1.7976931348623157E+308", "3.4028234e38", "3.4028235e38", "-1.17549435e-38",
      "1.1754942e-38", "9007199254740993", "9007199254740992.5", "-0e-0", "0e+0000"};
  ExpectParsesLikeReference(texts);
}

TEST(TextFastPaths, BadTextsAreParseErrorsOnEveryPath) {
  const std::vector<std::string> bad = {"1e",
                                        "1e+",
                                        "1e-",
                                        "e1",
                                        ".e1",
                                        ".",
                                        "-",
                                        "+",
                                        "--1",
                                        "+-1",
                                        "1-",
                                        "1+1",
                                        "1e1e1",
                                        "1e1.5",
                                        "1.2.3",
                                        "1..2",
                                        "..1",
                                        "1e-+5",
                                        "1e--5",
                                        "0x10",
                                        "1,5",
                                        "1 5",
                                        "1_000",
                                        "",
                                        std::string("1\0", 2),
                                        "\xd9\xa1",
                                        "1\xff",
                                        "1e+-5",
                                        "-e5",
                                        "1.5e",
                                        std::string("\0", 1),
                                        std::string(40, '1') + "x"};
  const DT types[] = {DT::kDouble, DT::kFloat, DT::kFloat16, DT::kInt64, DT::kInt32, DT::kUint8};
  reference::Decimal scratch;
  for (const std::string& b : bad) {
    for (DT t : types) {
      uint64_t code = 0;
      ASSERT_FALSE(reference::ParseText(b, t, CastOptions(), &scratch, &code)) << b;
    }
  }
  test::TargetLoop loop;
  loop.Run([&] {
    for (const std::string& b : bad) {
      const std::vector<std::string> texts = {"1", "-2.5", b, "3"};
      const Batch batch(texts);
      for (DT t : types) {
        uint64_t one = 0;
        ASSERT_TRUE(reference::ParseText("1", t, CastOptions(), &scratch, &one));
        for (ParsePath path : kParsePaths) {
          std::vector<uint8_t> out(StorageBytes(t, texts.size()), 0);
          const Status s = ParseBatch(batch, t, CastOptions(), path, out.data());
          const std::string what = "\"" + b + "\" " + DataTypeName(t) + " (" + PathName(path) + ")";
          EXPECT_EQ(s.code(), StatusCode::kParseError) << what;
          EXPECT_EQ(s.elements_written(), 2u) << what;
          EXPECT_EQ(LoadElement(out, BitWidth(t), 0), one) << what;
        }
      }
    }
  });
}

TEST(TextFastPaths, IntegersAroundEveryBoundParseLikeTheReference) {
  std::vector<std::string> texts;
  for (int b = 1; b <= 64; ++b) {
    const uint64_t p = b == 64 ? 0 : uint64_t{1} << b;
    for (int64_t d = -2; d <= 2; ++d) {
      const uint64_t v = p + static_cast<uint64_t>(d);
      texts.push_back(std::to_string(v));
      texts.push_back("-" + std::to_string(v));
      texts.push_back(std::to_string(v) + ".999");
      texts.push_back(std::to_string(v) + "e0");
    }
  }
  for (int n = 1; n <= 21; ++n) {
    texts.push_back(std::string(static_cast<size_t>(n), '9'));
    texts.push_back("1" + std::string(static_cast<size_t>(n), '0'));
    texts.push_back("1e" + std::to_string(n));
    texts.push_back("-1.5e" + std::to_string(n));
    texts.push_back("12345e-" + std::to_string(n));
  }
  ExpectParsesLikeReference(texts);
}

TEST(TextFastPaths, NumbersFormatLikeTheReference) {
  std::mt19937_64 rng(5);
  char buf[text::kFormatRoom];
  int failures = 0;
  const auto check = [&](DT t, uint64_t code) {
    const std::string want = reference::FormatText(t, code);
    const std::string got(buf, text::FormatNumber(t, code, buf));
    if (got != want && ++failures < 10) {
      ADD_FAILURE() << DataTypeName(t) << " " << test::Hex(code) << ": got \"" << got
                    << "\", reference \"" << want << "\"";
    }
  };
  for (int i = 0; i < 200000; ++i) {
    const uint64_t r = rng();
    check(DT::kDouble, r);
    check(DT::kFloat, r & 0xFFFFFFFFu);
    check(DT::kInt64, r);
    check(DT::kUint64, r >> (r % 64));
    check(DT::kInt8, r & 0xFF);
  }
  // Every power of two and the decimal layout boundaries (1e-4, 1e16) and their neighbours.
  for (int e = -1074; e <= 1023; ++e) {
    const uint64_t b = test::Bits(std::ldexp(1.0, e));
    for (uint64_t d : {b - 1, b, b + 1}) check(DT::kDouble, d);
  }
  for (double v : {1e-4, 1e16, 1e-5, 1e15, 9.999999999999999e15}) {
    for (int64_t d = -2; d <= 2; ++d) {
      check(DT::kDouble, test::Bits(v) + static_cast<uint64_t>(d));
      check(DT::kFloat, test::Bits(static_cast<float>(v)) + static_cast<uint32_t>(d));
    }
  }
  for (uint32_t b = 0; b < 0x100000; b += 7) {  // float32 zero to subnormals and beyond
    check(DT::kFloat, b);
    check(DT::kFloat, 0x7F800000u - 1 - b);
  }
  for (uint64_t c = 0; c < 16; ++c) {
    check(DT::kInt4, c);
    check(DT::kInt2, c & 3);
    check(DT::kBool, c & 1);
  }
  for (uint64_t c = 0; c < 65536; c += 3) check(DT::kFloat16, c);
  for (uint64_t b = 0; b < 0x7F800000u; b += 65537) check(DT::kFloat, b);  // every binade
  for (uint64_t v :
       {uint64_t{0}, uint64_t{9}, uint64_t{10}, uint64_t{99999999}, uint64_t{100000000},
        uint64_t{9999999999999999999u}, uint64_t{10000000000000000000u}, ~uint64_t{0}}) {
    check(DT::kUint64, v);
    check(DT::kInt64, v);
    check(DT::kInt64, 0 - v);
  }
}

// ---- The scan of each target -----------------------------------------------------------

// Dispatch chooses the scan with the target: the window scan on AVX3_DL (so that the tests
// above run it wherever this CPU has it), the scalar scan on every other target.
TEST(TextScan, EachTargetParsesWithItsScan) {
  bool window_ran = false;
  {
    test::TargetLoop loop;
    loop.Run([&] {
      const bool avx3_dl = std::string(loop.target()) == "AVX3_DL";
      EXPECT_STREQ(text::ActiveScanName(), avx3_dl ? "window scan (AVX3_DL)" : "scalar scan");
      window_ran |= avx3_dl;
    });
  }  // (the loop's end restores this CPU's own targets)
  // Every target under test ran: AVX3_DL among them when it is compiled and this CPU has it
  // (unless TENSORCAST_TEST_TARGETS names others).
  const char* env = std::getenv("TENSORCAST_TEST_TARGETS");
  if (env == nullptr || *env == '\0') {
    bool supported = false;
    for (int64_t t : hwy::SupportedAndGeneratedTargets()) supported |= t == HWY_AVX3_DL;
    EXPECT_EQ(window_ran, supported);
  }
  // The scan of every compiled target, by dispatch-table index (as route plans name them).
  for (size_t i = 0; i < dispatch::TargetIndexLimit(); ++i) {
    dispatch::TargetFacts facts;
    if (!dispatch::TargetFactsAt(i, &facts)) {
      EXPECT_EQ(text::ScanNameAt(i), nullptr) << i;
      continue;
    }
    const char* name = text::ScanNameAt(i);
    ASSERT_NE(name, nullptr) << facts.name;
    EXPECT_STREQ(name,
                 std::string(facts.name) == "AVX3_DL" ? "window scan (AVX3_DL)" : "scalar scan")
        << facts.name;
  }
  EXPECT_EQ(text::ScanNameAt(dispatch::TargetIndexLimit()), nullptr);
}

// ---- Arrow layout ---------------------------------------------------------------------

struct ArrowColumn {
  std::vector<int32_t> offsets32;
  std::vector<int64_t> offsets64;
  std::string data;
  std::vector<uint8_t> validity;
};

// Texts with nulls (std::nullopt-like: a null is marked by `present` false).
ArrowColumn MakeColumn(const std::vector<std::string>& texts, const std::vector<bool>& present) {
  ArrowColumn c;
  c.offsets32.push_back(0);
  c.offsets64.push_back(0);
  c.validity.assign((texts.size() + 7) / 8, 0);
  for (size_t i = 0; i < texts.size(); ++i) {
    if (present[i]) {
      c.data += texts[i];
      c.validity[i / 8] = static_cast<uint8_t>(c.validity[i / 8] | (1u << (i % 8)));
    }
    c.offsets32.push_back(static_cast<int32_t>(c.data.size()));
    c.offsets64.push_back(static_cast<int64_t>(c.data.size()));
  }
  return c;
}

TEST(ArrowStrings, BothOffsetWidthsValiditySlicesAndEmptyStrings) {
  const std::vector<std::string> texts = {"1.5", "", "-2", "x", "1e3", "0.1", "", "7", "8", "9"};
  const std::vector<bool> present = {true, false, true, false, true, true, true, true, true, true};
  const ArrowColumn c = MakeColumn(texts, present);
  test::TargetLoop loop;
  loop.Run([&] {
    for (int width : {4, 8}) {
      ArrowStrings a;
      a.offsets = width == 4 ? static_cast<const void*>(c.offsets32.data()) : c.offsets64.data();
      a.offset_width = width;
      a.data = c.data.data();
      a.validity = c.validity.data();
      a.null_policy = NullPolicy::kZero;
      // Element 6 is the empty string: not a number.
      std::vector<float> out(10, -1.0f);
      Status s = CastFromArrowStrings(a, out.data(), DT::kFloat, 10);
      EXPECT_EQ(s.code(), StatusCode::kParseError) << s.message();
      EXPECT_EQ(s.elements_written(), 6u);
      EXPECT_NE(s.message().find("element 6"), std::string::npos) << s.message();
      EXPECT_EQ(out[0], 1.5f);
      EXPECT_EQ(test::Bits(out[1]), 0u);  // null -> 0
      EXPECT_EQ(out[2], -2.0f);
      EXPECT_EQ(test::Bits(out[3]), 0u);  // null "x" is never parsed
      EXPECT_EQ(out[4], 1000.0f);
      EXPECT_EQ(out[5], 0.1f);
      // A slice from element 7: offset 7, three elements.
      a.offset = 7;
      std::vector<int64_t> ints(3, 0);
      s = CastFromArrowStrings(a, ints.data(), DT::kInt64, 3);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(ints, (std::vector<int64_t>{7, 8, 9}));
      // Null policy ERROR names the first null.
      a.offset = 0;
      a.null_policy = NullPolicy::kError;
      s = CastFromArrowStrings(a, out.data(), DT::kFloat, 3);
      EXPECT_EQ(s.code(), StatusCode::kParseError);
      EXPECT_EQ(s.elements_written(), 1u);
      EXPECT_NE(s.message().find("element 1: null"), std::string::npos) << s.message();
      // No validity: every element present; element 1 is then "" (not a number).
      a.validity = nullptr;
      s = CastFromArrowStrings(a, out.data(), DT::kFloat, 2);
      EXPECT_EQ(s.code(), StatusCode::kParseError);
      EXPECT_EQ(s.elements_written(), 1u);
    }
  });
}

// Many texts through the Arrow layout, so that the window scan's blocks, its plain and
// masked loads (the last texts of the buffer) and its validity words are all used: nulls
// whose spans hold other bytes, slices that start mid-byte of the bitmap, both offset
// widths; every element against the reference (a null: 0).
TEST(ArrowStrings, BlocksOfTextsWithNullsAndSlicesParseLikeTheReference) {
  std::mt19937_64 rng(13);
  std::vector<std::string> texts;
  std::vector<bool> present;
  char buf[64];
  for (int i = 0; i < 3000; ++i) {
    const double v = std::ldexp(static_cast<double>(rng() >> 11), -53) *
                     std::pow(10.0, static_cast<int>(rng() % 17) - 8) * ((rng() & 1) ? 1 : -1);
    const int form = static_cast<int>(rng() % 4);
    if (form == 0) std::snprintf(buf, sizeof(buf), "%.17g", v);
    if (form == 1) std::snprintf(buf, sizeof(buf), "%.9g", v);
    if (form == 2) std::snprintf(buf, sizeof(buf), "%.3f", v);
    if (form == 3) std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v * 1e6));
    texts.push_back(buf);
    present.push_back(rng() % 7 != 0);
  }
  // The column; a null's span holds other bytes, a number or not.
  ArrowColumn c;
  c.offsets32.push_back(0);
  c.offsets64.push_back(0);
  c.validity.assign((texts.size() + 7) / 8, 0);
  for (size_t i = 0; i < texts.size(); ++i) {
    c.data += present[i] ? texts[i] : (i % 2 != 0 ? "999" : std::string("junk") + texts[i]);
    if (present[i]) c.validity[i / 8] = static_cast<uint8_t>(c.validity[i / 8] | (1u << (i % 8)));
    c.offsets32.push_back(static_cast<int32_t>(c.data.size()));
    c.offsets64.push_back(static_cast<int64_t>(c.data.size()));
  }
  const DT types[] = {DT::kDouble, DT::kFloat, DT::kFloat16, DT::kFloat8E4M3FN,
                      DT::kInt64,  DT::kInt32, DT::kUint8,   DT::kInt16};
  // The reference's code of every element (a null: 0), per type.
  std::vector<std::vector<uint64_t>> want;
  reference::Decimal scratch;
  for (DT t : types) {
    const int bits = BitWidth(t);
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    want.emplace_back(texts.size(), 0);
    for (size_t i = 0; i < texts.size(); ++i) {
      if (!present[i]) continue;
      ASSERT_TRUE(reference::ParseText(texts[i], t, CastOptions(), &scratch, &want.back()[i]));
      want.back()[i] &= mask;
    }
  }
  test::TargetLoop loop;
  loop.Run([&] {
    for (size_t k = 0; k < std::size(types); ++k) {
      const DT t = types[k];
      for (int width : {4, 8}) {
        for (size_t offset : {size_t{0}, size_t{5}, size_t{67}}) {
          const size_t count = texts.size() - offset - (offset == 5 ? 11 : 0);
          ArrowStrings a;
          a.offsets =
              width == 4 ? static_cast<const void*>(c.offsets32.data()) : c.offsets64.data();
          a.offset_width = width;
          a.data = c.data.data();
          a.validity = c.validity.data();
          a.offset = static_cast<int64_t>(offset);
          a.null_policy = NullPolicy::kZero;
          std::vector<uint8_t> out(StorageBytes(t, count), 0xA5);
          const Status s = CastFromArrowStrings(a, out.data(), t, count);
          ASSERT_TRUE(s.ok()) << DataTypeName(t) << ": " << s.message();
          int failures = 0;
          for (size_t i = 0; i < count && failures < 10; ++i) {
            const uint64_t got = LoadElement(out, BitWidth(t), i);
            if (got != want[k][offset + i]) {
              ++failures;
              ADD_FAILURE() << DataTypeName(t) << " width " << width << " offset " << offset
                            << " element " << i << " \"" << texts[offset + i] << "\" present "
                            << present[offset + i] << ": got " << test::Hex(got) << ", reference "
                            << test::Hex(want[k][offset + i]);
            }
          }
        }
      }
    }
  });
}

// TRY_CAST: every element null or not a number becomes code 0 with its validity bit clear,
// the rest are the reference's codes; the counts and the first bad index are exact, on every
// target, with both offset widths, sliced, serially and on a pool (chunks of 64 elements
// and more, each setting its own words of the bad-element bits).
TEST(ArrowStrings, TryCastMakesNullsOfBadTextsAndCountsThem) {
  std::mt19937_64 rng(29);
  const std::vector<std::string> bad = {"x",
                                        "1e",
                                        "",
                                        "1.2.3",
                                        "nan?",
                                        "--1",
                                        "0x10",
                                        " ",
                                        "1e1e1",
                                        std::string("1\0", 2),
                                        std::string(40, '9') + "z"};
  std::vector<std::string> texts;
  std::vector<bool> present;
  char buf[64];
  for (int i = 0; i < 6000; ++i) {
    const int kind = static_cast<int>(rng() % 10);
    if (kind == 0) {
      texts.push_back(bad[rng() % bad.size()]);
    } else {
      const double v = std::ldexp(static_cast<double>(rng() >> 11), -53) *
                       std::pow(10.0, static_cast<int>(rng() % 9) - 4) * ((rng() & 1) ? 1 : -1);
      std::snprintf(buf, sizeof(buf), kind % 2 ? "%.9g" : "%.2f", v);
      texts.push_back(buf);
    }
    present.push_back(rng() % 11 != 0);
  }
  // No bad text among the first 700: the first error is found past the first chunks.
  for (size_t i = 0; i < 700; ++i) {
    if (std::find(bad.begin(), bad.end(), texts[i]) != bad.end()) texts[i] = "1";
  }
  ArrowColumn c;
  c.offsets32.push_back(0);
  c.offsets64.push_back(0);
  c.validity.assign((texts.size() + 7) / 8, 0);
  for (size_t i = 0; i < texts.size(); ++i) {
    c.data += present[i] ? texts[i] : std::string("junk");
    if (present[i]) c.validity[i / 8] = static_cast<uint8_t>(c.validity[i / 8] | (1u << (i % 8)));
    c.offsets32.push_back(static_cast<int32_t>(c.data.size()));
    c.offsets64.push_back(static_cast<int64_t>(c.data.size()));
  }
  reference::Decimal scratch;
  std::vector<std::vector<uint64_t>> want;
  std::vector<uint8_t> good(texts.size(), 0);  // present and a number (the same for every type)
  for (DT t : kNumeric) {
    const int bits = BitWidth(t);
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    want.emplace_back(texts.size(), 0);
    for (size_t i = 0; i < texts.size(); ++i) {
      uint64_t code = 0;
      const bool ok =
          present[i] && reference::ParseText(texts[i], t, CastOptions(), &scratch, &code);
      if (t == kNumeric[0]) good[i] = ok;
      ASSERT_EQ(ok, good[i] != 0) << texts[i];
      want.back()[i] = ok ? code & mask : 0;
    }
  }
  ThreadPool pool(4);
  test::TargetLoop loop;
  loop.Run([&] {
    for (size_t k = 0; k < std::size(kNumeric); ++k) {
      const DT t = kNumeric[k];
      for (int width : {4, 8}) {
        for (size_t offset : {size_t{0}, size_t{67}}) {
          for (bool threads : {false, true}) {
            const size_t count = texts.size() - offset - 3;
            ArrowStrings a;
            a.offsets =
                width == 4 ? static_cast<const void*>(c.offsets32.data()) : c.offsets64.data();
            a.offset_width = width;
            a.data = c.data.data();
            a.validity = c.validity.data();
            a.offset = static_cast<int64_t>(offset);
            CastOptions o;
            if (threads) o.runner = pool.runner();
            std::vector<uint8_t> out(StorageBytes(t, count), 0xA5);
            std::vector<uint8_t> validity((count + 7) / 8, 0xEE);
            TryCastNulls nulls;
            nulls.validity = validity.data();
            const Status s = TryCastFromArrowStrings(a, out.data(), t, count, &nulls, o);
            const std::string what = std::string(DataTypeName(t)) + " width " +
                                     std::to_string(width) + " offset " + std::to_string(offset) +
                                     (threads ? " pool" : "");
            ASSERT_TRUE(s.ok()) << what << ": " << s.message();
            size_t errors = 0, first = SIZE_MAX;
            int failures = 0;
            for (size_t i = 0; i < count && failures < 10; ++i) {
              const size_t e = offset + i;
              const bool is_bad = present[e] && !good[e];
              errors += is_bad;
              if (is_bad && first == SIZE_MAX) first = i;
              const bool bit = (validity[i / 8] >> (i % 8)) & 1;
              const uint64_t got = LoadElement(out, BitWidth(t), i);
              if (got != want[k][e] || bit != (good[e] != 0)) {
                ++failures;
                ADD_FAILURE() << what << " element " << i << " \"" << texts[e] << "\" present "
                              << present[e] << ": got " << test::Hex(got) << " valid " << bit
                              << ", want " << test::Hex(want[k][e]) << " valid " << int{good[e]};
              }
            }
            EXPECT_EQ(nulls.error_count, errors) << what;
            EXPECT_EQ(nulls.first_error, first) << what;
            EXPECT_GT(first, size_t{600}) << what;
            if (count % 8 != 0) {
              EXPECT_EQ(validity.back() >> (count % 8), 0) << what;
            }
          }
        }
      }
    }
  });
  // No bad text: the counts say so; a null nulls pointer is an argument error.
  const ArrowColumn numbers =
      MakeColumn({"1", "2", "3", "-4", "5e3", "6", ".5", "8"}, std::vector<bool>(8, true));
  ArrowStrings a;
  a.offsets = numbers.offsets32.data();
  a.data = numbers.data.data();
  std::vector<uint8_t> out(8 * 4);
  TryCastNulls nulls;
  ASSERT_TRUE(TryCastFromArrowStrings(a, out.data(), DT::kFloat, 8, &nulls).ok());
  EXPECT_EQ(nulls.error_count, 0u);
  EXPECT_EQ(nulls.first_error, SIZE_MAX);
  const Status s = TryCastFromArrowStrings(a, out.data(), DT::kFloat, 8, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("nulls"), std::string::npos) << s.message();
  EXPECT_EQ(TryCastFromArrowStrings(a, out.data(), DT::kString, 8, &nulls).code(),
            StatusCode::kUnsupported);
}

// Texts from the bytes of numbers, whitespace, the letters of inf / infinity / nan / true /
// false and a few others, 0 to 40 bytes (so that some pass the 32-byte window), mostly
// not numbers: the fast paths tell "no number at all" from uncommon spellings of numbers
// (spaces, words, many digits) without the exact path. Each element of a try cast, on
// every target, must be what the reference makes of that text alone.
TEST(ArrowStrings, TryCastTellsTextsThatAreNoNumberFromUncommonNumbers) {
  std::mt19937_64 rng(41);
  const std::string alphabet = "0123456789000111+-.eE \t\ninfINFtyaAYnNrRuUlLsSx#\x80";
  std::vector<std::string> texts = {"inf",
                                    "-Infinity",
                                    " +NaN ",
                                    "\t7\n",
                                    "1e123456789",
                                    "5.",
                                    "+.5",
                                    "true",
                                    " FALSE",
                                    "tru",
                                    "infini",
                                    "nan1",
                                    "1 ",
                                    " ",
                                    "",
                                    "e",
                                    "E5",
                                    "1E+",
                                    "-.e1",
                                    std::string(33, '7'),
                                    std::string(31, '1') + "e",
                                    std::string(30, '2') + " x"};
  for (int i = 0; i < 20000; ++i) {
    const size_t len = rng() % 41;
    std::string t;
    for (size_t k = 0; k < len; ++k) t += alphabet[rng() % alphabet.size()];
    texts.push_back(t);
  }
  // And numbers cut from the same alphabet's number part, so that both kinds are common.
  for (int i = 0; i < 5000; ++i) {
    const size_t len = 1 + rng() % 34;
    std::string t = rng() % 3 == 0 ? "-" : "";
    for (size_t k = 0; k < len; ++k) t += static_cast<char>('0' + rng() % 10);
    if (rng() % 2) t += "e" + std::to_string(static_cast<int>(rng() % 40) - 20);
    if (rng() % 4 == 0) t = " " + t;
    texts.push_back(t);
  }
  const std::vector<bool> present(texts.size(), true);
  const ArrowColumn c = MakeColumn(texts, present);
  reference::Decimal scratch;
  test::TargetLoop loop;
  for (DT t : kNumeric) {
    const int bits = BitWidth(t);
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    std::vector<uint64_t> want(texts.size(), 0);
    std::vector<uint8_t> good(texts.size(), 0);
    size_t bad = 0;
    for (size_t i = 0; i < texts.size(); ++i) {
      uint64_t code = 0;
      good[i] = reference::ParseText(texts[i], t, CastOptions(), &scratch, &code);
      want[i] = good[i] ? code & mask : 0;
      bad += !good[i];
    }
    ASSERT_GT(bad, texts.size() / 2) << DataTypeName(t);
    ASSERT_GT(texts.size() - bad, size_t{4000}) << DataTypeName(t);
    loop.Run([&] {
      ArrowStrings a;
      a.offsets = c.offsets32.data();
      a.data = c.data.data();
      std::vector<uint8_t> out(StorageBytes(t, texts.size()), 0xA5);
      std::vector<uint8_t> validity((texts.size() + 7) / 8, 0xEE);
      TryCastNulls nulls;
      nulls.validity = validity.data();
      const Status s = TryCastFromArrowStrings(a, out.data(), t, texts.size(), &nulls);
      ASSERT_TRUE(s.ok()) << DataTypeName(t) << ": " << s.message();
      EXPECT_EQ(nulls.error_count, bad) << DataTypeName(t);
      int failures = 0;
      for (size_t i = 0; i < texts.size() && failures < 10; ++i) {
        const bool bit = (validity[i / 8] >> (i % 8)) & 1;
        const uint64_t got = LoadElement(out, bits, i);
        if (got != want[i] || bit != (good[i] != 0)) {
          ++failures;
          ADD_FAILURE() << DataTypeName(t) << " \"" << texts[i] << "\": got " << test::Hex(got)
                        << " valid " << bit << ", want " << test::Hex(want[i]) << " valid "
                        << int{good[i]};
        }
      }
    });
  }
}

TEST(ArrowStrings, NullsWriteTheZeroCodeOfEveryTarget) {
  const ArrowColumn c = MakeColumn({"3", "", "1"}, {true, false, true});
  ArrowStrings a;
  a.offsets = c.offsets32.data();
  a.data = c.data.data();
  a.validity = c.validity.data();
  a.null_policy = NullPolicy::kZero;
  test::TargetLoop loop;
  loop.Run([&] {
    for (DT t : kNumeric) {
      std::vector<uint8_t> out(StorageBytes(t, 3), 0xFF);
      const Status s = CastFromArrowStrings(a, out.data(), t, 3);
      ASSERT_TRUE(s.ok()) << DataTypeName(t) << ": " << s.message();
      EXPECT_EQ(LoadElement(out, BitWidth(t), 1), 0u) << DataTypeName(t);
    }
  });
}

TEST(ArrowStrings, BadOffsetsAndArgumentsAreRefusedBeforeAnythingIsWritten) {
  std::vector<int32_t> offsets = {0, 3, 2, 5};
  const std::string data = "1.52.5";
  ArrowStrings a;
  a.offsets = offsets.data();
  a.data = data.data();
  std::vector<float> out(3, 9.0f);
  Status s = CastFromArrowStrings(a, out.data(), DT::kFloat, 3);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("element 1: offsets decrease"), std::string::npos) << s.message();
  EXPECT_EQ(out[0], 9.0f);
  offsets = {-1, 3, 4, 5};
  s = CastFromArrowStrings(a, out.data(), DT::kFloat, 3);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  offsets = {0, 3, 4, 5};
  a.offset_width = 2;
  EXPECT_EQ(CastFromArrowStrings(a, out.data(), DT::kFloat, 3).code(),
            StatusCode::kInvalidArgument);
  a.offset_width = 4;
  a.offset = -1;
  EXPECT_EQ(CastFromArrowStrings(a, out.data(), DT::kFloat, 3).code(),
            StatusCode::kInvalidArgument);
  a.offset = 0;
  a.null_policy = static_cast<NullPolicy>(7);
  EXPECT_EQ(CastFromArrowStrings(a, out.data(), DT::kFloat, 3).code(),
            StatusCode::kInvalidArgument);
  a.null_policy = NullPolicy::kError;
  EXPECT_EQ(CastFromArrowStrings(a, out.data(), DT::kString, 3).code(), StatusCode::kUnsupported);
  EXPECT_EQ(CastFromArrowStrings(a, nullptr, DT::kFloat, 3).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(out[0], 9.0f);
  EXPECT_TRUE(CastFromArrowStrings(a, nullptr, DT::kFloat, 0).ok());
}

TEST(ArrowStrings, OutputOffsetsDataAndTheCapacityProtocol) {
  const std::vector<double> values = {1.5, -0.0, 1e16, 1e-5, std::nan(""), 123.0, 0.1};
  const std::vector<std::string> want = {"1.5", "-0.0", "1e+16", "1e-05", "nan", "123.0", "0.1"};
  std::string joined;
  for (const std::string& s : want) joined += s;
  for (int width : {4, 8}) {
    std::vector<int64_t> offsets(values.size() + 1, -7);
    ArrowStringsOut out;
    out.offsets = offsets.data();
    out.offset_width = width;
    // Size query: nothing written but data_size.
    Status s = CastToArrowStrings(values.data(), DT::kDouble, &out, values.size());
    EXPECT_EQ(s.code(), StatusCode::kBufferTooSmall) << s.message();
    EXPECT_EQ(out.data_size, joined.size());
    EXPECT_EQ(offsets[0], -7);
    // Exactly enough, then roomy: the same bytes.
    for (size_t capacity : {joined.size(), joined.size() + 1000}) {
      std::string data(capacity, '#');
      out.data = data.data();
      out.data_capacity = capacity;
      s = CastToArrowStrings(values.data(), DT::kDouble, &out, values.size());
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(out.data_size, joined.size());
      EXPECT_EQ(data.substr(0, joined.size()), joined);
      size_t pos = 0;
      for (size_t i = 0; i <= values.size(); ++i) {
        const int64_t o =
            width == 8 ? offsets[i] : reinterpret_cast<const int32_t*>(offsets.data())[i];
        EXPECT_EQ(o, static_cast<int64_t>(pos)) << "offset " << i;
        if (i < values.size()) pos += want[i].size();
      }
    }
    // One byte short: too small, data untouched.
    std::string data(joined.size() - 1, '#');
    out.data = data.data();
    out.data_capacity = data.size();
    s = CastToArrowStrings(values.data(), DT::kDouble, &out, values.size());
    EXPECT_EQ(s.code(), StatusCode::kBufferTooSmall);
    EXPECT_EQ(data, std::string(joined.size() - 1, '#'));
  }
}

TEST(ArrowStrings, Int32OffsetsBeyondTheLimitAreAnErrorNeverAWrap) {
  // The limit lowered by the test hook: 20 bytes of text.
  const size_t old = text::SetInt32OffsetLimitForTest(20);
  const std::vector<int32_t> values = {1000000, 2000000, 3000000};  // 7 bytes each
  std::vector<int32_t> offsets(4, -7);
  std::string data(100, '#');
  ArrowStringsOut out;
  out.offsets = offsets.data();
  out.data = data.data();
  out.data_capacity = data.size();
  Status s = CastToArrowStrings(values.data(), DT::kInt32, &out, 3);
  EXPECT_EQ(s.code(), StatusCode::kOverflow) << s.message();
  EXPECT_EQ(offsets[0], -7);
  out.offset_width = 8;
  std::vector<int64_t> offsets64(4, -7);
  out.offsets = offsets64.data();
  s = CastToArrowStrings(values.data(), DT::kInt32, &out, 3);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(offsets64[3], 21);
  text::SetInt32OffsetLimitForTest(old);
}

}  // namespace
}  // namespace tensorcast

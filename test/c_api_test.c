/* The C API (tensorcast/tensorcast_c.h) from C99: golden values from the ONNX spec /
 * IEEE 754 / docs/semantics.md, and every error path. A plain main(): each failed CHECK
 * prints its line and the exit code is non-zero. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorcast/tensorcast_c.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    ++checks;                                                                  \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* A call returning `expected`; err (filled by the call) must agree, and carry a message
 * exactly when the status is not TC_OK; `part` (if not NULL) must occur in it. */
static char msg[512];
static tc_error err;

static void reset_err(void) {
  memset(msg, 'x', sizeof msg);
  err.code = -1;
  err.elements_written = 12345;
  err.message_length = 12345;
  err.message = msg;
  err.message_capacity = sizeof msg;
}

static void expect_status(int rc, int expected, const char* part, const char* call, int line) {
  int ok = rc == expected && err.code == rc &&
           (rc == TC_OK ? msg[0] == '\0' && err.message_length == 0
                        : msg[0] != '\0' && err.message_length == strlen(msg));
  if (ok && part != NULL) ok = strstr(msg, part) != NULL;
  ++checks;
  if (!ok) {
    const char* name = tc_status_name(rc);
    fprintf(stderr, "%s:%d: %s returned %d (%s) message \"%.200s\"; expected %d%s%s\n", __FILE__,
            line, call, rc, name != NULL ? name : "?", err.message_length < sizeof msg ? msg : "",
            expected, part != NULL ? " with message containing " : "", part != NULL ? part : "");
    ++failures;
  }
}

#define EXPECT(call, expected, part)                            \
  do {                                                          \
    reset_err();                                                \
    expect_status((call), (expected), (part), #call, __LINE__); \
  } while (0)

static float f32_from_bits(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static uint32_t bits_from_f32(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static tc_string_view sv(const char* text) {
  tc_string_view v;
  v.data = text;
  v.size = strlen(text);
  return v;
}

static int view_is(tc_string_view v, const char* text) {
  return v.size == strlen(text) && memcmp(v.data, text, v.size) == 0 && v.data[v.size] == '\0';
}

static void test_version(void) {
  const char* s = tc_version_string();
  char expected[32];
  CHECK(tc_version() == TENSORCAST_VERSION_NUMBER);
  CHECK(tc_version() == (uint32_t)(TENSORCAST_VERSION_MAJOR * 10000 +
                                   TENSORCAST_VERSION_MINOR * 100 + TENSORCAST_VERSION_PATCH));
  sprintf(expected, "%d.%d.%d", TENSORCAST_VERSION_MAJOR, TENSORCAST_VERSION_MINOR,
          TENSORCAST_VERSION_PATCH);
  CHECK(s != NULL && strcmp(s, expected) == 0);
  CHECK(strcmp(TENSORCAST_VERSION_STRING, expected) == 0);
  CHECK(tc_active_target() != NULL && tc_active_target()[0] != '\0');
}

static void test_numeric_cast(void) {
  /* float32 -> float16 (IEEE 754 binary16). */
  float f[4];
  uint16_t h[4];
  uint16_t bf[3];
  uint8_t f8[3];
  uint8_t e8[1];
  f[0] = 1.0f;
  f[1] = 65504.0f;
  f[2] = -2.0f;
  f[3] = 0.5f;
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, h, TC_TYPE_FLOAT16, 4, 1, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(h[0] == 0x3C00 && h[1] == 0x7BFF && h[2] == 0xC000 && h[3] == 0x3800);

  /* float32 -> bfloat16, round to nearest even: 1 + 2^-8 ties to 1.0 (0x3F80),
   * 1 + 3 * 2^-8 ties up to 0x3F82, just above the tie rounds up to 0x3F81. */
  f[0] = f32_from_bits(0x3F808000u);
  f[1] = f32_from_bits(0x3F818000u);
  f[2] = f32_from_bits(0x3F808001u);
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, bf, TC_TYPE_BFLOAT16, 3, 1, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(bf[0] == 0x3F80 && bf[1] == 0x3F82 && bf[2] == 0x3F81);

  /* float8e4m3fn: 448 is the largest finite value (S.1111.110 = 0x7E), 1.0 = 0x38;
   * 1e6 saturates to 0x7E, or becomes NaN (0x7F) with saturate = 0. */
  f[0] = 448.0f;
  f[1] = 1.0f;
  f[2] = 1e6f;
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, f8, TC_TYPE_FLOAT8E4M3FN, 3, 1, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(f8[0] == 0x7E && f8[1] == 0x38 && f8[2] == 0x7E);
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, f8, TC_TYPE_FLOAT8E4M3FN, 3, 0, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(f8[0] == 0x7E && f8[1] == 0x38 && f8[2] == 0x7F);

  /* float8e8m0 (2^(code - 127)): 2.25 lies between 2 (0x80) and 4 (0x81). */
  f[0] = 2.25f;
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, e8, TC_TYPE_FLOAT8E8M0, 1, 1, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(e8[0] == 0x81);
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, e8, TC_TYPE_FLOAT8E8M0, 1, 1, TC_ROUND_DOWN, &err), TC_OK, NULL);
  CHECK(e8[0] == 0x80);
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, e8, TC_TYPE_FLOAT8E8M0, 1, 1, TC_ROUND_NEAREST, &err), TC_OK,
         NULL);
  CHECK(e8[0] == 0x80);
  f[0] = 3.75f;
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, e8, TC_TYPE_FLOAT8E8M0, 1, 1, TC_ROUND_NEAREST, &err), TC_OK,
         NULL);
  CHECK(e8[0] == 0x81);

  /* CastLike: Cast to the like type. */
  f[0] = 1.0f;
  h[0] = 0;
  EXPECT(tc_cast_like(f, TC_TYPE_FLOAT, h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(h[0] == 0x3C00);
  f[0] = 2.25f;
  EXPECT(tc_cast_like(f, TC_TYPE_FLOAT, e8, TC_TYPE_FLOAT8E8M0, 1, 1, TC_ROUND_DOWN, &err), TC_OK,
         NULL);
  CHECK(e8[0] == 0x80);

  /* int32 -> int4: the low 4 bits (docs/semantics.md: 100 = 0x64 -> 4), packed two per byte,
   * element 0 in the low nibble, zero padding. */
  {
    int32_t in[3];
    uint8_t packed[2] = {0xAA, 0xAA};
    in[0] = 1;
    in[1] = -2;
    in[2] = 100;
    EXPECT(tc_cast(in, TC_TYPE_INT32, packed, TC_TYPE_INT4, 3, 1, TC_ROUND_UP, &err), TC_OK, NULL);
    CHECK(packed[0] == 0xE1 && packed[1] == 0x04);
  }
  /* count 0: nothing to do, NULL buffers are fine; err may be NULL. */
  EXPECT(tc_cast(NULL, TC_TYPE_FLOAT, NULL, TC_TYPE_INT8, 0, 1, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(tc_cast(f, TC_TYPE_FLOAT, h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, NULL) == TC_OK);
}

static void test_cast_errors(void) {
  float f[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  uint16_t h[4] = {0x1234, 0x1234, 0x1234, 0x1234};
  uint8_t bytes[16];
  EXPECT(tc_cast(f, 99, h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, &err), TC_INVALID_ARGUMENT, "99");
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, h, -3, 1, 1, TC_ROUND_UP, &err), TC_INVALID_ARGUMENT, "-3");
  EXPECT(tc_cast(f, TC_TYPE_UNDEFINED, h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, NULL);
  /* The only unsupported types of Cast: complex. */
  EXPECT(tc_cast(f, TC_TYPE_COMPLEX64, h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, &err), TC_UNSUPPORTED,
         "COMPLEX64");
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, bytes, TC_TYPE_COMPLEX128, 1, 1, TC_ROUND_UP, &err),
         TC_UNSUPPORTED, "COMPLEX128");
  EXPECT(tc_cast_like(f, TC_TYPE_FLOAT, h, 77, 1, 1, TC_ROUND_UP, &err), TC_INVALID_ARGUMENT, "77");
  /* CastLike (opsets 15-25) does not list the FLOAT6 types of Cast-28. */
  EXPECT(tc_cast_like(f, TC_TYPE_FLOAT, h, TC_TYPE_FLOAT6E2M3, 1, 1, TC_ROUND_UP, &err),
         TC_UNSUPPORTED, "like_type: FLOAT6E2M3");
  EXPECT(tc_cast_like_ex(f, TC_TYPE_FLOAT6E3M2, h, TC_TYPE_FLOAT, 1, NULL, &err), TC_UNSUPPORTED,
         "src_type: FLOAT6E3M2");
  /* round_mode is checked for every target. */
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, h, TC_TYPE_FLOAT16, 1, 1, 3, &err), TC_INVALID_ARGUMENT,
         "round_mode");
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, h, TC_TYPE_FLOAT8E8M0, 1, 1, -1, &err), TC_INVALID_ARGUMENT,
         "round_mode");
  EXPECT(tc_cast(NULL, TC_TYPE_FLOAT, h, TC_TYPE_FLOAT16, 2, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, "src");
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, NULL, TC_TYPE_FLOAT16, 2, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, "dst");
  /* Overlap: dst starts inside src. */
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, (char*)f + 2, TC_TYPE_FLOAT16, 2, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, "overlap");
  EXPECT(tc_cast(NULL, TC_TYPE_DOUBLE, NULL, TC_TYPE_FLOAT, (size_t)-1, 1, TC_ROUND_UP, &err),
         TC_OVERFLOW, NULL);
  CHECK(h[0] == 0x1234 && h[1] == 0x1234); /* nothing written by the failures above */
  /* err NULL: the code alone. */
  CHECK(tc_cast(f, 99, h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, NULL) == TC_INVALID_ARGUMENT);

  /* Opset checks. */
  EXPECT(tc_check_cast_opset(19, TC_TYPE_FLOAT, TC_TYPE_FLOAT8E4M3FN, 0, &err), TC_OK, NULL);
  EXPECT(tc_check_cast_opset(13, TC_TYPE_FLOAT, TC_TYPE_FLOAT8E4M3FN, 0, &err), TC_UNSUPPORTED,
         NULL);
  EXPECT(tc_check_cast_opset(14, TC_TYPE_FLOAT, TC_TYPE_FLOAT16, 1, &err), TC_UNSUPPORTED,
         "CastLike");
  EXPECT(tc_check_cast_opset(25, TC_TYPE_FLOAT, 99, 0, &err), TC_INVALID_ARGUMENT, NULL);
}

static void test_strings(void) {
  tc_string_view in[4];
  float f[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  char buf[64];
  tc_string_view out[4];
  tc_string_arena arena;

  /* STRING -> FLOAT (correctly rounded decimal text; surrounding spaces accepted). */
  in[0] = sv("3.5");
  in[1] = sv(" 1.5 ");
  in[2] = sv("-inf");
  in[3] = sv("1e-5");
  EXPECT(tc_cast(in, TC_TYPE_STRING, f, TC_TYPE_FLOAT, 4, 1, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(bits_from_f32(f[0]) == 0x40600000u && bits_from_f32(f[1]) == 0x3FC00000u &&
        bits_from_f32(f[2]) == 0xFF800000u && bits_from_f32(f[3]) == 0x3727C5ACu);
  /* The views need not be NUL-terminated: "2.5" out of "2.57". */
  in[0].data = "2.57";
  in[0].size = 3;
  EXPECT(tc_cast(in, TC_TYPE_STRING, f, TC_TYPE_FLOAT, 1, 1, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(f[0] == 2.5f);

  /* STRING -> INT8 (truncation toward zero, saturation) and BOOL. */
  {
    int8_t i8[3];
    uint8_t b[3];
    in[0] = sv("100.5");
    in[1] = sv("300");
    in[2] = sv("-7");
    EXPECT(tc_cast(in, TC_TYPE_STRING, i8, TC_TYPE_INT8, 3, 1, TC_ROUND_UP, &err), TC_OK, NULL);
    CHECK(i8[0] == 100 && i8[1] == 127 && i8[2] == -7);
    in[0] = sv("true");
    in[1] = sv("FALSE");
    in[2] = sv("2");
    EXPECT(tc_cast(in, TC_TYPE_STRING, b, TC_TYPE_BOOL, 3, 1, TC_ROUND_UP, &err), TC_OK, NULL);
    CHECK(b[0] == 1 && b[1] == 0 && b[2] == 1);
  }

  /* Parse error: elements before the bad one are written, elements_written says so. */
  f[0] = f[1] = f[2] = 0.0f;
  in[0] = sv("1");
  in[1] = sv("2");
  in[2] = sv("abc");
  in[3] = sv("4");
  EXPECT(tc_cast(in, TC_TYPE_STRING, f, TC_TYPE_FLOAT, 4, 1, TC_ROUND_UP, &err), TC_PARSE_ERROR,
         "abc");
  CHECK(err.elements_written == 2 && f[0] == 1.0f && f[1] == 2.0f);
  CHECK(strstr(msg, "element 2") != NULL);
  /* A view larger than any object is an argument error, found before anything is read
     (the data pointer is never dereferenced). */
  in[0] = sv("1");
  in[1].data = "2";
  in[1].size = (size_t)1 << (sizeof(size_t) * 8 - 2);
  EXPECT(tc_cast(in, TC_TYPE_STRING, f, TC_TYPE_FLOAT, 2, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, "src[1]");
  in[0].data = NULL; /* an empty string (NULL data, size 0) is not a number */
  in[0].size = 0;
  EXPECT(tc_cast(in, TC_TYPE_STRING, f, TC_TYPE_FLOAT, 1, 1, TC_ROUND_UP, &err), TC_PARSE_ERROR,
         NULL);
  CHECK(err.elements_written == 0);
  in[0] = sv("maybe");
  EXPECT(tc_cast(in, TC_TYPE_STRING, f, TC_TYPE_BOOL, 1, 1, TC_ROUND_UP, &err), TC_PARSE_ERROR,
         "maybe");
  /* A view with NULL data and a size: caught before anything is converted. */
  f[0] = 9.0f;
  in[0] = sv("5");
  in[1].data = NULL;
  in[1].size = 3;
  EXPECT(tc_cast(in, TC_TYPE_STRING, f, TC_TYPE_FLOAT, 2, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, "src[1]");
  CHECK(f[0] == 9.0f && err.elements_written == 0);
  EXPECT(tc_cast(NULL, TC_TYPE_STRING, f, TC_TYPE_FLOAT, 1, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, "src");
  EXPECT(tc_cast(in, TC_TYPE_STRING, NULL, TC_TYPE_FLOAT, 1, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, "dst");
  EXPECT(tc_cast(in, TC_TYPE_STRING, f, TC_TYPE_COMPLEX64, 1, 1, TC_ROUND_UP, &err), TC_UNSUPPORTED,
         NULL);
  EXPECT(tc_cast(in, TC_TYPE_STRING, f, TC_TYPE_FLOAT, 1, 1, 7, &err), TC_INVALID_ARGUMENT,
         "round_mode");
  EXPECT(tc_cast(in, TC_TYPE_STRING, f, TC_TYPE_FLOAT, (size_t)-1 / 2, 1, TC_ROUND_UP, &err),
         TC_OVERFLOW, NULL);

  /* FLOAT -> STRING into an arena: numpy str() spellings, each text NUL-terminated.
   * "1.5" "1.0" "1e-05" "-0.0" need 4 + 4 + 6 + 5 = 19 bytes. */
  f[0] = 1.5f;
  f[1] = 1.0f;
  f[2] = 1e-5f;
  f[3] = -0.0f;
  /* Size query: no buffer at all. */
  arena.data = NULL;
  arena.capacity = 0;
  arena.views = out;
  arena.size = 0;
  out[0].data = NULL;
  out[0].size = 777;
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, &arena, TC_TYPE_STRING, 4, 1, TC_ROUND_UP, &err),
         TC_BUFFER_TOO_SMALL, "19");
  CHECK(arena.size == 19 && out[0].size == 777);
  /* One byte short: nothing written, the size required reported again. */
  memset(buf, '#', sizeof buf);
  arena.data = buf;
  arena.capacity = 18;
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, &arena, TC_TYPE_STRING, 4, 1, TC_ROUND_UP, &err),
         TC_BUFFER_TOO_SMALL, "19");
  CHECK(arena.size == 19 && buf[0] == '#' && out[0].size == 777);
  arena.capacity = 19;
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, &arena, TC_TYPE_STRING, 4, 1, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(arena.size == 19 && buf[19] == '#');
  CHECK(view_is(out[0], "1.5") && view_is(out[1], "1.0") && view_is(out[2], "1e-05") &&
        view_is(out[3], "-0.0"));
  CHECK(out[0].data == buf && out[1].data == buf + 4 && out[3].data == buf + 14);

  /* INT32 / BOOL -> STRING, CastLike to STRING, STRING -> STRING (a copy). */
  {
    int32_t i[2] = {-7, 2147483647};
    uint8_t b[2] = {1, 0};
    arena.capacity = sizeof buf;
    EXPECT(tc_cast(i, TC_TYPE_INT32, &arena, TC_TYPE_STRING, 2, 1, TC_ROUND_UP, &err), TC_OK, NULL);
    CHECK(view_is(out[0], "-7") && view_is(out[1], "2147483647") && arena.size == 14);
    EXPECT(tc_cast_like(b, TC_TYPE_BOOL, &arena, TC_TYPE_STRING, 2, 1, TC_ROUND_UP, &err), TC_OK,
           NULL);
    CHECK(view_is(out[0], "True") && view_is(out[1], "False"));
    in[0] = sv("x y");
    in[1].data = NULL;
    in[1].size = 0;
    in[2] = sv("abc");
    EXPECT(tc_cast(in, TC_TYPE_STRING, &arena, TC_TYPE_STRING, 3, 1, TC_ROUND_UP, &err), TC_OK,
           NULL);
    CHECK(view_is(out[0], "x y") && view_is(out[1], "") && view_is(out[2], "abc") &&
          arena.size == 9 && out[0].data != in[0].data);
  }

  /* Arena errors. */
  arena.views = NULL;
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, &arena, TC_TYPE_STRING, 1, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, "views");
  arena.views = out;
  arena.data = NULL;
  arena.capacity = 10;
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, &arena, TC_TYPE_STRING, 1, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, "data");
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, NULL, TC_TYPE_STRING, 1, 1, TC_ROUND_UP, &err),
         TC_INVALID_ARGUMENT, "dst");
  /* count 0: the arena is not needed; when given, its size becomes 0. */
  arena.size = 5;
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, &arena, TC_TYPE_STRING, 0, 1, TC_ROUND_UP, &err), TC_OK, NULL);
  CHECK(arena.size == 0);
  EXPECT(tc_cast(f, TC_TYPE_FLOAT, NULL, TC_TYPE_STRING, 0, 1, TC_ROUND_UP, &err), TC_OK, NULL);
}

/* ---- Arrow strings ---------------------------------------------------------------- */

/* An Arrow column of 11 texts (utf8 and large_utf8 offsets over the same bytes):
 *   index:  0    1    2      3      4        5    6      7        8     9    10
 *   text:  "x"  "7"  "1.5"  "bad"  "-2.25"  ""   "1e3"  " 0.5 "  "-0"  "3"  ""
 *   valid:  1    1    1      0      1        0    1      1        1     1    1
 * Validity is LSB first: byte 0 = 0b11010111, byte 1 = 0b00000111. A null slot may hold
 * bytes ("bad"): they are never read as a number. The tests slice it at offset 2. */
static const char arrow_data[] = "x71.5bad-2.251e3 0.5 -03";
static const int32_t arrow_offsets32[12] = {0, 1, 2, 5, 8, 13, 13, 16, 21, 23, 24, 24};
static const int64_t arrow_offsets64[12] = {0, 1, 2, 5, 8, 13, 13, 16, 21, 23, 24, 24};
static const uint8_t arrow_validity[2] = {0xD7, 0x07};

static tc_arrow_strings arrow_column(int width, int64_t offset, int null_policy) {
  tc_arrow_strings a = TC_ARROW_STRINGS_INIT;
  a.offsets = width == 8 ? (const void*)arrow_offsets64 : (const void*)arrow_offsets32;
  a.offset_width = width;
  a.data = arrow_data;
  a.validity = arrow_validity;
  a.offset = offset;
  a.null_policy = null_policy;
  return a;
}

static uint64_t bits_from_f64(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

static void test_arrow_strings_from(void) {
  /* Elements 2..9 as FLOAT, nulls zero: 1.5, 0, -2.25, 0, 1e3, 0.5 (spaces around),
   * -0.0, 3. IEEE 754 binary32: 1.5 = 0x3FC00000, -2.25 = -1.125 * 2^1 = 0xC0100000,
   * 1000 = 1.953125 * 2^9 = 0x447A0000, 0.5 = 0x3F000000, -0.0 = 0x80000000,
   * 3 = 1.5 * 2^1 = 0x40400000; a null is the all-zero code 0x00000000. */
  static const uint32_t want_f32[8] = {0x3FC00000u, 0u,          0xC0100000u, 0u,
                                       0x447A0000u, 0x3F000000u, 0x80000000u, 0x40400000u};
  /* INT64: truncation toward zero (1.5 -> 1, -2.25 -> -2, 0.5 -> 0, -0 -> 0). */
  static const int64_t want_i64[8] = {1, 0, -2, 0, 1000, 0, 0, 3};
  /* DOUBLE: the same values in binary64; -0.0 = 0x8000000000000000. */
  static const double want_f64[8] = {1.5, 0.0, -2.25, 0.0, 1000.0, 0.5, 0.0, 3.0};
  int width;
  int i;
  for (width = 4; width <= 8; width += 4) {
    float f[9];
    double d[8];
    int64_t n[8];
    int32_t n32[3];
    tc_arrow_strings a = arrow_column(width, 2, TC_NULL_ZERO);
    tc_options o = TC_OPTIONS_INIT;

    /* Sliced at 2, nulls zero; options NULL and TC_OPTIONS_INIT are the same. */
    memset(f, 0x7F, sizeof f);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 8, NULL, &err), TC_OK, NULL);
    for (i = 0; i < 8; ++i) CHECK(bits_from_f32(f[i]) == want_f32[i]);
    CHECK(bits_from_f32(f[8]) == 0x7F7F7F7Fu); /* nothing past count */
    memset(f, 0x7F, sizeof f);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 8, &o, &err), TC_OK, NULL);
    for (i = 0; i < 8; ++i) CHECK(bits_from_f32(f[i]) == want_f32[i]);
    memset(d, 0x7F, sizeof d);
    EXPECT(tc_cast_from_arrow_strings(&a, d, TC_TYPE_DOUBLE, 8, NULL, &err), TC_OK, NULL);
    for (i = 0; i < 8; ++i) {
      CHECK(bits_from_f64(d[i]) == (i == 6 ? 0x8000000000000000ull : bits_from_f64(want_f64[i])));
    }
    memset(n, 0x7F, sizeof n);
    EXPECT(tc_cast_from_arrow_strings(&a, n, TC_TYPE_INT64, 8, NULL, &err), TC_OK, NULL);
    for (i = 0; i < 8; ++i) CHECK(n[i] == want_i64[i]);

    /* One more element: element 8 of the slice (index 10) is a present empty string,
     * not a number; the eight before it are written. */
    memset(f, 0x7F, sizeof f);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 9, NULL, &err), TC_PARSE_ERROR,
           "element 8");
    CHECK(err.elements_written == 8);
    for (i = 0; i < 8; ++i) CHECK(bits_from_f32(f[i]) == want_f32[i]);

    /* TC_NULL_ERROR: the first null (slice element 1, index 3) is the error. */
    a.null_policy = TC_NULL_ERROR;
    memset(f, 0x7F, sizeof f);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 8, NULL, &err), TC_PARSE_ERROR,
           "element 1");
    CHECK(err.elements_written == 1 && strstr(msg, "null") != NULL);
    CHECK(bits_from_f32(f[0]) == 0x3FC00000u);
    /* The same under the default policy (TC_ARROW_STRINGS_INIT). */
    a = arrow_column(width, 4, TC_NULL_ERROR);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 2, NULL, &err), TC_PARSE_ERROR,
           "element 1");
    CHECK(err.elements_written == 1 && bits_from_f32(f[0]) == 0xC0100000u);

    /* Offset 6: indexes 6..9, all present, across the bitmap's byte boundary. */
    a.offset = 6;
    memset(f, 0x7F, sizeof f);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 4, NULL, &err), TC_OK, NULL);
    CHECK(bits_from_f32(f[0]) == 0x447A0000u && bits_from_f32(f[1]) == 0x3F000000u &&
          bits_from_f32(f[2]) == 0x80000000u && bits_from_f32(f[3]) == 0x40400000u);

    /* Offset 0 and no bitmap: index 0, "x", is the first bad element. */
    a.offset = 0;
    a.validity = NULL;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 11, NULL, &err), TC_PARSE_ERROR,
           "element 0");
    CHECK(err.elements_written == 0);
    /* Offset 1, no bitmap: "7", "1.5", then the null slot's "bad" is read as a text. */
    a.offset = 1;
    memset(n32, 0x7F, sizeof n32);
    EXPECT(tc_cast_from_arrow_strings(&a, n32, TC_TYPE_INT32, 3, NULL, &err), TC_PARSE_ERROR,
           "bad");
    CHECK(err.elements_written == 2 && n32[0] == 7 && n32[1] == 1);

    /* TRY_CAST over the whole column, no offset: "x" (0), "bad" read as a text when the
     * bitmap is dropped (3), "" (5, 10) are not numbers; with the bitmap, 3 and 5 are nulls
     * and only 0 and 10 count. Validity written from bit 0: with the bitmap, elements
     * 1, 2, 4, 6, 7, 8, 9 are numbers: byte 0 = 0b11010110 = 0xD6, byte 1 = 0b011 = 0x03. */
    {
      tc_try_cast_nulls nulls = TC_TRY_CAST_NULLS_INIT;
      uint8_t validity[2] = {0xEE, 0xEE};
      float g[11];
      a = arrow_column(width, 0, TC_NULL_ERROR); /* the null policy is ignored */
      nulls.validity = validity;
      memset(g, 0x7F, sizeof g);
      EXPECT(tc_try_cast_from_arrow_strings(&a, g, TC_TYPE_FLOAT, 11, &nulls, NULL, &err), TC_OK,
             NULL);
      CHECK(validity[0] == 0xD6 && validity[1] == 0x03);
      CHECK(nulls.error_count == 2 && nulls.first_error == 0);
      CHECK(bits_from_f32(g[0]) == 0u && bits_from_f32(g[3]) == 0u && bits_from_f32(g[10]) == 0u);
      CHECK(g[1] == 7.0f && bits_from_f32(g[2]) == 0x3FC00000u &&
            bits_from_f32(g[4]) == 0xC0100000u);
      a.validity = NULL;
      nulls.validity = NULL; /* the counts only */
      EXPECT(tc_try_cast_from_arrow_strings(&a, g, TC_TYPE_FLOAT, 11, &nulls, NULL, &err), TC_OK,
             NULL);
      CHECK(nulls.error_count == 4 && nulls.first_error == 0);
      /* Slice 1..2 ("7", "1.5"): nothing bad. */
      a.offset = 1;
      EXPECT(tc_try_cast_from_arrow_strings(&a, g, TC_TYPE_FLOAT, 2, &nulls, NULL, &err), TC_OK,
             NULL);
      CHECK(nulls.error_count == 0 && nulls.first_error == SIZE_MAX);
      EXPECT(tc_try_cast_from_arrow_strings(&a, g, TC_TYPE_FLOAT, 2, NULL, NULL, &err),
             TC_INVALID_ARGUMENT, "nulls");
      nulls.struct_size = 8;
      EXPECT(tc_try_cast_from_arrow_strings(&a, g, TC_TYPE_FLOAT, 2, &nulls, NULL, &err),
             TC_INVALID_ARGUMENT, "struct_size");
    }
  }
}

static void test_arrow_strings_from_empty_and_errors(void) {
  float f[4];
  int i;
  /* Three empty strings, no data at all (data NULL is allowed when every text is
   * empty): nulls under TC_NULL_ZERO give 0, a present empty string is not a number. */
  {
    const int32_t zeros[4] = {0, 0, 0, 0};
    const uint8_t two_nulls = 0x02; /* element 1 present, 0 and 2 null */
    tc_arrow_strings a = TC_ARROW_STRINGS_INIT;
    a.offsets = zeros;
    a.validity = &two_nulls;
    a.null_policy = TC_NULL_ZERO;
    memset(f, 0x7F, sizeof f);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 1, NULL, &err), TC_OK, NULL);
    CHECK(bits_from_f32(f[0]) == 0u && bits_from_f32(f[1]) == 0x7F7F7F7Fu);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 3, NULL, &err), TC_PARSE_ERROR,
           "element 1");
    CHECK(err.elements_written == 1 && bits_from_f32(f[0]) == 0u);
    a.offset = 2;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 1, NULL, &err), TC_OK, NULL);
    a.validity = NULL;
    a.offset = 0;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 3, NULL, &err), TC_PARSE_ERROR,
           "element 0");
    CHECK(err.elements_written == 0);
    /* A text that is not empty with data NULL. */
    {
      const int32_t one[2] = {0, 1};
      a.offsets = one;
      EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 1, NULL, &err), TC_INVALID_ARGUMENT,
             "data");
    }
    /* count 0: nothing is read or written. */
    EXPECT(tc_cast_from_arrow_strings(&a, NULL, TC_TYPE_FLOAT, 0, NULL, &err), TC_OK, NULL);
  }

  /* Decreasing offsets: an argument error naming the element, nothing written. */
  {
    const int32_t down32[4] = {0, 3, 2, 5};
    const int64_t down64[4] = {0, 3, 2, 5};
    const int32_t negative[4] = {-1, 3, 4, 5};
    tc_arrow_strings a = TC_ARROW_STRINGS_INIT;
    a.data = "1.52.5";
    for (i = 0; i < 4; ++i) f[i] = 9.0f;
    a.offsets = down32;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 3, NULL, &err), TC_INVALID_ARGUMENT,
           "element 1");
    CHECK(err.elements_written == 0 && f[0] == 9.0f);
    a.offsets = down64;
    a.offset_width = 8;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 3, NULL, &err), TC_INVALID_ARGUMENT,
           "element 1");
    /* In a slice from 1 the decrease is after its element 0. */
    a.offset = 1;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 2, NULL, &err), TC_INVALID_ARGUMENT,
           "element 0");
    /* Before the decrease all is well: element 0 alone ("1.5"). */
    a.offset = 0;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 1, NULL, &err), TC_OK, NULL);
    CHECK(f[0] == 1.5f);
    f[0] = 9.0f;
    a.offsets = negative;
    a.offset_width = 4;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 3, NULL, &err), TC_INVALID_ARGUMENT,
           "negative");
    CHECK(f[0] == 9.0f && f[1] == 9.0f && f[2] == 9.0f);
  }

  /* Other argument errors. */
  {
    tc_arrow_strings a = arrow_column(4, 2, TC_NULL_ZERO);
    f[0] = 9.0f;
    EXPECT(tc_cast_from_arrow_strings(NULL, f, TC_TYPE_FLOAT, 1, NULL, &err), TC_INVALID_ARGUMENT,
           "src");
    EXPECT(tc_cast_from_arrow_strings(&a, NULL, TC_TYPE_FLOAT, 1, NULL, &err), TC_INVALID_ARGUMENT,
           "dst");
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_STRING, 1, NULL, &err), TC_UNSUPPORTED, NULL);
    EXPECT(tc_cast_from_arrow_strings(&a, f, 99, 1, NULL, &err), TC_INVALID_ARGUMENT, "99");
    a.offset_width = 2;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 1, NULL, &err), TC_INVALID_ARGUMENT,
           "offset_width");
    a.offset_width = 4;
    a.null_policy = 2;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 1, NULL, &err), TC_INVALID_ARGUMENT,
           "null_policy");
    a.null_policy = TC_NULL_ZERO;
    a.offset = -1;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 1, NULL, &err), TC_INVALID_ARGUMENT,
           "offset");
    CHECK(f[0] == 9.0f);
  }

  /* struct_size: a smaller struct (an older caller) takes TC_ARROW_STRINGS_INIT's values
   * for the fields it lacks; a larger one is refused. */
  {
    tc_arrow_strings a = arrow_column(4, 2, TC_NULL_ZERO);
    memset(f, 0x7F, sizeof f);
    /* Ends before null_policy: TC_NULL_ERROR, so the null at slice element 1 is an error. */
    a.struct_size = offsetof(tc_arrow_strings, null_policy);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 4, NULL, &err), TC_PARSE_ERROR,
           "element 1");
    CHECK(err.elements_written == 1 && strstr(msg, "null") != NULL && f[0] == 1.5f);
    /* Ends before offset: offset 0 (and TC_NULL_ERROR); index 0 is "x". */
    a.struct_size = offsetof(tc_arrow_strings, offset);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 4, NULL, &err), TC_PARSE_ERROR,
           "element 0");
    CHECK(err.elements_written == 0);
    /* The full size works as the slice. */
    a = arrow_column(4, 2, TC_NULL_ZERO);
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 4, NULL, &err), TC_OK, NULL);
    CHECK(f[0] == 1.5f && bits_from_f32(f[1]) == 0u && f[2] == -2.25f && bits_from_f32(f[3]) == 0u);
    /* Larger: refused before anything is written. */
    memset(f, 0x7F, sizeof f);
    a.struct_size = sizeof(tc_arrow_strings) + 8;
    EXPECT(tc_cast_from_arrow_strings(&a, f, TC_TYPE_FLOAT, 4, NULL, &err), TC_INVALID_ARGUMENT,
           "struct_size");
    CHECK(bits_from_f32(f[0]) == 0x7F7F7F7Fu && err.elements_written == 0);
  }
}

static double f64_from_bits(uint64_t bits) {
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* Offset i of an Arrow output of `width` bytes per offset. */
static int64_t offset_at(const void* offsets, int width, size_t i) {
  if (width == 8) return ((const int64_t*)offsets)[i];
  return ((const int32_t*)offsets)[i];
}

/* The output holds the `count` texts of `want` back to back, offsets 0, len0, ... */
static int arrow_out_is(const tc_arrow_strings_out* out, const char* const* want, size_t count) {
  size_t pos = 0, i;
  for (i = 0; i < count; ++i) {
    const size_t n = strlen(want[i]);
    if (offset_at(out->offsets, out->offset_width, i) != (int64_t)pos) return 0;
    if (memcmp(out->data + pos, want[i], n) != 0) return 0;
    pos += n;
  }
  return offset_at(out->offsets, out->offset_width, count) == (int64_t)pos && out->data_size == pos;
}

static int all_bytes_are(const void* p, size_t n, unsigned char value) {
  const unsigned char* b = (const unsigned char*)p;
  size_t i;
  for (i = 0; i < n; ++i) {
    if (b[i] != value) return 0;
  }
  return 1;
}

static void test_arrow_strings_to(void) {
  /* numpy str() of float64: shortest round-trip digits; positional from 1e-4 up to below
   * 1e16 with at least one fractional digit, scientific outside with a signed exponent of
   * at least two digits; "nan", "-inf", "-0.0". 38 bytes in all. */
  double d[9];
  static const char* const want_d[9] = {"1.5", "0.1",  "1e+16",  "1e-05", "-0.0",
                                        "nan", "-inf", "0.0001", "123.0"};
  /* int64: plain decimal, 44 bytes. */
  static const int64_t ints[5] = {0, -1, INT64_MIN, INT64_MAX, 42};
  static const char* const want_i[5] = {"0", "-1", "-9223372036854775808", "9223372036854775807",
                                        "42"};
  /* float32: the shortest digits that round-trip through float32 (0.1f -> "0.1"). */
  float f[6];
  static const char* const want_f[6] = {"0.1", "1e-05", "3.0", "-0.0", "16777216.0", "1e+16"};
  int64_t offsets[16];
  char buf[400];
  int width;
  d[0] = 1.5;
  d[1] = 0.1;
  d[2] = 1e16;
  d[3] = 1e-5;
  d[4] = f64_from_bits(0x8000000000000000ull);
  d[5] = f64_from_bits(0x7FF8000000000000ull);
  d[6] = f64_from_bits(0xFFF0000000000000ull);
  d[7] = 1e-4;
  d[8] = 123.0;
  f[0] = 0.1f;
  f[1] = 1e-5f;
  f[2] = 3.0f;
  f[3] = f32_from_bits(0x80000000u);
  f[4] = 16777216.0f;
  f[5] = 1e16f;

  for (width = 4; width <= 8; width += 4) {
    tc_arrow_strings_out out;
    tc_options o = TC_OPTIONS_INIT;
    out.struct_size = sizeof out;
    out.offsets = offsets;
    out.offset_width = width;
    out.data = NULL;
    out.data_capacity = 0;
    out.data_size = 777;

    /* Size query: data NULL, capacity 0; only data_size is written. */
    memset(offsets, 0x5A, sizeof offsets);
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 9, NULL, &err), TC_BUFFER_TOO_SMALL,
           "38");
    CHECK(out.data_size == 38 && all_bytes_are(offsets, sizeof offsets, 0x5A));

    /* Exactly the size required. */
    memset(buf, '#', sizeof buf);
    out.data = buf;
    out.data_capacity = 38;
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 9, NULL, &err), TC_OK, NULL);
    CHECK(arrow_out_is(&out, want_d, 9));
    CHECK(memcmp(buf, "1.50.11e+161e-05-0.0nan-inf0.0001123.0", 38) == 0 && buf[38] == '#');
    /* Only count + 1 offsets. */
    CHECK(all_bytes_are((const char*)offsets + 10 * (size_t)width,
                        sizeof offsets - 10 * (size_t)width, 0x5A));

    /* One byte short: TC_BUFFER_TOO_SMALL, the size required, nothing else written. */
    memset(buf, '#', sizeof buf);
    memset(offsets, 0x5A, sizeof offsets);
    out.data_capacity = 37;
    out.data_size = 777;
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 9, NULL, &err), TC_BUFFER_TOO_SMALL,
           "38");
    CHECK(out.data_size == 38 && all_bytes_are(buf, sizeof buf, '#') &&
          all_bytes_are(offsets, sizeof offsets, 0x5A));

    /* Roomy, with options TC_OPTIONS_INIT: the same texts. */
    out.data_capacity = sizeof buf;
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 9, &o, &err), TC_OK, NULL);
    CHECK(arrow_out_is(&out, want_d, 9));

    /* int64 and float32 into exactly the size a query reports. */
    out.data = NULL;
    out.data_capacity = 0;
    EXPECT(tc_cast_to_arrow_strings(ints, TC_TYPE_INT64, &out, 5, NULL, &err), TC_BUFFER_TOO_SMALL,
           NULL);
    CHECK(out.data_size == 44);
    out.data = buf;
    out.data_capacity = out.data_size;
    EXPECT(tc_cast_to_arrow_strings(ints, TC_TYPE_INT64, &out, 5, NULL, &err), TC_OK, NULL);
    CHECK(arrow_out_is(&out, want_i, 5));
    out.data = NULL;
    out.data_capacity = 0;
    EXPECT(tc_cast_to_arrow_strings(f, TC_TYPE_FLOAT, &out, 6, NULL, &err), TC_BUFFER_TOO_SMALL,
           NULL);
    CHECK(out.data_size == 30);
    out.data = buf;
    out.data_capacity = out.data_size;
    EXPECT(tc_cast_to_arrow_strings(f, TC_TYPE_FLOAT, &out, 6, NULL, &err), TC_OK, NULL);
    CHECK(arrow_out_is(&out, want_f, 6));

    /* count 0: offsets[0] = 0, no text. */
    memset(offsets, 0x5A, sizeof offsets);
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 0, NULL, &err), TC_OK, NULL);
    CHECK(offset_at(offsets, width, 0) == 0 && out.data_size == 0);

    /* struct_size other than sizeof: refused, nothing written. */
    memset(offsets, 0x5A, sizeof offsets);
    memset(buf, '#', sizeof buf);
    out.data_capacity = sizeof buf;
    out.data_size = 777;
    out.struct_size = sizeof out - 1;
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 9, NULL, &err), TC_INVALID_ARGUMENT,
           "struct_size");
    out.struct_size = sizeof out + 8;
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 9, NULL, &err), TC_INVALID_ARGUMENT,
           "struct_size");
    out.struct_size = offsetof(tc_arrow_strings_out, data_size);
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 9, NULL, &err), TC_INVALID_ARGUMENT,
           "struct_size");
    CHECK(out.data_size == 777 && all_bytes_are(buf, sizeof buf, '#') &&
          all_bytes_are(offsets, sizeof offsets, 0x5A));
    out.struct_size = sizeof out;
  }

  /* Other argument errors. */
  {
    tc_arrow_strings_out out;
    out.struct_size = sizeof out;
    out.offsets = offsets;
    out.offset_width = 2;
    out.data = buf;
    out.data_capacity = sizeof buf;
    out.data_size = 0;
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 9, NULL, &err), TC_INVALID_ARGUMENT,
           "offset_width");
    out.offset_width = 4;
    out.offsets = NULL;
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 9, NULL, &err), TC_INVALID_ARGUMENT,
           "offsets");
    out.offsets = offsets;
    out.data = NULL;
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, &out, 9, NULL, &err), TC_INVALID_ARGUMENT,
           "data");
    out.data = buf;
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_DOUBLE, NULL, 9, NULL, &err), TC_INVALID_ARGUMENT,
           "dst");
    EXPECT(tc_cast_to_arrow_strings(NULL, TC_TYPE_DOUBLE, &out, 9, NULL, &err), TC_INVALID_ARGUMENT,
           "src");
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_STRING, &out, 9, NULL, &err), TC_UNSUPPORTED, NULL);
    EXPECT(tc_cast_to_arrow_strings(d, TC_TYPE_COMPLEX64, &out, 9, NULL, &err), TC_UNSUPPORTED,
           NULL);
  }
}

/* Large enough for several tasks of a 2-thread pool (the string threshold is 4096
 * elements); odd, so the last task is partial. */
#define ARROW_POOL_COUNT 50021

/* k / 2 for k = i - 25000, in numpy's spelling: "-12500.0" ... "-0.5", "0.0", "0.5" ...
 * (exact halves: the shortest digits are the integer part and .0 or .5). */
static size_t half_text(long k, char* out) {
  const long a = k < 0 ? -k : k;
  return (size_t)sprintf(out, "%s%ld.%c", k < 0 ? "-" : "", a / 2, a % 2 ? '5' : '0');
}

/* One call of each Arrow function through tc_thread_pool_runner (2 threads) gives the
 * bytes of the call without a runner, and the values the rules give. */
static void test_arrow_strings_pool(void) {
  const size_t n = ARROW_POOL_COUNT;
  const size_t first = 3; /* the slice's offset */
  tc_thread_pool* pool = tc_thread_pool_create(2);
  tc_options o = TC_OPTIONS_INIT;
  char* texts = (char*)malloc((n + first) * 16);
  int32_t* offsets32 = (int32_t*)malloc((n + first + 1) * sizeof(int32_t));
  int64_t* offsets64 = (int64_t*)malloc((n + first + 1) * sizeof(int64_t));
  uint8_t* validity = (uint8_t*)calloc((n + first + 7) / 8, 1);
  float* serial = (float*)malloc(n * sizeof(float));
  float* parallel = (float*)malloc(n * sizeof(float));
  double* halves = (double*)malloc(n * sizeof(double));
  size_t* want_offsets = (size_t*)malloc((n + 1) * sizeof(size_t));
  char* want_text = (char*)malloc(n * 24); /* int64 texts: up to 20 bytes */
  char* data_s = (char*)malloc(n * 33);
  char* data_p = (char*)malloc(n * 33);
  int64_t* offs_s = (int64_t*)malloc((n + 1) * sizeof(int64_t));
  int64_t* offs_p = (int64_t*)malloc((n + 1) * sizeof(int64_t));
  size_t i, pos = 0, width_index;
  int ok;
  ok = pool != NULL && texts != NULL && offsets32 != NULL && offsets64 != NULL &&
       validity != NULL && serial != NULL && parallel != NULL && halves != NULL &&
       want_offsets != NULL && want_text != NULL && data_s != NULL && data_p != NULL &&
       offs_s != NULL && offs_p != NULL;
  CHECK(ok);
  if (!ok) return;
  o.runner = tc_thread_pool_runner(pool);

  /* Texts: element i (index i + first) is "<k>.5" for k = i - 25000 (the float k + 0.5
   * or k - 0.5, exact), null when i % 7 == 3 (its slot holds "zz"); the first `first`
   * indexes hold "pre". */
  offsets32[0] = 0;
  offsets64[0] = 0;
  for (i = 0; i < n + first; ++i) {
    int len;
    if (i < first) {
      len = sprintf(texts + pos, "pre");
      validity[i / 8] = (uint8_t)(validity[i / 8] | (1u << (i % 8)));
    } else if ((i - first) % 7 == 3) {
      len = sprintf(texts + pos, "zz");
    } else {
      len = sprintf(texts + pos, "%ld.5", (long)(i - first) - 25000);
      validity[i / 8] = (uint8_t)(validity[i / 8] | (1u << (i % 8)));
    }
    pos += (size_t)len;
    offsets32[i + 1] = (int32_t)pos;
    offsets64[i + 1] = (int64_t)pos;
  }
  for (width_index = 0; width_index < 2; ++width_index) {
    tc_arrow_strings a = TC_ARROW_STRINGS_INIT;
    a.offsets = width_index == 0 ? (const void*)offsets32 : (const void*)offsets64;
    a.offset_width = width_index == 0 ? 4 : 8;
    a.data = texts;
    a.validity = validity;
    a.offset = (int64_t)first;
    a.null_policy = TC_NULL_ZERO;
    memset(serial, 0x7F, n * sizeof(float));
    memset(parallel, 0x7F, n * sizeof(float));
    EXPECT(tc_cast_from_arrow_strings(&a, serial, TC_TYPE_FLOAT, n, NULL, &err), TC_OK, NULL);
    EXPECT(tc_cast_from_arrow_strings(&a, parallel, TC_TYPE_FLOAT, n, &o, &err), TC_OK, NULL);
    CHECK(memcmp(serial, parallel, n * sizeof(float)) == 0);
    ok = 1;
    for (i = 0; i < n && ok; ++i) {
      const long k = (long)i - 25000;
      const float want = i % 7 == 3 ? 0.0f : k < 0 ? (float)k - 0.5f : (float)k + 0.5f;
      ok = bits_from_f32(parallel[i]) == bits_from_f32(want);
    }
    CHECK(ok);
  }
  /* Two bad texts through the pool: the first in index order, elements before it written.
   * Element 30001 ("bad") and element 45002 (a null under TC_NULL_ERROR). */
  {
    tc_arrow_strings a = TC_ARROW_STRINGS_INIT;
    const size_t at = first + 30001;
    const int32_t old_start = offsets32[at], old_end = offsets32[at + 1];
    char saved[16];
    memcpy(saved, texts + old_start, (size_t)(old_end - old_start));
    memcpy(texts + old_start, "bad!!!!!", (size_t)(old_end - old_start)); /* same length */
    a.offsets = offsets32;
    a.data = texts;
    a.offset = (int64_t)first;
    a.validity = validity;
    a.null_policy = TC_NULL_ERROR;
    /* Nulls up to 45002 made present, 45002 itself null. */
    for (i = 0; i < n; ++i) {
      const size_t b = i + first;
      if (i == 45002) {
        validity[b / 8] = (uint8_t)(validity[b / 8] & ~(1u << (b % 8)));
      } else {
        validity[b / 8] = (uint8_t)(validity[b / 8] | (1u << (b % 8)));
      }
    }
    /* The null slots' "zz" are now present texts: "00" (zero) instead. */
    for (i = 0; i < n; ++i) {
      if (i % 7 == 3) memcpy(texts + offsets32[i + first], "00", 2);
    }
    memset(serial, 0x7F, n * sizeof(float));
    memset(parallel, 0x7F, n * sizeof(float));
    EXPECT(tc_cast_from_arrow_strings(&a, serial, TC_TYPE_FLOAT, n, NULL, &err), TC_PARSE_ERROR,
           "element 30001");
    CHECK(err.elements_written == 30001);
    EXPECT(tc_cast_from_arrow_strings(&a, parallel, TC_TYPE_FLOAT, n, &o, &err), TC_PARSE_ERROR,
           "element 30001");
    CHECK(err.elements_written == 30001);
    CHECK(memcmp(serial, parallel, 30001 * sizeof(float)) == 0);
    /* With "bad" repaired, the null is the first error. */
    memcpy(texts + old_start, saved, (size_t)(old_end - old_start));
    EXPECT(tc_cast_from_arrow_strings(&a, parallel, TC_TYPE_FLOAT, n, &o, &err), TC_PARSE_ERROR,
           "element 45002");
    CHECK(err.elements_written == 45002 && strstr(msg, "null") != NULL);
  }

  /* Numbers -> Arrow strings through the pool: DOUBLE halves, both offset widths, a roomy
   * buffer (33 bytes per element) and exactly the size a query reports. */
  pos = 0;
  for (i = 0; i < n; ++i) {
    const long k = (long)i - 25000;
    halves[i] = (double)k / 2;
    want_offsets[i] = pos;
    pos += half_text(k, want_text + pos);
  }
  want_offsets[n] = pos;
  for (width_index = 0; width_index < 4; ++width_index) {
    const int width = width_index % 2 == 0 ? 4 : 8;
    const int exact = width_index >= 2;
    tc_arrow_strings_out s, p;
    s.struct_size = p.struct_size = sizeof s;
    s.offsets = offs_s;
    p.offsets = offs_p;
    s.offset_width = p.offset_width = width;
    s.data = data_s;
    p.data = data_p;
    s.data_capacity = p.data_capacity = n * 33;
    s.data_size = p.data_size = 0;
    if (exact) {
      p.data = NULL;
      p.data_capacity = 0;
      EXPECT(tc_cast_to_arrow_strings(halves, TC_TYPE_DOUBLE, &p, n, &o, &err), TC_BUFFER_TOO_SMALL,
             NULL);
      CHECK(p.data_size == pos);
      p.data = data_p;
      p.data_capacity = p.data_size;
    }
    memset(offs_s, 0x5A, (n + 1) * sizeof(int64_t));
    memset(offs_p, 0x5A, (n + 1) * sizeof(int64_t));
    EXPECT(tc_cast_to_arrow_strings(halves, TC_TYPE_DOUBLE, &s, n, NULL, &err), TC_OK, NULL);
    EXPECT(tc_cast_to_arrow_strings(halves, TC_TYPE_DOUBLE, &p, n, &o, &err), TC_OK, NULL);
    CHECK(s.data_size == pos && p.data_size == pos);
    CHECK(memcmp(offs_s, offs_p, (n + 1) * (size_t)width) == 0);
    CHECK(memcmp(data_s, data_p, pos) == 0);
    CHECK(memcmp(data_p, want_text, pos) == 0);
    ok = 1;
    for (i = 0; i <= n && ok; ++i) ok = offset_at(offs_p, width, i) == (int64_t)want_offsets[i];
    CHECK(ok);
  }
  /* int64 through the pool against C's own decimal spelling. */
  {
    int64_t* ints = (int64_t*)halves; /* same size */
    tc_arrow_strings_out s, p;
    pos = 0;
    for (i = 0; i < n; ++i) {
      ints[i] = ((int64_t)i - 25000) * INT64_C(360000000000007);
      want_offsets[i] = pos;
      pos += (size_t)sprintf(want_text + pos, "%" PRId64, ints[i]);
    }
    want_offsets[n] = pos;
    s.struct_size = p.struct_size = sizeof s;
    s.offsets = offs_s;
    p.offsets = offs_p;
    s.offset_width = p.offset_width = 8;
    s.data = data_s;
    p.data = data_p;
    s.data_capacity = p.data_capacity = n * 33;
    EXPECT(tc_cast_to_arrow_strings(ints, TC_TYPE_INT64, &s, n, NULL, &err), TC_OK, NULL);
    EXPECT(tc_cast_to_arrow_strings(ints, TC_TYPE_INT64, &p, n, &o, &err), TC_OK, NULL);
    CHECK(s.data_size == pos && p.data_size == pos);
    CHECK(memcmp(offs_s, offs_p, (n + 1) * sizeof(int64_t)) == 0);
    CHECK(memcmp(data_s, data_p, pos) == 0 && memcmp(data_p, want_text, pos) == 0);
    ok = 1;
    for (i = 0; i <= n && ok; ++i) ok = offs_p[i] == (int64_t)want_offsets[i];
    CHECK(ok);
  }
  tc_thread_pool_destroy(pool);
  free(texts);
  free(offsets32);
  free(offsets64);
  free(validity);
  free(serial);
  free(parallel);
  free(halves);
  free(want_offsets);
  free(want_text);
  free(data_s);
  free(data_p);
  free(offs_s);
  free(offs_p);
}

static void test_split(void) {
  /* int32 [2, 5] along axis 1 into 2 + 3 columns. */
  int32_t src[10];
  int32_t a[4], b[6];
  void* outs[2];
  int64_t shape[2] = {2, 5};
  int64_t sizes[2] = {2, 3};
  int i;
  for (i = 0; i < 10; ++i) src[i] = i;
  outs[0] = a;
  outs[1] = b;
  EXPECT(tc_split(src, TC_TYPE_INT32, shape, 2, 1, sizes, 2, outs, &err), TC_OK, NULL);
  CHECK(a[0] == 0 && a[1] == 1 && a[2] == 5 && a[3] == 6);
  CHECK(b[0] == 2 && b[1] == 3 && b[2] == 4 && b[3] == 7 && b[4] == 8 && b[5] == 9);
  memset(a, 0, sizeof a);
  EXPECT(tc_split(src, TC_TYPE_INT32, shape, 2, -1, sizes, 2, outs, &err), TC_OK, NULL);
  CHECK(a[0] == 0 && a[1] == 1 && a[2] == 5 && a[3] == 6);

  /* INT4 [4] = {1, 2, 3, 4} (bytes 0x21 0x43) into 1 + 3: each output packed from bit 0. */
  {
    uint8_t p[2] = {0x21, 0x43};
    uint8_t o0[1] = {0xFF}, o1[2] = {0xFF, 0xFF};
    void* po[2];
    int64_t s4[1] = {4};
    int64_t z[2] = {1, 3};
    po[0] = o0;
    po[1] = o1;
    EXPECT(tc_split(p, TC_TYPE_INT4, s4, 1, 0, z, 2, po, &err), TC_OK, NULL);
    CHECK(o0[0] == 0x01 && o1[0] == 0x32 && o1[1] == 0x04);
  }

  /* STRING: the views are copied (same data pointers), not the text. */
  {
    tc_string_view sv4[4], s0[1], s1[3];
    void* so[2];
    int64_t s4[1] = {4};
    int64_t z[2] = {1, 3};
    const char* text = "abcd";
    for (i = 0; i < 4; ++i) {
      sv4[i].data = text + i;
      sv4[i].size = 1;
    }
    so[0] = s0;
    so[1] = s1;
    EXPECT(tc_split(sv4, TC_TYPE_STRING, s4, 1, 0, z, 2, so, &err), TC_OK, NULL);
    CHECK(s0[0].data == text && s0[0].size == 1);
    CHECK(s1[0].data == text + 1 && s1[1].data == text + 2 && s1[2].data == text + 3 &&
          s1[2].size == 1);
    EXPECT(tc_split(sv4, TC_TYPE_STRING, s4, 1, 0, z, 2, NULL, &err), TC_INVALID_ARGUMENT,
           "outputs");
  }

  /* Errors, detected before anything is written. */
  memset(a, 0x55, sizeof a);
  {
    int64_t bad_sizes[2] = {2, 2};
    int64_t neg_sizes[2] = {6, -1};
    int64_t neg_shape[2] = {2, -5};
    void* null_out[2];
    null_out[0] = a;
    null_out[1] = NULL;
    EXPECT(tc_split(src, TC_TYPE_INT32, shape, 2, 1, bad_sizes, 2, outs, &err), TC_INVALID_ARGUMENT,
           NULL);
    EXPECT(tc_split(src, TC_TYPE_INT32, shape, 2, 1, neg_sizes, 2, outs, &err), TC_INVALID_ARGUMENT,
           NULL);
    EXPECT(tc_split(src, TC_TYPE_INT32, neg_shape, 2, 1, sizes, 2, outs, &err), TC_INVALID_ARGUMENT,
           NULL);
    EXPECT(tc_split(src, TC_TYPE_INT32, shape, 2, 2, sizes, 2, outs, &err), TC_INVALID_ARGUMENT,
           "axis");
    EXPECT(tc_split(src, TC_TYPE_INT32, shape, 2, -3, sizes, 2, outs, &err), TC_INVALID_ARGUMENT,
           "axis");
    EXPECT(tc_split(src, TC_TYPE_INT32, shape, 0, 0, sizes, 2, outs, &err), TC_INVALID_ARGUMENT,
           NULL);
    EXPECT(tc_split(src, TC_TYPE_INT32, NULL, 2, 1, sizes, 2, outs, &err), TC_INVALID_ARGUMENT,
           "shape");
    EXPECT(tc_split(src, TC_TYPE_INT32, shape, 2, 1, NULL, 2, outs, &err), TC_INVALID_ARGUMENT,
           "sizes");
    EXPECT(tc_split(src, TC_TYPE_INT32, shape, 2, 1, sizes, 0, outs, &err), TC_INVALID_ARGUMENT,
           "num_outputs");
    EXPECT(tc_split(NULL, TC_TYPE_INT32, shape, 2, 1, sizes, 2, outs, &err), TC_INVALID_ARGUMENT,
           "src");
    EXPECT(tc_split(src, TC_TYPE_INT32, shape, 2, 1, sizes, 2, null_out, &err), TC_INVALID_ARGUMENT,
           "outputs[1]");
    EXPECT(tc_split(src, 99, shape, 2, 1, sizes, 2, outs, &err), TC_INVALID_ARGUMENT, "99");
    CHECK(a[0] == 0x55555555 && a[3] == 0x55555555);
  }
}

static void test_split_sizes(void) {
  tc_split_attributes attrs = TC_SPLIT_ATTRIBUTES_INIT;
  int64_t shape[2] = {2, 8};
  int64_t sizes[4] = {-9, -9, -9, -9};
  int64_t split[2] = {3, 5};
  /* Split-18 num_outputs 3 over 8: ceil(8 / 3) = 3 -> 3, 3, 2. */
  attrs.axis = 1;
  attrs.has_num_outputs = 1;
  attrs.num_outputs = 3;
  attrs.output_count = 3;
  EXPECT(tc_split_sizes(&attrs, shape, 2, sizes, &err), TC_OK, NULL);
  CHECK(sizes[0] == 3 && sizes[1] == 3 && sizes[2] == 2 && sizes[3] == -9);
  /* Split-13 without `split`: equal parts, 8 into 3 is an error. */
  attrs.opset = 13;
  attrs.has_num_outputs = 0;
  attrs.num_outputs = 0;
  EXPECT(tc_split_sizes(&attrs, shape, 2, sizes, &err), TC_INVALID_ARGUMENT, NULL);
  attrs.output_count = 2;
  EXPECT(tc_split_sizes(&attrs, shape, 2, sizes, &err), TC_OK, NULL);
  CHECK(sizes[0] == 4 && sizes[1] == 4);
  /* Split-11 `split` attribute; its count must match the outputs. */
  attrs.opset = 11;
  attrs.has_split = 1;
  attrs.split = split;
  attrs.split_count = 2;
  EXPECT(tc_split_sizes(&attrs, shape, 2, sizes, &err), TC_OK, NULL);
  CHECK(sizes[0] == 3 && sizes[1] == 5);
  attrs.output_count = 3;
  EXPECT(tc_split_sizes(&attrs, shape, 2, sizes, &err), TC_INVALID_ARGUMENT,
         "Mismatch between number of splits (2) and outputs (3)");
  /* num_outputs before 18, both / neither in 18, opset 0, NULL pointers. */
  attrs.output_count = 2;
  attrs.has_num_outputs = 1;
  attrs.num_outputs = 2;
  EXPECT(tc_split_sizes(&attrs, shape, 2, sizes, &err), TC_INVALID_ARGUMENT, NULL);
  attrs.opset = 18;
  EXPECT(tc_split_sizes(&attrs, shape, 2, sizes, &err), TC_INVALID_ARGUMENT, NULL);
  attrs.has_split = 0;
  attrs.has_num_outputs = 0;
  EXPECT(tc_split_sizes(&attrs, shape, 2, sizes, &err), TC_INVALID_ARGUMENT, NULL);
  attrs.opset = 0;
  EXPECT(tc_split_sizes(&attrs, shape, 2, sizes, &err), TC_UNSUPPORTED, NULL);
  EXPECT(tc_split_sizes(NULL, shape, 2, sizes, &err), TC_INVALID_ARGUMENT, "attrs");
  attrs.opset = 13;
  EXPECT(tc_split_sizes(&attrs, shape, 2, NULL, &err), TC_INVALID_ARGUMENT, NULL);

  /* The num_outputs rule alone: 5 into 4 -> 2, 2, 1, 0. */
  EXPECT(tc_split_sizes_from_num_outputs(5, 4, sizes, &err), TC_OK, NULL);
  CHECK(sizes[0] == 2 && sizes[1] == 2 && sizes[2] == 1 && sizes[3] == 0);
  EXPECT(tc_split_sizes_from_num_outputs(-1, 4, sizes, &err), TC_INVALID_ARGUMENT, NULL);
  EXPECT(tc_split_sizes_from_num_outputs(5, 0, sizes, &err), TC_INVALID_ARGUMENT, NULL);
  EXPECT(tc_split_sizes_from_num_outputs(5, 4, NULL, &err), TC_INVALID_ARGUMENT, NULL);

  CHECK(tc_split_version(0) == 0 && tc_split_version(1) == 1 && tc_split_version(10) == 2 &&
        tc_split_version(12) == 11 && tc_split_version(17) == 13 && tc_split_version(25) == 18);
}

static void test_types(void) {
  int32_t t = -1;
  int mode = -1;
  size_t bytes = 0;
  CHECK(strcmp(tc_type_name(TC_TYPE_FLOAT), "FLOAT") == 0);
  CHECK(strcmp(tc_type_name(TC_TYPE_FLOAT8E4M3FN), "FLOAT8E4M3FN") == 0);
  CHECK(strcmp(tc_type_name(TC_TYPE_INT2), "INT2") == 0);
  CHECK(strcmp(tc_type_name(TC_TYPE_STRING), "STRING") == 0);
  CHECK(tc_type_name(0) == NULL && tc_type_name(29) == NULL && tc_type_name(-1) == NULL);

  EXPECT(tc_parse_type("float8e4m3fn", TC_NUL_TERMINATED, &t, &err), TC_OK, NULL);
  CHECK(t == TC_TYPE_FLOAT8E4M3FN);
  EXPECT(tc_parse_type(" tensor(int4) ", TC_NUL_TERMINATED, &t, &err), TC_OK, NULL);
  CHECK(t == TC_TYPE_INT4);
  EXPECT(tc_parse_type("17", 2, &t, &err), TC_OK, NULL);
  CHECK(t == TC_TYPE_FLOAT8E4M3FN);
  EXPECT(tc_parse_type("FLOAT16X", 5, &t, &err), TC_OK, NULL); /* length, not NUL */
  CHECK(t == TC_TYPE_FLOAT);
  t = -1;
  EXPECT(tc_parse_type("bogus", TC_NUL_TERMINATED, &t, &err), TC_INVALID_ARGUMENT, "bogus");
  EXPECT(tc_parse_type("0", TC_NUL_TERMINATED, &t, &err), TC_INVALID_ARGUMENT, NULL);
  EXPECT(tc_parse_type(NULL, 3, &t, &err), TC_INVALID_ARGUMENT, "text");
  EXPECT(tc_parse_type("FLOAT", TC_NUL_TERMINATED, NULL, &err), TC_INVALID_ARGUMENT, "out");
  CHECK(t == -1);

  CHECK(tc_bit_width(TC_TYPE_FLOAT) == 32 && tc_bit_width(TC_TYPE_INT2) == 2 &&
        tc_bit_width(TC_TYPE_FLOAT4E2M1) == 4 && tc_bit_width(TC_TYPE_BOOL) == 8 &&
        tc_bit_width(TC_TYPE_COMPLEX128) == 128 && tc_bit_width(TC_TYPE_STRING) == 0 &&
        tc_bit_width(99) == 0);
  EXPECT(tc_storage_bytes(TC_TYPE_INT4, 3, &bytes, &err), TC_OK, NULL);
  CHECK(bytes == 2);
  EXPECT(tc_storage_bytes(TC_TYPE_UINT2, 5, &bytes, &err), TC_OK, NULL);
  CHECK(bytes == 2);
  EXPECT(tc_storage_bytes(TC_TYPE_FLOAT, 3, &bytes, &err), TC_OK, NULL);
  CHECK(bytes == 12);
  EXPECT(tc_storage_bytes(TC_TYPE_STRING, 3, &bytes, &err), TC_OK, NULL);
  CHECK(bytes == 3 * sizeof(tc_string_view));
  bytes = 42;
  EXPECT(tc_storage_bytes(99, 1, &bytes, &err), TC_INVALID_ARGUMENT, "99");
  EXPECT(tc_storage_bytes(TC_TYPE_DOUBLE, (size_t)-1, &bytes, &err), TC_OVERFLOW, NULL);
  EXPECT(tc_storage_bytes(TC_TYPE_STRING, (size_t)-1, &bytes, &err), TC_OVERFLOW, "STRING");
  CHECK(bytes == 42);
  EXPECT(tc_storage_bytes(TC_TYPE_FLOAT, 1, NULL, &err), TC_INVALID_ARGUMENT, "bytes");

  EXPECT(tc_parse_round_mode("nearest", TC_NUL_TERMINATED, &mode, &err), TC_OK, NULL);
  CHECK(mode == TC_ROUND_NEAREST);
  EXPECT(tc_parse_round_mode("downward", 4, &mode, &err), TC_OK, NULL);
  CHECK(mode == TC_ROUND_DOWN);
  EXPECT(tc_parse_round_mode("Up", TC_NUL_TERMINATED, &mode, &err), TC_INVALID_ARGUMENT, "Up");
  EXPECT(tc_parse_round_mode(NULL, 2, &mode, &err), TC_INVALID_ARGUMENT, NULL);
  EXPECT(tc_parse_round_mode("up", 2, NULL, &err), TC_INVALID_ARGUMENT, NULL);
  CHECK(mode == TC_ROUND_DOWN);
  CHECK(strcmp(tc_round_mode_name(TC_ROUND_UP), "up") == 0 &&
        strcmp(tc_round_mode_name(TC_ROUND_DOWN), "down") == 0 &&
        strcmp(tc_round_mode_name(TC_ROUND_NEAREST), "nearest") == 0);
  CHECK(tc_round_mode_name(3) == NULL && tc_round_mode_name(-1) == NULL);

  CHECK(strcmp(tc_status_name(TC_OK), "OK") == 0);
  CHECK(strcmp(tc_status_name(TC_INVALID_ARGUMENT), "INVALID_ARGUMENT") == 0);
  CHECK(strcmp(tc_status_name(TC_UNSUPPORTED), "UNSUPPORTED") == 0);
  CHECK(strcmp(tc_status_name(TC_PARSE_ERROR), "PARSE_ERROR") == 0);
  CHECK(strcmp(tc_status_name(TC_OVERFLOW), "OVERFLOW") == 0);
  CHECK(strcmp(tc_status_name(TC_INTERNAL), "INTERNAL") == 0);
  CHECK(strcmp(tc_status_name(TC_BUFFER_TOO_SMALL), "BUFFER_TOO_SMALL") == 0);
  CHECK(tc_status_name(7) == NULL && tc_status_name(-1) == NULL);
}

/* Set to 1 once tc_describe_route describes routes (it returns TC_UNSUPPORTED for
 * every valid pair until the route plan is implemented): enables test_route_values. */
#define ROUTE_PLAN_IMPLEMENTED 1

/* Compiled targets, route names and every argument error of tc_describe_route. */
static void test_targets_and_route_errors(void) {
  const size_t count = tc_compiled_target_count();
  const char* active = tc_active_target();
  size_t i;
  int active_listed = 0;
  tc_route_info info;
  char longer[64];
  int rc;

  CHECK(count >= 1);
  for (i = 0; i < count; ++i) {
    const char* name = tc_compiled_target_name(i);
    CHECK(name != NULL && name[0] != '\0');
    if (name != NULL && strcmp(name, active) == 0) active_listed = 1;
  }
  CHECK(active_listed);
  CHECK(tc_compiled_target_name(count) == NULL);
  CHECK(tc_compiled_target_name((size_t)-1) == NULL);
  CHECK(tc_compiled_target_name(0) == tc_compiled_target_name(0)); /* static storage */

  CHECK(strcmp(tc_route_name(TC_ROUTE_KERNEL), "kernel") == 0);
  CHECK(strcmp(tc_route_name(TC_ROUTE_TABLE), "table") == 0);
  CHECK(strcmp(tc_route_name(TC_ROUTE_HUB), "hub") == 0);
  CHECK(strcmp(tc_route_name(TC_ROUTE_COPY), "copy") == 0);
  CHECK(strcmp(tc_route_name(TC_ROUTE_STRINGS), "strings") == 0);
  CHECK(strcmp(tc_route_name(-1), "invalid") == 0 && strcmp(tc_route_name(5), "invalid") == 0);

  /* Argument errors: nothing is written to *out. */
  memset(&info, 0x5A, sizeof info);
  EXPECT(tc_describe_route(TC_TYPE_FLOAT, TC_TYPE_FLOAT16, NULL, 0, NULL, &err),
         TC_INVALID_ARGUMENT, "out");
  EXPECT(tc_describe_route(99, TC_TYPE_FLOAT16, NULL, 0, &info, &err), TC_INVALID_ARGUMENT, "99");
  EXPECT(tc_describe_route(TC_TYPE_FLOAT, -3, NULL, 0, &info, &err), TC_INVALID_ARGUMENT, "-3");
  EXPECT(tc_describe_route(TC_TYPE_UNDEFINED, TC_TYPE_FLOAT, NULL, 0, &info, &err),
         TC_INVALID_ARGUMENT, NULL);
  EXPECT(tc_describe_route(TC_TYPE_COMPLEX64, TC_TYPE_FLOAT, NULL, 0, &info, &err), TC_UNSUPPORTED,
         "COMPLEX64");
  EXPECT(tc_describe_route(TC_TYPE_FLOAT, TC_TYPE_COMPLEX128, NULL, 0, &info, &err), TC_UNSUPPORTED,
         "COMPLEX128");
  EXPECT(tc_describe_route(TC_TYPE_FLOAT, TC_TYPE_FLOAT16, "NO_SUCH_TARGET", TC_NUL_TERMINATED,
                           &info, &err),
         TC_INVALID_ARGUMENT, "NO_SUCH_TARGET");
  /* The length counts: the active name with one more byte is not a target. */
  CHECK(strlen(active) + 2 <= sizeof longer);
  longer[0] = '\0';
  strncat(longer, active, sizeof longer - 2);
  strcat(longer, "#");
  EXPECT(tc_describe_route(TC_TYPE_FLOAT, TC_TYPE_FLOAT16, longer, strlen(longer), &info, &err),
         TC_INVALID_ARGUMENT, "#");
  EXPECT(tc_describe_route(TC_TYPE_FLOAT, TC_TYPE_FLOAT16, NULL, 4, &info, &err),
         TC_INVALID_ARGUMENT, "target");
  CHECK(((const unsigned char*)&info)[0] == 0x5A &&
        ((const unsigned char*)&info)[sizeof info - 1] == 0x5A);

  /* Valid arguments: TC_OK, or TC_UNSUPPORTED while routes are not described. */
  rc = tc_describe_route(TC_TYPE_FLOAT, TC_TYPE_FLOAT16, NULL, 0, &info, NULL);
  CHECK(rc == TC_OK || rc == TC_UNSUPPORTED);
  rc = tc_describe_route(TC_TYPE_FLOAT, TC_TYPE_FLOAT16, active, TC_NUL_TERMINATED, &info, NULL);
  CHECK(rc == TC_OK || rc == TC_UNSUPPORTED);
  rc = tc_describe_route(TC_TYPE_FLOAT, TC_TYPE_FLOAT16, "", TC_NUL_TERMINATED, &info, NULL);
  CHECK(rc == TC_OK || rc == TC_UNSUPPORTED);
  rc = tc_describe_route(TC_TYPE_FLOAT, TC_TYPE_FLOAT16, longer, strlen(longer) - 1, &info, NULL);
  CHECK(rc == TC_OK || rc == TC_UNSUPPORTED);
}

#if ROUTE_PLAN_IMPLEMENTED
static int is_nul_terminated(const char* text, size_t capacity) {
  return memchr(text, '\0', capacity) != NULL;
}

static int describe(int32_t src, int32_t dst, const char* target, tc_route_info* info) {
  char line[96];
  int rc;
  reset_err();
  rc = tc_describe_route(src, dst, target, TC_NUL_TERMINATED, info, &err);
  sprintf(line, "tc_describe_route(%d, %d, %.20s)", (int)src, (int)dst,
          target != NULL ? target : "NULL");
  expect_status(rc, TC_OK, NULL, line, __LINE__);
  return rc == TC_OK;
}

/* The route plan: every castable pair on every compiled target has a valid route with
 * NUL-terminated texts, STRING pairs and only they take the strings route, and a few
 * pairs take the route cast.h documents for them. */
static void test_route_values(void) {
  const size_t count = tc_compiled_target_count();
  size_t i;
  int32_t s, d;
  tc_route_info info, active_info;

  CHECK(describe(TC_TYPE_FLOAT, TC_TYPE_FLOAT16, NULL, &info));
  CHECK(info.route == TC_ROUTE_KERNEL && info.detail[0] != '\0');
  CHECK(describe(TC_TYPE_STRING, TC_TYPE_FLOAT, NULL, &info));
  CHECK(info.route == TC_ROUTE_STRINGS);
  CHECK(describe(TC_TYPE_FLOAT, TC_TYPE_STRING, NULL, &info));
  CHECK(info.route == TC_ROUTE_STRINGS);
  CHECK(describe(TC_TYPE_FLOAT, TC_TYPE_FLOAT, NULL, &info));
  CHECK(info.route == TC_ROUTE_COPY);
  CHECK(describe(TC_TYPE_INT4, TC_TYPE_UINT4, NULL, &info));
  CHECK(info.route == TC_ROUTE_COPY);
  CHECK(describe(TC_TYPE_UINT2, TC_TYPE_INT2, NULL, &info));
  CHECK(info.route == TC_ROUTE_COPY);

  /* The active target by name is the default. */
  CHECK(describe(TC_TYPE_FLOAT8E4M3FN, TC_TYPE_BFLOAT16, NULL, &active_info));
  CHECK(describe(TC_TYPE_FLOAT8E4M3FN, TC_TYPE_BFLOAT16, tc_active_target(), &info));
  CHECK(info.route == active_info.route && info.small_below == active_info.small_below &&
        strcmp(info.detail, active_info.detail) == 0);

  for (i = 0; i < count; ++i) {
    const char* target = tc_compiled_target_name(i);
    for (s = 1; s <= TC_MAX_TYPE_CODE; ++s) {
      for (d = 1; d <= TC_MAX_TYPE_CODE; ++d) {
        int strings;
        if (s == TC_TYPE_COMPLEX64 || s == TC_TYPE_COMPLEX128 || d == TC_TYPE_COMPLEX64 ||
            d == TC_TYPE_COMPLEX128) {
          continue;
        }
        if (!describe(s, d, target, &info)) continue;
        strings = s == TC_TYPE_STRING || d == TC_TYPE_STRING;
        CHECK(info.route >= TC_ROUTE_KERNEL && info.route <= TC_ROUTE_STRINGS);
        CHECK((info.route == TC_ROUTE_STRINGS) == strings);
        CHECK(is_nul_terminated(info.detail, sizeof info.detail) &&
              is_nul_terminated(info.small_detail, sizeof info.small_detail));
        if (info.small_below != 0) {
          CHECK(info.small_route >= TC_ROUTE_KERNEL && info.small_route <= TC_ROUTE_STRINGS);
          CHECK((info.small_route == TC_ROUTE_STRINGS) == strings);
        }
      }
    }
  }
}
#endif

/* The caller's message buffer: NULL, capacity 0, 1, small (cut, NUL-terminated). */
static void test_message_buffer(void) {
  float f = 1.0f;
  uint16_t h = 0;
  char small[8];
  size_t full;
  tc_error e = TC_ERROR_INIT(NULL, 100);
  /* Full length first. */
  EXPECT(tc_cast(&f, 99, &h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, &err), TC_INVALID_ARGUMENT, NULL);
  full = err.message_length;
  CHECK(full > 8);

  /* NULL buffer (with a capacity): code, length and elements_written only. */
  CHECK(tc_cast(&f, 99, &h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, &e) == TC_INVALID_ARGUMENT);
  CHECK(e.code == TC_INVALID_ARGUMENT && e.message_length == full && e.elements_written == 0);

  /* Capacity 0: the buffer is not touched. */
  memset(small, '#', sizeof small);
  e.message = small;
  e.message_capacity = 0;
  CHECK(tc_cast(&f, 99, &h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, &e) == TC_INVALID_ARGUMENT);
  CHECK(small[0] == '#' && e.message_length == full);

  /* Capacity 1: just the NUL. */
  e.message_capacity = 1;
  CHECK(tc_cast(&f, 99, &h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, &e) == TC_INVALID_ARGUMENT);
  CHECK(small[0] == '\0' && small[1] == '#');

  /* Capacity 5: four bytes of the message and a NUL, nothing beyond. */
  memset(small, '#', sizeof small);
  e.message_capacity = 5;
  CHECK(tc_cast(&f, 99, &h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, &e) == TC_INVALID_ARGUMENT);
  CHECK(strlen(small) == 4 && memcmp(small, msg, 4) == 0 && small[5] == '#' &&
        e.message_length == full);

  /* Success clears the message and the counts. */
  e.elements_written = 9;
  CHECK(tc_cast(&f, TC_TYPE_FLOAT, &h, TC_TYPE_FLOAT16, 1, 1, TC_ROUND_UP, &e) == TC_OK);
  CHECK(e.code == TC_OK && small[0] == '\0' && e.message_length == 0 && e.elements_written == 0);
}

/* QuantizeLinear / DequantizeLinear from C: the schema's examples, output types, an older
 * caller's smaller tc_quantize_options, and the errors. */
static void test_quantize(void) {
  const float x[6] = {0, 2, 3, 1000, -254, -1000};
  const int64_t shape[1] = {6};
  const float scale = 2;
  const uint8_t zero_point = 128;
  tc_tensor tx = {x, TC_TYPE_FLOAT, shape, 1};
  tc_tensor ts = {&scale, TC_TYPE_FLOAT, NULL, 0};
  tc_tensor tz = {&zero_point, TC_TYPE_UINT8, NULL, 0};
  uint8_t y[6] = {0};
  tc_quantize_options o = TC_QUANTIZE_OPTIONS_INIT;
  int32_t y_type = 0;
  EXPECT(tc_quantize_linear_output_type(&o, TC_TYPE_UINT8, &y_type, &err), TC_OK, NULL);
  CHECK(y_type == TC_TYPE_UINT8);
  EXPECT(tc_quantize_linear(&tx, &ts, &tz, y, TC_TYPE_UINT8, &o, &err), TC_OK, NULL);
  CHECK(y[0] == 128 && y[1] == 129 && y[2] == 130 && y[3] == 255 && y[4] == 1 && y[5] == 0);
  /* NULL options: opset 28, no zero point, UINT8. */
  EXPECT(tc_quantize_linear(&tx, &ts, NULL, y, TC_TYPE_UINT8, NULL, &err), TC_OK, NULL);
  CHECK(y[0] == 0 && y[1] == 1 && y[2] == 2 && y[3] == 255 && y[4] == 0 && y[5] == 0);

  /* DequantizeLinear back: (y - 128) * 2. */
  const uint8_t q[4] = {0, 3, 128, 255};
  const int64_t qshape[1] = {4};
  tc_tensor tq = {q, TC_TYPE_UINT8, qshape, 1};
  float back[4] = {0};
  EXPECT(tc_dequantize_linear_output_type(&o, TC_TYPE_FLOAT, &y_type, &err), TC_OK, NULL);
  CHECK(y_type == TC_TYPE_FLOAT);
  EXPECT(tc_dequantize_linear(&tq, &ts, &tz, back, TC_TYPE_FLOAT, &o, &err), TC_OK, NULL);
  CHECK(back[0] == -256 && back[1] == -250 && back[2] == 0 && back[3] == 254);

  /* An older caller's struct (up to `axis`): the other fields take their defaults. */
  tc_quantize_options old = TC_QUANTIZE_OPTIONS_INIT;
  old.struct_size = offsetof(tc_quantize_options, block_size);
  old.block_size = 99; /* beyond struct_size: not read */
  EXPECT(tc_quantize_linear(&tx, &ts, &tz, y, TC_TYPE_UINT8, &old, &err), TC_OK, NULL);
  tc_quantize_options big = TC_QUANTIZE_OPTIONS_INIT;
  big.struct_size = sizeof(tc_quantize_options) + 8;
  EXPECT(tc_quantize_linear(&tx, &ts, &tz, y, TC_TYPE_UINT8, &big, &err), TC_INVALID_ARGUMENT,
         "options->struct_size");

  /* Errors. */
  EXPECT(tc_quantize_linear(NULL, &ts, &tz, y, TC_TYPE_UINT8, &o, &err), TC_INVALID_ARGUMENT,
         "x is null");
  EXPECT(tc_quantize_linear(&tx, &ts, &tz, y, TC_TYPE_INT8, &o, &err), TC_INVALID_ARGUMENT,
         "y: type INT8 (3) requested");
  o.opset = 9;
  EXPECT(tc_quantize_linear(&tx, &ts, &tz, y, TC_TYPE_UINT8, &o, &err), TC_UNSUPPORTED,
         "opset 9 is outside 10..28");
  o.opset = 28;
  o.block_size = 4;
  EXPECT(tc_quantize_linear(&tx, &ts, &tz, y, TC_TYPE_UINT8, &o, &err), TC_INVALID_ARGUMENT,
         "axis: 1 is outside [-1, 0]");
  o.axis = 0;
  EXPECT(tc_quantize_linear(&tx, &ts, &tz, y, TC_TYPE_UINT8, &o, &err), TC_INVALID_ARGUMENT,
         "y_scale: rank 0 differs from x's rank 1 (blocked scales have x's rank)");
  o.block_size = 0;
  o.output_dtype = TC_TYPE_FLOAT;
  EXPECT(tc_quantize_linear_output_type(&o, 0, &y_type, &err), TC_UNSUPPORTED,
         "output_dtype: FLOAT (1) is not a type of QuantizeLinear-28");
  EXPECT(tc_dequantize_linear_output_type(&o, TC_TYPE_FLOAT, NULL, &err), TC_INVALID_ARGUMENT,
         "y_type");
  tc_tensor ty = {y, TC_TYPE_UINT8, shape, 1};
  o.output_dtype = 0;
  EXPECT(tc_dequantize_linear(&ty, &ts, NULL, (void*)(y + 1), TC_TYPE_FLOAT, &o, &err),
         TC_INVALID_ARGUMENT, "y: overlaps x");
}

/* Block-scaled quantization; expected values from the OCP MX v1.0 rule and the element
 * formats' tables. */
static void test_block_scale(void) {
  float x[32];
  for (int i = 0; i < 32; ++i) x[i] = (float)i;
  const int64_t shape[2] = {1, 32};
  tc_tensor tx = {x, TC_TYPE_FLOAT, shape, 2};
  uint8_t codes[32] = {0}, scales[2] = {0};
  tc_block_scale_options o = TC_BLOCK_SCALE_OPTIONS_INIT;
  size_t count = 0;
  EXPECT(tc_block_scale_count(shape, 2, TC_FORMAT_MXFP8_E4M3, &o, &count, &err), TC_OK, NULL);
  CHECK(count == 1);
  CHECK(strcmp(tc_block_format_name(TC_FORMAT_MXFP4), "mxfp4") == 0);
  CHECK(tc_block_format_element_type(TC_FORMAT_MXFP6_E3M2) == TC_TYPE_FLOAT6E3M2);
  CHECK(tc_block_format_scale_type(TC_FORMAT_NVFP4) == TC_TYPE_FLOAT8E4M3FN);
  CHECK(tc_block_format_name(7) == NULL);
  /* floor: amax 31, floor(log2 31) = 4, E4M3's emax 8: e = -4 (code 123); x * 16: 16 is
   * 0x58, 32 0x60, 48 0x64, 31 * 16 = 496 saturates to 448 (0x7E). */
  EXPECT(tc_quantize_mx(&tx, TC_FORMAT_MXFP8_E4M3, codes, scales, &o, &err), TC_OK, NULL);
  CHECK(scales[0] == 123 && codes[0] == 0 && codes[1] == 0x58 && codes[2] == 0x60 &&
        codes[3] == 0x64 && codes[31] == 0x7E);
  /* rceil: 31 * 2^3 = 248 <= 448 < 31 * 2^4: e = -3 (code 124); 1 * 8 is 0x50. */
  o.scale_rule = TC_SCALE_RCEIL;
  EXPECT(tc_quantize_mx(&tx, TC_FORMAT_MXFP8_E4M3, codes, scales, &o, &err), TC_OK, NULL);
  CHECK(scales[0] == 124 && codes[1] == 0x50);
  /* MXFP4, floor: e = 4 - 2 = 2 (code 129); x / 4: 0.25 ties to 0, 0.5 is code 1, 0.75
   * ties to 1.0 (code 2); packed low nibble first. */
  o.scale_rule = TC_SCALE_FLOOR;
  EXPECT(tc_quantize_mx(&tx, TC_FORMAT_MXFP4, codes, scales, &o, &err), TC_OK, NULL);
  CHECK(scales[0] == 129 && codes[0] == 0x00 && codes[1] == 0x21);
  tc_tensor tc = {codes, TC_TYPE_FLOAT4E2M1, shape, 2};
  float back[32] = {0};
  EXPECT(tc_dequantize_mx(&tc, scales, TC_FORMAT_MXFP4, back, TC_TYPE_FLOAT, &o, &err), TC_OK,
         NULL);
  CHECK(back[0] == 0 && back[2] == 2 && back[3] == 4 && back[31] == 24);
  /* NVFP4 with a given tensor scale 0.5: block 1 holds 16..31, 31 / 3 = 10.33 -> E4M3 10
   * (0x52); block 0: 15 / 3 = 5 (0x4A). */
  float g = 0.5f;
  EXPECT(tc_quantize_nvfp4(&tx, codes, scales, &g, 1, NULL, &err), TC_OK, NULL);
  CHECK(g == 0.5f && scales[0] == 0x4A && scales[1] == 0x52);
  EXPECT(tc_dequantize_nvfp4(&tc, scales, g, back, TC_TYPE_FLOAT, NULL, &err), TC_OK, NULL);
  CHECK(back[1] == 1.25f); /* 1 / 2.5 = 0.4 -> 0.5; 0.5 * 2.5 */
  /* absmax INT8 per tensor: scale 31 / 127; 31 -> 127, 16 -> round(65.55) = 66. */
  float s = 0;
  int8_t q[32];
  EXPECT(tc_quantize_absmax(&tx, TC_TYPE_INT8, 0, 0, q, &s, NULL, NULL, &err), TC_OK, NULL);
  CHECK(s == 31.0f / 127.0f && q[31] == 127 && q[16] == 66);

  /* Statistics of a plain cast: FLOAT -> FLOAT8E4M3FN; 1e6 and 500 lie beyond 464 (the
   * rounding edge of 448), 1e-10 rounds to zero, NaN is counted and left out. */
  const float sx[6] = {0.1f, 448.0f, 1e6f, NAN, 500.0f, 1e-10f};
  uint8_t sy[6];
  tc_cast_stats st;
  tc_options so = TC_OPTIONS_INIT;
  so.stats = &st;
  EXPECT(tc_cast_ex(sx, TC_TYPE_FLOAT, sy, TC_TYPE_FLOAT8E4M3FN, 6, &so, &err), TC_OK, NULL);
  CHECK(st.count == 6 && st.nan_count == 1 && st.inf_count == 0 && st.saturated == 2 &&
        st.flushed == 1 && st.error_count == 5 && st.amax == 1e6);
  CHECK(st.sum_squared_signal > st.sum_squared_error && st.sum_squared_error > 0);
  EXPECT(tc_cast_ex(sx, TC_TYPE_FLOAT, (void*)sx, TC_TYPE_FLOAT, 6, &so, &err), TC_INVALID_ARGUMENT,
         "stats: the statistics read the source");
  /* MX with statistics: x = 0..31 into mxfp4 (scale 4): 31 / 4 = 7.75 is beyond 7, the
   * edge of 6; 1 / 4 = 0.25 ties to 0 (flushed). */
  o.stats = &st;
  EXPECT(tc_quantize_mx(&tx, TC_FORMAT_MXFP4, codes, scales, &o, &err), TC_OK, NULL);
  CHECK(st.count == 32 && st.saturated == 4 && st.flushed == 1 && st.amax == 31);
  o.stats = NULL;

  /* Errors. */
  EXPECT(tc_quantize_mx(NULL, TC_FORMAT_MXFP4, codes, scales, &o, &err), TC_INVALID_ARGUMENT,
         "x is null");
  EXPECT(tc_quantize_mx(&tx, 9, codes, scales, &o, &err), TC_INVALID_ARGUMENT,
         "format: 9 is not an MX format");
  tc_block_scale_options big = TC_BLOCK_SCALE_OPTIONS_INIT;
  big.struct_size = sizeof(tc_block_scale_options) + 8;
  EXPECT(tc_quantize_mx(&tx, TC_FORMAT_MXFP4, codes, scales, &big, &err), TC_INVALID_ARGUMENT,
         "options->struct_size");
  EXPECT(tc_dequantize_mx(&tc, scales, TC_FORMAT_MXFP8_E4M3, back, TC_TYPE_FLOAT, NULL, &err),
         TC_INVALID_ARGUMENT, "codes: type FLOAT4E2M1 (23)");
  EXPECT(tc_quantize_absmax(&tx, TC_TYPE_UINT8, 0, 0, q, &s, NULL, NULL, &err), TC_UNSUPPORTED,
         "neither INT8 nor FLOAT8E4M3FN");
}

int main(void) {
  test_version();
  test_numeric_cast();
  test_cast_errors();
  test_strings();
  test_arrow_strings_from();
  test_arrow_strings_from_empty_and_errors();
  test_arrow_strings_to();
  test_arrow_strings_pool();
  test_split();
  test_split_sizes();
  test_quantize();
  test_block_scale();
  test_types();
  test_targets_and_route_errors();
#if ROUTE_PLAN_IMPLEMENTED
  test_route_values();
#endif
  test_message_buffer();
  if (failures != 0) {
    fprintf(stderr, "c_api_test: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("c_api_test: all %d checks passed (library %s, target %s)\n", checks, tc_version_string(),
         tc_active_target());
  return 0;
}

/* Consumer of the installed C API (tensorcast::tensorcast_c / tensorcast_c.pc), C99.
 * Golden values: float32 1.0 -> bfloat16 0x3F80, 448 -> float8e4m3fn 0x7E. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <tensorcast/tensorcast_c.h>

int main(void) {
  const float src[2] = {1.0f, 448.0f};
  uint16_t bf[2] = {0, 0};
  uint8_t f8[2] = {0, 0};
  char msg[128];
  tc_error err = TC_ERROR_INIT(msg, sizeof msg);
  const int32_t x[6] = {0, 1, 2, 3, 4, 5};
  const int64_t shape[2] = {2, 3};
  const int64_t sizes[2] = {1, 2};
  int32_t a[2] = {-1, -1}, b[4] = {-1, -1, -1, -1};
  void* outs[2];
  tc_string_view in[1];
  tc_string_view out[1];
  char text[16];
  tc_string_arena arena;
  tc_options options = TC_OPTIONS_INIT;
  tc_thread_pool* pool;

  if (tc_version() != TENSORCAST_VERSION_NUMBER) {
    fprintf(stderr, "library %s, headers %s\n", tc_version_string(), TENSORCAST_VERSION_STRING);
    return 1;
  }
  if (tc_cast(src, TC_TYPE_FLOAT, bf, TC_TYPE_BFLOAT16, 2, 1, TC_ROUND_UP, &err) != TC_OK ||
      bf[0] != 0x3F80 || bf[1] != 0x43E0) {
    fprintf(stderr, "tc_cast BFLOAT16: %s\n", msg);
    return 1;
  }
  if (tc_cast(src, TC_TYPE_FLOAT, f8, TC_TYPE_FLOAT8E4M3FN, 2, 1, TC_ROUND_UP, &err) != TC_OK ||
      f8[0] != 0x38 || f8[1] != 0x7E) {
    fprintf(stderr, "tc_cast FLOAT8E4M3FN: %s\n", msg);
    return 1;
  }
  outs[0] = a;
  outs[1] = b;
  if (tc_split(x, TC_TYPE_INT32, shape, 2, 1, sizes, 2, outs, &err) != TC_OK || a[0] != 0 ||
      a[1] != 3 || b[0] != 1 || b[1] != 2 || b[2] != 4 || b[3] != 5) {
    fprintf(stderr, "tc_split: %s\n", msg);
    return 1;
  }
  /* STRING round trip through an arena. */
  in[0].data = "3.5";
  in[0].size = 3;
  arena.data = text;
  arena.capacity = sizeof text;
  arena.views = out;
  arena.size = 0;
  if (tc_cast(in, TC_TYPE_STRING, &arena, TC_TYPE_STRING, 1, 1, TC_ROUND_UP, &err) != TC_OK ||
      out[0].size != 3 || strcmp(out[0].data, "3.5") != 0) {
    fprintf(stderr, "tc_cast STRING: %s\n", msg);
    return 1;
  }
  if (tc_cast(src, 99, bf, TC_TYPE_FLOAT16, 2, 1, TC_ROUND_UP, &err) != TC_INVALID_ARGUMENT ||
      err.code != TC_INVALID_ARGUMENT || msg[0] == '\0') {
    fprintf(stderr, "unknown type code accepted\n");
    return 1;
  }
  /* tc_cast_ex with options and a pool of two threads. */
  pool = tc_thread_pool_create(2);
  if (pool == NULL) {
    fprintf(stderr, "tc_thread_pool_create failed\n");
    return 1;
  }
  options.runner = tc_thread_pool_runner(pool);
  bf[0] = bf[1] = 0;
  if (tc_cast_ex(src, TC_TYPE_FLOAT, bf, TC_TYPE_BFLOAT16, 2, &options, &err) != TC_OK ||
      bf[0] != 0x3F80 || bf[1] != 0x43E0) {
    fprintf(stderr, "tc_cast_ex BFLOAT16: %s\n", msg);
    return 1;
  }
  tc_thread_pool_destroy(pool);
  printf("consumer_c: tensorcast %s (C API) OK, target %s\n", tc_version_string(),
         tc_active_target());
  return 0;
}

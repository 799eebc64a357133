/*
 * run_plan: runs a Substrait plan through rigel's C ABI and prints the
 * answer as tab-separated rows (NULL for nulls, decimals exact, dates as
 * yyyy-mm-dd). Then checks that bad input gets an error, not a crash.
 *
 * usage: run_plan CATALOG DEVICE PLANFILE [SQL]
 * build: cc -I capi -o run_plan capi/example/run_plan.c -L bin -lrigel -Wl,-rpath,bin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rigel.h"

static int is_valid(const struct ArrowArray* a, int64_t i) {
  const uint8_t* v = (const uint8_t*)a->buffers[0];
  if (v == NULL) return 1;
  int64_t j = a->offset + i;
  return (v[j / 8] >> (j % 8)) & 1;
}

/* days since 1970-01-01 to a civil date (Howard Hinnant's algorithm) */
static void print_date(int32_t days) {
  int64_t z = (int64_t)days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  printf("%04lld-%02lld-%02lld", (long long)(y + (m <= 2)), (long long)m, (long long)d);
}

static void print_decimal128(const uint8_t* p, int scale) {
  __int128 v;
  memcpy(&v, p, 16);
  int neg = v < 0;
  unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
  char digits[64];
  int n = 0;
  do {
    digits[n++] = '0' + (int)(u % 10);
    u /= 10;
  } while (u > 0);
  while (n <= scale) digits[n++] = '0';
  if (neg) putchar('-');
  for (int i = n - 1; i >= 0; i--) {
    putchar(digits[i]);
    if (i == scale && scale > 0) putchar('.');
  }
}

static int print_value(const struct ArrowSchema* s, const struct ArrowArray* a, int64_t i) {
  if (!is_valid(a, i)) {
    printf("NULL");
    return 0;
  }
  const char* f = s->format;
  int64_t j = a->offset + i;
  if (!strcmp(f, "l")) printf("%lld", (long long)((const int64_t*)a->buffers[1])[j]);
  else if (!strcmp(f, "i")) printf("%d", ((const int32_t*)a->buffers[1])[j]);
  else if (!strcmp(f, "s")) printf("%d", ((const int16_t*)a->buffers[1])[j]);
  else if (!strcmp(f, "c")) printf("%d", ((const int8_t*)a->buffers[1])[j]);
  else if (!strcmp(f, "g")) printf("%.17g", ((const double*)a->buffers[1])[j]);
  else if (!strcmp(f, "b")) printf("%s", (((const uint8_t*)a->buffers[1])[j / 8] >> (j % 8)) & 1 ? "true" : "false");
  else if (!strcmp(f, "tdD")) print_date(((const int32_t*)a->buffers[1])[j]);
  else if (!strcmp(f, "u")) {
    const int32_t* off = (const int32_t*)a->buffers[1];
    printf("%.*s", off[j + 1] - off[j], (const char*)a->buffers[2] + off[j]);
  } else if (!strncmp(f, "d:", 2)) {
    int precision = 0, scale = 0, bits = 128;
    if (sscanf(f, "d:%d,%d,%d", &precision, &scale, &bits) < 2 || bits != 128) {
      fprintf(stderr, "run_plan: decimal format %s not handled\n", f);
      return -1;
    }
    print_decimal128((const uint8_t*)a->buffers[1] + 16 * j, scale);
  } else {
    fprintf(stderr, "run_plan: Arrow format %s not handled\n", f);
    return -1;
  }
  return 0;
}

/* Prints a stream's rows and releases it. */
static int print_stream(struct ArrowArrayStream* st) {
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  if (st->get_schema(st, &schema) != 0) {
    fprintf(stderr, "run_plan: get_schema: %s\n", st->get_last_error(st));
    st->release(st);
    return -1;
  }
  int rc = 0;
  for (;;) {
    struct ArrowArray batch;
    memset(&batch, 0, sizeof batch);
    if (st->get_next(st, &batch) != 0) {
      fprintf(stderr, "run_plan: get_next: %s\n", st->get_last_error(st));
      rc = -1;
      break;
    }
    if (batch.release == NULL) break; /* end of stream */
    for (int64_t r = 0; r < batch.length && rc == 0; r++) {
      for (int64_t c = 0; c < schema.n_children; c++) {
        if (c > 0) putchar('\t');
        if (print_value(schema.children[c], batch.children[c], r) != 0) rc = -1;
      }
      putchar('\n');
    }
    batch.release(&batch);
  }
  schema.release(&schema);
  st->release(st);
  return rc;
}

static unsigned char* read_file(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* buf = malloc(size > 0 ? size : 1);
  *n = fread(buf, 1, size, f);
  fclose(f);
  return buf;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: run_plan CATALOG DEVICE PLANFILE [SQL]\n");
    return 1;
  }
  fprintf(stderr, "run_plan: %s\n", rigel_version());
  rigel_engine e = rigel_open(argv[1], argv[2]);
  if (e == 0) {
    fprintf(stderr, "run_plan: open: %s\n", rigel_last_error(0));
    return 2;
  }
  size_t n = 0;
  unsigned char* plan = read_file(argv[3], &n);
  if (!plan) {
    fprintf(stderr, "run_plan: cannot read %s\n", argv[3]);
    return 1;
  }
  struct ArrowArrayStream out;
  memset(&out, 0, sizeof out);
  if (rigel_execute_plan(e, plan, n, &out) != 0) {
    fprintf(stderr, "run_plan: execute: %s\n", rigel_last_error(e));
    return 2;
  }
  if (print_stream(&out) != 0) return 2;
  if (argc > 4) {
    printf("--sql\n");
    memset(&out, 0, sizeof out);
    if (rigel_execute_sql(e, argv[4], &out) != 0) {
      fprintf(stderr, "run_plan: sql: %s\n", rigel_last_error(e));
      return 2;
    }
    if (print_stream(&out) != 0) return 2;
  }

  /* Bad input: each an error with a message, and the engine keeps working. */
  int bad = 0;
  memset(&out, 0, sizeof out);
  if (rigel_execute_plan(e, plan, n / 2, &out) != -1 || !*rigel_last_error(e)) bad |= 1;
  else fprintf(stderr, "error-check truncated plan: %s\n", rigel_last_error(e));
  if (rigel_execute_plan(e, plan, n, NULL) != -1 || !*rigel_last_error(e)) bad |= 2;
  if (rigel_execute_sql(e, "SELEC 1", &out) != -1 || !*rigel_last_error(e)) bad |= 4;
  else fprintf(stderr, "error-check SQL: %s\n", rigel_last_error(e));
  if (rigel_register_stream(e, "x", NULL) != -1 || !*rigel_last_error(e)) bad |= 8;
  if (rigel_open("/nonexistent/db.duckdb", "host") != 0 || !*rigel_last_error(0)) bad |= 16;
  else fprintf(stderr, "error-check open: %s\n", rigel_last_error(0));
  if (rigel_execute_plan(e, plan, n, &out) != 0) bad |= 32; /* still works */
  else out.release(&out);
  rigel_close(e);
  rigel_close(e); /* closing twice is harmless */
  if (rigel_execute_plan(e, plan, n, &out) != -1) bad |= 64; /* closed */
  free(plan);
  if (bad) {
    fprintf(stderr, "run_plan: error checks failed (mask %d)\n", bad);
    return 3;
  }
  return 0;
}

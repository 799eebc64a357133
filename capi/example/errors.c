/*
 * errors: drives rigel's C ABI through bad input and the ownership rules,
 * and prints what happened, one check a line:
 *
 *   LABEL<TAB>RC<TAB>rigel_last_error text
 *
 * The test (capi_test.go) decides whether each text is the right one. The
 * program itself checks what C can see: after each failure the engine still
 * runs GOODPLAN to the same row count, out parameters of failed calls are
 * untouched, and every stream handed to rigel_register_stream is released
 * exactly once. A broken rule prints "BROKEN: ..." and exits 3.
 *
 * It also registers a stream made in C (c_stream.h) and prints
 *   c_ints<TAB>count(*)<TAB>count(x)<TAB>sum(x)
 * and reads an answer stream after its engine is closed.
 *
 * usage: errors CATALOG DEVICE GOODPLAN [LABEL=PLANFILE ...]
 *   each PLANFILE must fail; its line is labelled LABEL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_stream.h"
#include "rigel.h"

static int broken = 0;

#define BROKEN(...)                  \
  do {                               \
    fprintf(stderr, "BROKEN: ");     \
    fprintf(stderr, __VA_ARGS__);    \
    fprintf(stderr, "\n");           \
    broken = 1;                      \
  } while (0)

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

/* Rows in a stream; releases it. -1 on a stream error. */
static int64_t count_rows(struct ArrowArrayStream* st) {
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  if (st->get_schema(st, &schema) != 0) {
    st->release(st);
    return -1;
  }
  schema.release(&schema);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    if (st->get_next(st, &b) != 0) {
      rows = -1;
      break;
    }
    if (b.release == NULL) break;
    rows += b.length;
    b.release(&b);
  }
  st->release(st);
  return rows;
}

static const unsigned char* good_plan;
static size_t good_len;
static int64_t good_rows = -1;

/* Runs the good plan: the engine must still answer it, the same way. */
static void still_works(rigel_engine e, const char* after) {
  struct ArrowArrayStream out;
  memset(&out, 0, sizeof out);
  if (rigel_execute_plan(e, good_plan, good_len, &out) != 0) {
    BROKEN("after %s the good plan fails: %s", after, rigel_last_error(e));
    return;
  }
  int64_t rows = count_rows(&out);
  if (good_rows < 0) good_rows = rows;
  if (rows != good_rows || rows < 0) BROKEN("after %s the good plan gives %lld rows, not %lld", after, (long long)rows, (long long)good_rows);
}

/* One line per check; newlines and tabs in the text (DuckDB's errors have
 * them) are printed as \n and \t. */
static void report(const char* label, int rc, const char* msg) {
  printf("%s\t%d\t", label, rc);
  if (msg == NULL) {
    printf("(NULL)");
    BROKEN("%s: rigel_last_error returned NULL", label);
  }
  for (const char* p = msg; p && *p; p++) {
    if (*p == '\n') printf("\\n");
    else if (*p == '\t') printf("\\t");
    else putchar(*p);
  }
  putchar('\n');
}

/* A failing call must leave *out as it was: fill it with a pattern first. */
static void poison(struct ArrowArrayStream* out) { memset(out, 0xAB, sizeof *out); }
static void check_untouched(const char* label, const struct ArrowArrayStream* out) {
  const unsigned char* p = (const unsigned char*)out;
  for (size_t i = 0; i < sizeof *out; i++)
    if (p[i] != 0xAB) {
      BROKEN("%s: a failed call wrote into out", label);
      return;
    }
}

static void plan_check(rigel_engine e, const char* label, const unsigned char* plan, size_t len) {
  struct ArrowArrayStream out;
  poison(&out);
  int rc = rigel_execute_plan(e, plan, len, &out);
  report(label, rc, rigel_last_error(e));
  if (rc == 0) {
    out.release(&out);
    return;
  }
  check_untouched(label, &out);
  still_works(e, label);
}

static void sql_check(rigel_engine e, const char* label, const char* sql) {
  struct ArrowArrayStream out;
  poison(&out);
  int rc = rigel_execute_sql(e, sql, &out);
  report(label, rc, rigel_last_error(e));
  if (rc == 0) {
    out.release(&out);
    return;
  }
  check_untouched(label, &out);
  still_works(e, label);
}

/* Registers st and checks it was released exactly once, whatever happened. */
static void register_check(rigel_engine e, const char* label, const char* name, struct ArrowArrayStream* st,
                           int* released) {
  int rc = rigel_register_stream(e, name, st);
  report(label, rc, rigel_last_error(e));
  if (released && *released != 1) BROKEN("%s: the stream was released %d times, not once", label, *released);
  if (st && st->release != NULL) BROKEN("%s: the caller's stream struct still has a release callback", label);
  still_works(e, label);
}

/* Prints the int64 columns of a one-row answer after LABEL. */
static void print_int_row(const char* label, struct ArrowArrayStream* st) {
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  if (st->get_schema(st, &schema) != 0) {
    BROKEN("%s: get_schema: %s", label, st->get_last_error(st));
    st->release(st);
    return;
  }
  printf("%s", label);
  for (;;) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    if (st->get_next(st, &b) != 0) {
      BROKEN("%s: get_next: %s", label, st->get_last_error(st));
      break;
    }
    if (b.release == NULL) break;
    for (int64_t r = 0; r < b.length; r++)
      for (int64_t c = 0; c < schema.n_children; c++) {
        const struct ArrowArray* col = b.children[c];
        const uint8_t* valid = col->buffers[0];
        int64_t j = col->offset + r;
        if (strcmp(schema.children[c]->format, "l") != 0) {
          BROKEN("%s: column %lld is %s, not int64", label, (long long)c, schema.children[c]->format);
          printf("\t?");
        } else if (valid && !((valid[j / 8] >> (j % 8)) & 1)) {
          printf("\tNULL");
        } else {
          printf("\t%lld", (long long)((const int64_t*)col->buffers[1])[j]);
        }
      }
    b.release(&b);
  }
  printf("\n");
  schema.release(&schema);
  st->release(st);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: errors CATALOG DEVICE GOODPLAN [LABEL=PLANFILE ...]\n");
    return 1;
  }
  rigel_engine e = rigel_open(argv[1], argv[2]);
  if (e == 0) {
    fprintf(stderr, "errors: open: %s\n", rigel_last_error(0));
    return 2;
  }
  good_plan = read_file(argv[3], &good_len);
  if (!good_plan) {
    fprintf(stderr, "errors: cannot read %s\n", argv[3]);
    return 1;
  }
  still_works(e, "the start");
  printf("good\t%lld\n", (long long)good_rows);

  /* Plans that must fail, from the test. */
  for (int i = 4; i < argc; i++) {
    char* eq = strchr(argv[i], '=');
    size_t n = 0;
    unsigned char* plan = eq ? read_file(eq + 1, &n) : NULL;
    if (!plan) {
      fprintf(stderr, "errors: bad argument %s\n", argv[i]);
      return 1;
    }
    *eq = 0;
    plan_check(e, argv[i], plan, n);
    free(plan);
  }
  plan_check(e, "truncated", good_plan, good_len / 2);
  plan_check(e, "null-plan", NULL, 10);
  plan_check(e, "empty-plan", good_plan, 0);
  {
    int rc = rigel_execute_plan(e, good_plan, good_len, NULL);
    report("null-out", rc, rigel_last_error(e));
    still_works(e, "null-out");
  }
  sql_check(e, "null-sql", NULL);
  sql_check(e, "bad-sql", "SELEC 1");
  sql_check(e, "unknown-table-sql", "SELECT * FROM no_such_table");
  /* One query, not any statement: the catalog changes only through
   * rigel_register_stream, and the host's files stay closed to SQL. */
  sql_check(e, "ddl-sql", "CREATE TABLE made_by_sql (a INTEGER)");
  sql_check(e, "attach-sql", "ATTACH '/tmp/rigel-capi-attach.duckdb' AS other");
  sql_check(e, "copy-sql", "COPY (SELECT 1) TO '/tmp/rigel-capi-copy.csv'");
  sql_check(e, "set-sql", "SET threads = 1");
  sql_check(e, "explain-analyze-write-sql", "EXPLAIN ANALYZE CREATE TABLE made_by_explain AS SELECT 1");
  sql_check(e, "two-statements-sql", "SELECT 1; DROP TABLE t");

  /* Registration: the stream is rigel's on every path. */
  register_check(e, "null-stream", "x", NULL, NULL);
  {
    int released = 0;
    struct ArrowArrayStream st;
    int_stream_init(&st, 10, 1, -1, &released);
    register_check(e, "null-name", NULL, &st, &released);
  }
  {
    struct ArrowArrayStream st;
    memset(&st, 0, sizeof st);
    register_check(e, "released-stream", "x", &st, NULL);
  }
  {
    int released = 0;
    struct ArrowArrayStream st;
    int_stream_init(&st, 100, 3, 1, &released); /* fails at its second batch */
    register_check(e, "failing-stream", "broken_ints", &st, &released);
  }
  {
    int released = 0;
    struct ArrowArrayStream st;
    int_stream_init(&st, 10, 1, -1, &released);
    int rc = rigel_register_stream((rigel_engine)987654321, "x", &st);
    report("bad-handle-register", rc, rigel_last_error((rigel_engine)987654321));
    if (released != 1) BROKEN("bad-handle-register: the stream was released %d times, not once", released);
  }
  {
    int released = 0;
    struct ArrowArrayStream st;
    int_stream_init(&st, 1000, 5, -1, &released);
    register_check(e, "c-stream", "c_ints", &st, &released);
    struct ArrowArrayStream out;
    memset(&out, 0, sizeof out);
    if (rigel_execute_sql(e, "SELECT count(*) AS n, count(x) AS nx, sum(x)::BIGINT AS sx FROM c_ints", &out) != 0)
      BROKEN("c_ints: %s", rigel_last_error(e));
    else
      print_int_row("c_ints", &out);
  }

  /* Handles that are not open. */
  {
    struct ArrowArrayStream out;
    poison(&out);
    int rc = rigel_execute_sql((rigel_engine)987654321, "SELECT 1", &out);
    report("bad-handle", rc, rigel_last_error((rigel_engine)987654321));
    check_untouched("bad-handle", &out);
    still_works(e, "bad-handle");
  }
  {
    /* Handle 0, what a failed rigel_open returns: its error is read with 0. */
    struct ArrowArrayStream out;
    poison(&out);
    int rc = rigel_execute_sql((rigel_engine)0, "SELECT 1", &out);
    report("handle-0", rc, rigel_last_error(0));
    check_untouched("handle-0", &out);
  }
  {
    rigel_engine none = rigel_open("/nonexistent/catalog.duckdb", "host");
    report("missing-catalog", none == 0 ? -1 : 0, rigel_last_error(0));
    none = rigel_open("", "tpu");
    report("bad-device", none == 0 ? -1 : 0, rigel_last_error(0));
  }

  /* An answer stream outlives its engine's close; the handle does not. */
  {
    struct ArrowArrayStream out;
    memset(&out, 0, sizeof out);
    if (rigel_execute_plan(e, good_plan, good_len, &out) != 0) BROKEN("last plan: %s", rigel_last_error(e));
    rigel_close(e);
    rigel_close(e); /* harmless */
    int64_t rows = count_rows(&out);
    printf("after-close-rows\t%lld\n", (long long)rows);
    struct ArrowArrayStream out2;
    poison(&out2);
    int rc = rigel_execute_plan(e, good_plan, good_len, &out2);
    report("closed-handle", rc, rigel_last_error(e));
    check_untouched("closed-handle", &out2);
  }
  rigel_close(0); /* harmless */
  free((void*)good_plan);
  return broken ? 3 : 0;
}

/*
 * threads: one engine shared by several threads, as a host's worker pool
 * would use it. Each thread runs the plan and the SQL over and over (and a
 * failing query now and then, reading its error text) and checks every
 * answer against the one computed first, on one thread. Then the threads
 * keep going while the main thread closes the engine: calls in flight must
 * finish with their right answer, later ones fail with "not open"; nothing
 * may crash.
 *
 * usage: threads CATALOG DEVICE PLANFILE SQL
 * prints: "threads: N calls ok, M after close refused"; exits 3 on a wrong
 * answer.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rigel.h"

#define THREADS 6
#define ROUNDS 8

/* A checksum of an answer: rows, then int64/int32 values and string bytes. */
static uint64_t checksum(struct ArrowArrayStream* st, int* err) {
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  uint64_t h = 1469598103934665603ULL;
  if (st->get_schema(st, &schema) != 0) {
    *err = 1;
    st->release(st);
    return 0;
  }
  for (;;) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    if (st->get_next(st, &b) != 0) {
      *err = 1;
      break;
    }
    if (b.release == NULL) break;
    h = h * 1099511628211ULL + (uint64_t)b.length;
    for (int64_t c = 0; c < schema.n_children; c++) {
      const char* f = schema.children[c]->format;
      const struct ArrowArray* a = b.children[c];
      const uint8_t* valid = a->buffers[0];
      for (int64_t r = 0; r < a->length; r++) {
        int64_t j = a->offset + r;
        uint64_t v = 0;
        if (valid && !((valid[j / 8] >> (j % 8)) & 1)) v = 0x9e3779b97f4a7c15ULL;
        else if (!strcmp(f, "l")) v = (uint64_t)((const int64_t*)a->buffers[1])[j];
        else if (!strcmp(f, "i")) v = (uint64_t)((const int32_t*)a->buffers[1])[j];
        else if (!strcmp(f, "u")) {
          const int32_t* off = a->buffers[1];
          const unsigned char* s = (const unsigned char*)a->buffers[2];
          for (int32_t k = off[j]; k < off[j + 1]; k++) v = v * 31 + s[k];
        }
        h = (h ^ v) * 1099511628211ULL;
      }
    }
    b.release(&b);
  }
  schema.release(&schema);
  st->release(st);
  return h;
}

static rigel_engine engine;
static unsigned char* plan;
static size_t plan_len;
static const char* sql;
static uint64_t want_plan, want_sql;
static atomic_int ok_calls, refused, wrong;
static atomic_int closing;

/* One call: 1 ok, 0 refused because the engine is closed, -1 wrong. */
static int one_call(int which) {
  struct ArrowArrayStream out;
  memset(&out, 0, sizeof out);
  int rc = which == 0 ? rigel_execute_plan(engine, plan, plan_len, &out) : rigel_execute_sql(engine, sql, &out);
  if (rc != 0) {
    const char* msg = rigel_last_error(engine);
    if (atomic_load(&closing) && strstr(msg, "not open")) return 0;
    fprintf(stderr, "threads: call failed: %s\n", msg);
    return -1;
  }
  int err = 0;
  uint64_t got = checksum(&out, &err);
  if (err || got != (which == 0 ? want_plan : want_sql)) {
    fprintf(stderr, "threads: a wrong answer (%s)\n", which == 0 ? "plan" : "sql");
    return -1;
  }
  return 1;
}

static void* worker(void* arg) {
  long id = (long)arg;
  for (int r = 0; !atomic_load(&closing) ? r < ROUNDS : r < ROUNDS * 4; r++) {
    int res = one_call((int)((id + r) % 2));
    if (res == 1) atomic_fetch_add(&ok_calls, 1);
    else if (res == 0) {
      atomic_fetch_add(&refused, 1);
      break; /* closed: later calls would be refused too */
    } else atomic_fetch_add(&wrong, 1);
    if (r % 3 == 0 && !atomic_load(&closing)) {
      /* A failing call among the others: its text must be a real one. */
      struct ArrowArrayStream out;
      memset(&out, 0, sizeof out);
      if (rigel_execute_sql(engine, "SELECT * FROM no_such_table_here", &out) != -1) atomic_fetch_add(&wrong, 1);
      else if (rigel_last_error(engine)[0] == 0) atomic_fetch_add(&wrong, 1);
    }
  }
  return NULL;
}

static void run_threads(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  if (atomic_load(&closing)) {
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    rigel_close(engine);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: threads CATALOG DEVICE PLANFILE SQL\n");
    return 1;
  }
  engine = rigel_open(argv[1], argv[2]);
  if (!engine) {
    fprintf(stderr, "threads: open: %s\n", rigel_last_error(0));
    return 2;
  }
  FILE* f = fopen(argv[3], "rb");
  if (!f) return 1;
  fseek(f, 0, SEEK_END);
  plan_len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  plan = malloc(plan_len);
  if (fread(plan, 1, plan_len, f) != plan_len) return 1;
  fclose(f);
  sql = argv[4];

  /* The answers, on one thread. */
  struct ArrowArrayStream out;
  int err = 0;
  memset(&out, 0, sizeof out);
  if (rigel_execute_plan(engine, plan, plan_len, &out) != 0) {
    fprintf(stderr, "threads: plan: %s\n", rigel_last_error(engine));
    return 2;
  }
  want_plan = checksum(&out, &err);
  memset(&out, 0, sizeof out);
  if (rigel_execute_sql(engine, sql, &out) != 0) {
    fprintf(stderr, "threads: sql: %s\n", rigel_last_error(engine));
    return 2;
  }
  want_sql = checksum(&out, &err);
  if (err) return 2;

  run_threads();                 /* all threads, engine open */
  int before = atomic_load(&ok_calls);
  atomic_store(&closing, 1);
  run_threads();                 /* all threads, engine closed midway */
  printf("threads: %d calls ok (%d before the close), %d after close refused, %d wrong\n", atomic_load(&ok_calls),
         before, atomic_load(&refused), atomic_load(&wrong));
  free(plan);
  if (before != THREADS * ROUNDS) return 3;
  return atomic_load(&wrong) ? 3 : 0;
}

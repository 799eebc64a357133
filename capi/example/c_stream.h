/*
 * c_stream.h: an Arrow C stream made by hand in C, as a host without an
 * Arrow library would make one: one nullable int64 column "x" holding
 * 1..batches*rows, every multiple of 10 NULL, in `batches` batches of `rows`.
 * It counts its own releases (so a test sees that rigel released it) and
 * can be told to fail at a batch (so a test sees the producer's error text
 * come back through rigel_last_error).
 */
#ifndef RIGEL_EXAMPLE_C_STREAM_H
#define RIGEL_EXAMPLE_C_STREAM_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rigel.h"

struct int_stream {
  int64_t rows;    /* rows per batch */
  int batches;     /* batches to produce */
  int next;        /* the next batch */
  int fail_at;     /* get_next fails at this batch; -1: never */
  int* released;   /* incremented when the stream is released */
};

static void int_schema_release(struct ArrowSchema* s) {
  if (s->n_children > 0) {
    free(s->children[0]);
    free(s->children);
  }
  s->release = NULL;
}

static void leaf_schema_release(struct ArrowSchema* s) { s->release = NULL; }

static int int_stream_get_schema(struct ArrowArrayStream* st, struct ArrowSchema* out) {
  (void)st;
  struct ArrowSchema* x = calloc(1, sizeof *x);
  struct ArrowSchema** kids = calloc(1, sizeof *kids);
  if (!x || !kids) return ENOMEM;
  x->format = "l";
  x->name = "x";
  x->flags = ARROW_FLAG_NULLABLE;
  x->release = leaf_schema_release;
  kids[0] = x;
  memset(out, 0, sizeof *out);
  out->format = "+s";
  out->name = "";
  out->n_children = 1;
  out->children = kids;
  out->release = int_schema_release;
  return 0;
}

/* A batch owns: its child array, the child's buffer list, validity and values. */
static void int_batch_release(struct ArrowArray* a) {
  struct ArrowArray* x = a->children[0];
  free((void*)x->buffers[0]);
  free((void*)x->buffers[1]);
  free(x->buffers);
  free(x);
  free(a->children);
  free(a->buffers);
  a->release = NULL;
}

static void leaf_array_release(struct ArrowArray* a) { a->release = NULL; }

static int int_stream_get_next(struct ArrowArrayStream* st, struct ArrowArray* out) {
  struct int_stream* s = st->private_data;
  memset(out, 0, sizeof *out);
  if (s->next == s->fail_at) return EIO;
  if (s->next >= s->batches) return 0; /* end: out->release stays NULL */
  int64_t n = s->rows, base = (int64_t)s->next * n, nulls = 0;
  int64_t* values = calloc(n > 0 ? n : 1, sizeof *values);
  uint8_t* valid = calloc((n + 7) / 8 + 1, 1);
  struct ArrowArray* x = calloc(1, sizeof *x);
  const void** xbufs = calloc(2, sizeof *xbufs);
  struct ArrowArray** kids = calloc(1, sizeof *kids);
  const void** bufs = calloc(1, sizeof *bufs);
  if (!values || !valid || !x || !xbufs || !kids || !bufs) return ENOMEM;
  for (int64_t i = 0; i < n; i++) {
    int64_t v = base + i + 1;
    if (v % 10 == 0) {
      nulls++;
    } else {
      values[i] = v;
      valid[i / 8] |= (uint8_t)(1u << (i % 8));
    }
  }
  xbufs[0] = valid;
  xbufs[1] = values;
  x->length = n;
  x->null_count = nulls;
  x->n_buffers = 2;
  x->buffers = xbufs;
  x->release = leaf_array_release; /* the parent frees it */
  kids[0] = x;
  bufs[0] = NULL; /* a struct's validity: none */
  out->length = n;
  out->n_buffers = 1;
  out->buffers = bufs;
  out->n_children = 1;
  out->children = kids;
  out->release = int_batch_release;
  s->next++;
  return 0;
}

static const char* int_stream_last_error(struct ArrowArrayStream* st) {
  (void)st;
  return "c producer: the disk is on fire";
}

static void int_stream_release(struct ArrowArrayStream* st) {
  struct int_stream* s = st->private_data;
  (*s->released)++;
  free(s);
  st->release = NULL;
}

/* Fills *st with a new stream; *released counts its releases. */
static void int_stream_init(struct ArrowArrayStream* st, int64_t rows, int batches, int fail_at, int* released) {
  struct int_stream* s = calloc(1, sizeof *s);
  s->rows = rows;
  s->batches = batches;
  s->fail_at = fail_at;
  s->released = released;
  st->get_schema = int_stream_get_schema;
  st->get_next = int_stream_get_next;
  st->get_last_error = int_stream_last_error;
  st->release = int_stream_release;
  st->private_data = s;
}

#endif /* RIGEL_EXAMPLE_C_STREAM_H */

package duckarrow

/*
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// From duckdb.h (DuckDB 1.5), its handles as the pointers they are.
uint64_t duckdb_data_chunk_get_size(void *chunk);
void *duckdb_data_chunk_get_vector(void *chunk, uint64_t col_idx);
void *duckdb_vector_get_data(void *vector);
uint64_t *duckdb_vector_get_validity(void *vector);
void *duckdb_vector_get_column_type(void *vector);
int duckdb_get_type_id(void *type);
int duckdb_decimal_internal_type(void *type);
void duckdb_destroy_logical_type(void **type);
void duckdb_scalar_function_set_error(void *info, const char *error);

enum { RG_VARCHAR = 17, RG_DECIMAL = 19 }; // DUCKDB_TYPE_*

// One column being read by rg_scatter: where its rows go and what DuckDB
// must hand over. Each row's value is written at its rowid.
typedef struct {
	int32_t type_id;   // the DUCKDB_TYPE_* the column has (a decimal's internal one for decimals)
	int32_t decimal;   // 1: a decimal, sign-extended into out_width bytes a value (8 or 16)
	int32_t in_width;  // bytes a value in DuckDB's vectors
	int32_t out_width; // bytes a value in data
	// Strings written as their 32-bit codes in a dictionary of dict_n
	// distinct strings in byte order: string i is dict_bytes[dict_offs[i],
	// dict_offs[i+1]).
	const char *dict_bytes;
	const int64_t *dict_offs;
	int64_t dict_n;
	// A hash table of the dictionary (rg_dict_index): slots[h] is a code
	// plus one, 0 when empty; mask is its size less one.
	int32_t *slots;
	uint64_t mask;
	char *data;
	uint64_t *valid;   // a bit a row, set when the value is valid; whole words
	int64_t rows;
	int64_t nulls;     // added to atomically
	int32_t failed;    // set atomically: 1 a rowid out of range, 2 another type, 3 a string not in the dictionary, 4 strings not gathered
	// The statement's key to this column: its slot in the low bits, the
	// rest random, so that SQL from anyone else (the function is in the
	// database's catalog for all to call) cannot write into a column
	// being read.
	int64_t token;
	// Strings in Arrow's layout (strings = 1): data holds rows+1 int32s,
	// each row's length at its rowid plus one (rg_scatter_strings_finish
	// turns them into offsets); each chunk's bytes go to a buffer of its
	// own, listed in chunks.
	int32_t strings;
	struct rg_chunk *chunks;
	int64_t max_chunks;
	int64_t n_chunks; // added to atomically
} rg_scatter;

// One chunk of a string column: rows r0..r0+n-1, their bytes one after
// another.
typedef struct rg_chunk {
	int64_t r0, n;
	char *bytes;
	int64_t size;
} rg_chunk;

#define RG_SCATTER_SLOTS 1024 // a power of two
static rg_scatter *rg_scatter_slots[RG_SCATTER_SLOTS];

static void rg_scatter_set(int slot, rg_scatter *s) { rg_scatter_slots[slot] = s; }

static int rg_type_matches(rg_scatter *s, void *vec) {
	void *t = duckdb_vector_get_column_type(vec);
	int id = duckdb_get_type_id(t);
	int ok = s->decimal ? id == RG_DECIMAL && duckdb_decimal_internal_type(t) == s->type_id
	       : s->dict_offs || s->strings ? id == RG_VARCHAR : id == s->type_id;
	duckdb_destroy_logical_type(&t);
	return ok;
}

static uint64_t rg_mix(uint64_t a, uint64_t b) {
	uint64_t h = a ^ (b * 0x9E3779B97F4A7C15ULL);
	h ^= h >> 32;
	h *= 0xD6E8FEB86659FD93ULL;
	h ^= h >> 32;
	return h;
}

// rg_key_of is the two words a string is hashed by: its length and first 4
// bytes, then its next 8 bytes when it has at most 12, else a hash of all
// of them. For a string of at most 12 bytes they are DuckDB's
// duckdb_string_t as it is (a 32-bit length, the string inline, zeros
// after it: DuckDB's own equality relies on those zeros), so a lookup
// reads the vector's 16 bytes and nothing else.
static void rg_key_of(const char *p, uint32_t len, uint64_t *w0, uint64_t *w1) {
	char k[16] = {0};
	memcpy(k, &len, 4);
	memcpy(k + 4, p, len < 12 ? len : (len > 12 ? 4 : 12));
	memcpy(w0, k, 8);
	if (len <= 12) {
		memcpy(w1, k + 8, 8);
		return;
	}
	uint64_t h = len;
	for (uint32_t i = 0; i < len; i += 8) {
		uint64_t w = 0;
		memcpy(&w, p + i, len - i < 8 ? len - i : 8);
		h = rg_mix(h, w);
	}
	*w1 = h;
}

static int rg_dict_equal(rg_scatter *s, int64_t code, const char *p, uint32_t len) {
	int64_t dlen = s->dict_offs[code + 1] - s->dict_offs[code];
	return dlen == (int64_t)len && memcmp(s->dict_bytes + s->dict_offs[code], p, len) == 0;
}

// rg_dict_insert puts codes [from, to) of the dictionary into its hash
// table. The strings are distinct, so an insert only looks for a free
// slot, taken by compare-and-swap: inserters run side by side.
typedef struct { rg_scatter *s; int64_t from, to; } rg_dict_part;

static void *rg_dict_insert(void *arg) {
	rg_dict_part *part = arg;
	rg_scatter *s = part->s;
	for (int64_t c = part->from; c < part->to; c++) {
		uint64_t w0, w1;
		rg_key_of(s->dict_bytes + s->dict_offs[c], (uint32_t)(s->dict_offs[c + 1] - s->dict_offs[c]), &w0, &w1);
		for (uint64_t h = rg_mix(w0, w1) & s->mask;; h = (h + 1) & s->mask) {
			int32_t empty = 0;
			if (__atomic_compare_exchange_n(&s->slots[h], &empty, (int32_t)(c + 1), 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
				break;
			}
		}
	}
	return NULL;
}

// rg_dict_index builds the hash table of the dictionary, on up to 8
// threads for a large one (TPC-H SF30's c_phone: 4.5 M strings); 0 when
// out of memory (lookups then search the sorted dictionary alone). The
// table is read only after every inserter has joined.
enum { RG_INDEX_THREADS = 8, RG_INDEX_MIN_PART = 1 << 18 };

static int rg_dict_index(rg_scatter *s) {
	uint64_t size = 16;
	while (size < 2 * (uint64_t)s->dict_n) {
		size *= 2;
	}
	s->slots = calloc(size, sizeof(int32_t));
	if (!s->slots) {
		return 0;
	}
	s->mask = size - 1;
	int64_t parts = s->dict_n / RG_INDEX_MIN_PART;
	if (parts > RG_INDEX_THREADS) parts = RG_INDEX_THREADS;
	if (parts < 1) parts = 1;
	rg_dict_part part[RG_INDEX_THREADS];
	pthread_t th[RG_INDEX_THREADS];
	int started[RG_INDEX_THREADS] = {0};
	int64_t each = (s->dict_n + parts - 1) / parts;
	for (int64_t i = 0; i < parts; i++) {
		part[i].s = s;
		part[i].from = i * each < s->dict_n ? i * each : s->dict_n;
		part[i].to = (i + 1) * each < s->dict_n ? (i + 1) * each : s->dict_n;
	}
	// Part 0 on this thread; a thread that cannot start leaves its part
	// to this one too.
	for (int64_t i = 1; i < parts; i++) {
		started[i] = pthread_create(&th[i], NULL, rg_dict_insert, &part[i]) == 0;
	}
	rg_dict_insert(&part[0]);
	for (int64_t i = 1; i < parts; i++) {
		if (started[i]) {
			pthread_join(th[i], NULL);
		} else {
			rg_dict_insert(&part[i]);
		}
	}
	return 1;
}

static void rg_dict_free(rg_scatter *s) {
	free(s->slots);
	s->slots = NULL;
}

// rg_search is the position of the string in the sorted dictionary, or -1:
// a binary search in byte order, shorter first on a common prefix, as Go
// compares strings.
static int64_t rg_search(rg_scatter *s, const char *p, uint32_t len) {
	int64_t lo = 0, hi = s->dict_n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		const char *d = s->dict_bytes + s->dict_offs[mid];
		uint64_t dlen = (uint64_t)(s->dict_offs[mid + 1] - s->dict_offs[mid]);
		int c = memcmp(d, p, dlen < len ? dlen : len);
		if (c == 0) {
			c = dlen < len ? -1 : dlen > len ? 1 : 0;
		}
		if (c == 0) {
			return mid;
		}
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return -1;
}

// rg_code is the position of DuckDB's string v (duckdb_string_t: a 32-bit
// length, then the string inline when at most 12 bytes, else a 4-byte
// prefix and a pointer) in the dictionary, or -1. The hash table answers;
// the sorted dictionary is searched too before a string is called absent,
// so that a lookup is right whatever the bytes after an inline string.
static int64_t rg_code(rg_scatter *s, const char *v) {
	uint32_t len;
	memcpy(&len, v, 4);
	const char *p = v + 4;
	if (len > 12) {
		memcpy(&p, v + 8, sizeof p);
	}
	if (s->slots) {
		uint64_t w0, w1;
		memcpy(&w0, v, 8);
		if (len <= 12) {
			memcpy(&w1, v + 8, 8);
		} else {
			rg_key_of(p, len, &w0, &w1);
		}
		for (uint64_t h = rg_mix(w0, w1) & s->mask; s->slots[h]; h = (h + 1) & s->mask) {
			int64_t c = s->slots[h] - 1;
			if (rg_dict_equal(s, c, p, len)) {
				return c;
			}
		}
	}
	return rg_search(s, p, len);
}

// rg_copy_codes writes the codes of n strings of src (null ones: 0), row i
// at rows r0+i; 0 when a valid string is not in the dictionary.
static int rg_copy_codes(rg_scatter *s, const char *src, const uint64_t *mask, int64_t r0, uint64_t n) {
	int32_t *out = (int32_t *)s->data + r0;
	for (uint64_t i = 0; i < n; i++) {
		out[i] = 0;
		if (mask && !(mask[i / 64] >> (i % 64) & 1)) {
			continue;
		}
		int64_t c = rg_code(s, src + 16 * i);
		if (c < 0) {
			return 0;
		}
		out[i] = (int32_t)c;
	}
	return 1;
}

// rg_string is DuckDB's string v: its bytes and length.
static const char *rg_string(const char *v, uint32_t *len) {
	memcpy(len, v, 4);
	const char *p = v + 4;
	if (*len > 12) {
		memcpy(&p, v + 8, sizeof p);
	}
	return p;
}

// rg_copy_strings writes the lengths of n strings of src (null ones: 0)
// at rows r0+i and their bytes into a buffer of the chunk's own, listed
// for rg_scatter_strings_finish; 0 when out of memory or of chunk entries.
static int rg_copy_strings(rg_scatter *s, const char *src, const uint64_t *mask, int64_t r0, uint64_t n) {
	int32_t *lens = (int32_t *)s->data + r0 + 1;
	int64_t size = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t len = 0;
		if (!mask || (mask[i / 64] >> (i % 64) & 1)) {
			rg_string(src + 16 * i, &len);
		}
		lens[i] = (int32_t)len;
		size += len;
	}
	char *bytes = malloc(size > 0 ? size : 1);
	if (!bytes) {
		return 0;
	}
	char *at = bytes;
	for (uint64_t i = 0; i < n; i++) {
		if (lens[i] > 0) {
			uint32_t len;
			const char *p = rg_string(src + 16 * i, &len);
			memcpy(at, p, len);
			at += len;
		}
	}
	int64_t c = __atomic_fetch_add(&s->n_chunks, 1, __ATOMIC_RELAXED);
	if (c >= s->max_chunks) {
		free(bytes);
		return 0;
	}
	s->chunks[c] = (rg_chunk){r0, (int64_t)n, bytes, size};
	return 1;
}

// rg_scatter_strings_finish turns the lengths into offsets (32-bit, as
// Arrow's strings) and copies the chunks' bytes into chars at them; chars
// NULL: only the offsets and the total. It returns the characters' total,
// -1 when the chunks do not cover the rows once each, or -2 when the total
// passes 2^31-1.
static int64_t rg_scatter_strings_finish(rg_scatter *s, char *chars) {
	int32_t *offs = (int32_t *)s->data;
	if (!chars) {
		int64_t covered = 0;
		for (int64_t c = 0; c < s->n_chunks && c < s->max_chunks; c++) {
			covered += s->chunks[c].n;
		}
		if (s->n_chunks > s->max_chunks || covered != s->rows) {
			return -1;
		}
		int64_t total = 0;
		offs[0] = 0;
		for (int64_t r = 1; r <= s->rows; r++) {
			total += offs[r];
			if (total > 2147483647) {
				return -2;
			}
			offs[r] = (int32_t)total;
		}
		return total;
	}
	for (int64_t c = 0; c < s->n_chunks; c++) {
		rg_chunk *k = &s->chunks[c];
		memcpy(chars + offs[k->r0], k->bytes, k->size);
	}
	return offs[s->rows];
}

static void rg_scatter_strings_free(rg_scatter *s) {
	for (int64_t c = 0; c < s->n_chunks && c < s->max_chunks; c++) {
		free(s->chunks[c].bytes);
	}
	free(s->chunks);
	s->chunks = NULL;
	s->n_chunks = 0;
}

// rg_copy_values writes n values of src, row i at rows r0+i.
static void rg_copy_values(rg_scatter *s, const char *src, int64_t r0, uint64_t n) {
	if (s->in_width == s->out_width) {
		memcpy(s->data + r0 * s->out_width, src, n * s->out_width);
		return;
	}
	int64_t *out = (int64_t *)(s->data + r0 * s->out_width);
	int wide = s->out_width == 16;
	for (uint64_t i = 0; i < n; i++) {
		int64_t v = s->in_width == 8 ? ((const int64_t *)src)[i]
		          : s->in_width == 4 ? ((const int32_t *)src)[i] : ((const int16_t *)src)[i];
		if (wide) {
			out[2 * i] = v;
			out[2 * i + 1] = v >> 63;
		} else {
			out[i] = v;
		}
	}
}

static void rg_copy_value(rg_scatter *s, const char *src, uint64_t i, int64_t r) {
	rg_copy_values(s, src + i * s->in_width, r, 1);
}

static void rg_set_valid(rg_scatter *s, int64_t r) {
	__atomic_fetch_or(&s->valid[r / 64], (uint64_t)1 << (r % 64), __ATOMIC_RELAXED);
}

// rg_copy_validity sets the bits of rows r0..r0+n-1 whose values are valid
// (mask: DuckDB's, a bit a row of the chunk, NULL when all are). Words
// wholly inside the range belong to this chunk alone; the two at its ends
// may be another chunk's too, so they are set atomically.
static int64_t rg_copy_validity(rg_scatter *s, const uint64_t *mask, int64_t r0, uint64_t n) {
	int64_t nulls = 0;
	for (uint64_t i = 0; i < n;) {
		int64_t r = r0 + i;
		uint64_t bits = mask ? mask[i / 64] >> (i % 64) : ~(uint64_t)0;
		if (mask && i % 64 != 0 && i / 64 + 1 < (n + 63) / 64) {
			bits |= mask[i / 64 + 1] << (64 - i % 64);
		}
		// Up to 64 rows: to the end of r's word or of the chunk.
		uint64_t take = 64 - r % 64;
		if (take > n - i) {
			take = n - i;
		}
		if (take < 64) {
			bits &= ((uint64_t)1 << take) - 1;
		}
		nulls += (int64_t)take - __builtin_popcountll(bits);
		uint64_t word = bits << (r % 64);
		if (take == 64) {
			s->valid[r / 64] = word;
		} else if (word) {
			__atomic_fetch_or(&s->valid[r / 64], word, __ATOMIC_RELAXED);
		}
		i += take;
	}
	return nulls;
}

// rg_scatter_fn is the scalar function rigel_scatter_column(token, rowid,
// value): it writes each row's value and validity at its rowid in the
// token's column and returns 1 a row (their sum is the rows written). DuckDB
// calls it from its scan's threads, a chunk at a time, inputs flattened.
static void rg_scatter_fn(void *info, void *input, void *output) {
	uint64_t n = duckdb_data_chunk_get_size(input);
	int64_t *out = duckdb_vector_get_data(output);
	for (uint64_t i = 0; i < n; i++) {
		out[i] = 1;
	}
	if (n == 0) {
		return;
	}
	int64_t token = ((int64_t *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(input, 0)))[0];
	rg_scatter *s = rg_scatter_slots[(uint64_t)token % RG_SCATTER_SLOTS];
	if (s == NULL || s->token != token) {
		duckdb_scalar_function_set_error(info, "rigel_scatter_column: no column is being read into this slot");
		return;
	}
	const int64_t *rowid = duckdb_vector_get_data(duckdb_data_chunk_get_vector(input, 1));
	void *vec = duckdb_data_chunk_get_vector(input, 2);
	if (!rg_type_matches(s, vec)) {
		__atomic_store_n(&s->failed, 2, __ATOMIC_RELAXED);
		duckdb_scalar_function_set_error(info, "rigel_scatter_column: the column's type is not the one being read");
		return;
	}
	const char *src = duckdb_vector_get_data(vec);
	const uint64_t *mask = duckdb_vector_get_validity(vec);
	int64_t r0 = rowid[0];
	int contiguous = r0 >= 0 && r0 <= s->rows - (int64_t)n;
	for (uint64_t i = 1; contiguous && i < n; i++) {
		contiguous = rowid[i] == r0 + (int64_t)i;
	}
	if (s->strings && !contiguous) {
		// Strings are gathered a chunk (a run of rowids) at a time.
		__atomic_store_n(&s->failed, 4, __ATOMIC_RELAXED);
		duckdb_scalar_function_set_error(info, "rigel_scatter_column: string rows out of rowid order");
		return;
	}
	if (contiguous) {
		if (s->strings) {
			if (!rg_copy_strings(s, src, mask, r0, n)) {
				__atomic_store_n(&s->failed, 4, __ATOMIC_RELAXED);
				duckdb_scalar_function_set_error(info, "rigel_scatter_column: out of memory gathering strings");
				return;
			}
		} else if (s->dict_offs) {
			if (!rg_copy_codes(s, src, mask, r0, n)) {
				__atomic_store_n(&s->failed, 3, __ATOMIC_RELAXED);
				duckdb_scalar_function_set_error(info, "rigel_scatter_column: a string not in the dictionary");
				return;
			}
		} else {
			rg_copy_values(s, src, r0, n);
		}
		int64_t nulls = rg_copy_validity(s, mask, r0, n);
		if (nulls) {
			__atomic_fetch_add(&s->nulls, nulls, __ATOMIC_RELAXED);
		}
		return;
	}
	int64_t nulls = 0;
	for (uint64_t i = 0; i < n; i++) {
		int64_t r = rowid[i];
		if (r < 0 || r >= s->rows) {
			__atomic_store_n(&s->failed, 1, __ATOMIC_RELAXED);
			duckdb_scalar_function_set_error(info, "rigel_scatter_column: a rowid past the table's row count");
			return;
		}
		if (!mask || (mask[i / 64] >> (i % 64) & 1)) {
			if (s->dict_offs) {
				int64_t c = rg_code(s, src + 16 * i);
				if (c < 0) {
					__atomic_store_n(&s->failed, 3, __ATOMIC_RELAXED);
					duckdb_scalar_function_set_error(info, "rigel_scatter_column: a string not in the dictionary");
					return;
				}
				((int32_t *)s->data)[r] = (int32_t)c;
			} else {
				rg_copy_value(s, src, i, r);
			}
			rg_set_valid(s, r);
		} else {
			nulls++;
		}
	}
	if (nulls) {
		__atomic_fetch_add(&s->nulls, nulls, __ATOMIC_RELAXED);
	}
}

static void *rg_scatter_callback(void) { return (void *)rg_scatter_fn; }
*/
import "C"

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/rigel-db/rigel/internal/offheap"
)

// ErrNotScattered says ScatterColumn cannot read this column (a type it
// does not copy, a table whose rowids are not 0 to its row count less one,
// a view): read it another way (QueryColumn).
var ErrNotScattered = errors.New("duckarrow: the column cannot be read by rowid")

// ErrStringsTooLong: a string column's characters pass 2^31-1 bytes, more
// than an Arrow string array's 32-bit offsets (and a device string
// column's) address. No other way of reading the column makes it fit.
var ErrStringsTooLong = fmt.Errorf("duckarrow: a string column of more than %d bytes of characters exceeds Arrow's 32-bit offsets", 1<<31-1)

// scatterFunction is the scalar function ScatterColumn registers.
const scatterFunction = "rigel_scatter_column"

// ScatterColumn reads one whole column of a table into one Arrow array of
// type want (Decimal64 for a decimal of precision at most 18, see
// scatterSpecOf), letting DuckDB's own parallel scan write it: the statement
// `SELECT sum(rigel_scatter_column(token, rowid, column)) FROM table` runs a
// C scalar function on DuckDB's threads, a chunk at a time, which copies
// each row's value to the row's rowid in the array (strings: each row's
// length there, and the chunk's bytes into a buffer of its own, gathered
// after the scan). No result is materialized and no thread reads it alone
// afterwards, which is what bounds QueryColumn (DuckDB's result fetched a
// chunk at a time by one thread).
//
// table and column are SQL: a table reference and a column name, quoted.
// The rowids must be 0 to the row count less one (a table with deleted
// rows may have gaps until DuckDB checkpoints): otherwise, and for types it
// does not copy (see scatterSpecOf), it returns ErrNotScattered and reads
// nothing. The sum is checked against the row count, so a table that
// changes between the count and the scan gives an error, not a column with
// holes.
//
// ran, when not nil, is called once DuckDB has run its statements.
func (a *Arrow) ScatterColumn(ctx context.Context, table, column string, want arrow.DataType, ran func()) (arrow.Array, error) {
	if ran != nil {
		defer ran()
	}
	spec, made, ok := scatterSpecOf(want)
	if !ok {
		return nil, ErrNotScattered
	}
	if err := a.registerScatter(); err != nil {
		return nil, err
	}
	rows, err := a.denseRows(ctx, table)
	if err != nil {
		return nil, err
	}
	return a.scatter(ctx, table, "rowid", column, made, spec, rows)
}

// ScatterDictionary reads one whole string column of a table as an Arrow
// dictionary array: 32-bit indices into a dictionary of the column's
// distinct strings sorted in byte order (Go's string order), nulls in the
// indices. DuckDB finds the distinct strings (its parallel hash
// aggregate); then its parallel scan writes each row's code at the row's
// rowid, found by a binary search in the dictionary on DuckDB's threads.
// No string is copied a row at a time, nor hashed by one thread: what
// bounds QueryColumn followed by a dictionary encoding.
//
// It refuses what ScatterColumn refuses (ErrNotScattered), and a column
// that is not VARCHAR.
func (a *Arrow) ScatterDictionary(ctx context.Context, table, column string, ran func()) (arrow.Array, error) {
	if ran != nil {
		defer ran()
	}
	if err := a.registerScatter(); err != nil {
		return nil, err
	}
	rows, err := a.denseRows(ctx, table)
	if err != nil {
		return nil, err
	}
	spec, dict, done, err := a.dictionarySpec(ctx, table, column)
	if err != nil {
		return nil, err
	}
	defer done()
	codes, err := a.scatter(ctx, table, "rowid", column, arrow.PrimitiveTypes.Int32, spec, rows)
	if err != nil {
		return nil, err
	}
	defer codes.Release()
	return dictionaryArray(codes, dict), nil
}

func dictionaryArray(codes arrow.Array, dict *array.String) arrow.Array {
	return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, codes, dict)
}

// dictionarySpec finds a string column's distinct strings (DuckDB's
// parallel hash aggregate), sorts them, and describes them to the scatter
// function, which writes each row's code. done frees what the description
// points to, after the last scan that uses it.
func (a *Arrow) dictionarySpec(ctx context.Context, table, column string) (spec C.rg_scatter, dict *array.String, done func(), err error) {
	// DuckDB sorts them too, on all its threads, where Go's sort ran on
	// one (bench/results/2026-11-28-build-dictionary-load-fallback-inputs.md).
	// Strings compare as bytes there as in Go, unless a collation says
	// otherwise, which the check below catches.
	distinct, err := a.QueryColumn(ctx, "SELECT DISTINCT "+column+" AS v FROM "+table+" WHERE "+column+" IS NOT NULL ORDER BY v", arrow.BinaryTypes.String, nil)
	if err != nil {
		return spec, nil, nil, errors.Join(ErrNotScattered, err)
	}
	dict = distinct.(*array.String)
	if !strictlyIncreasing(dict) {
		dict = sortedStrings(dict)
		distinct.Release()
	}
	// The dictionary's bytes and offsets where C may keep a pointer to
	// them (not the Go heap).
	var bytes, offs offheap.Region
	done = func() {
		dict.Release()
		bytes.Free()
		offs.Free()
	}
	if dict.Len() > 0 { // an empty array may have no offsets to slice by
		if err := bytes.Add(dict.ValueBytes()); err != nil {
			done()
			return spec, nil, nil, err
		}
	}
	if err := offs.Extend(8 * (dict.Len() + 1)); err != nil {
		done()
		return spec, nil, nil, err
	}
	o := unsafe.Slice((*int64)(unsafe.Pointer(&offs.B[0])), dict.Len()+1)
	if vo := dict.ValueOffsets(); len(vo) > 0 {
		base := vo[0] // the bytes start at the array's first value
		for i, v := range vo {
			o[i] = int64(v - base)
		}
	}
	spec.type_id, spec.in_width, spec.out_width = C.RG_VARCHAR, 16, 4
	if len(bytes.B) > 0 {
		spec.dict_bytes = (*C.char)(unsafe.Pointer(&bytes.B[0]))
	}
	spec.dict_offs = (*C.int64_t)(unsafe.Pointer(&offs.B[0]))
	spec.dict_n = C.int64_t(dict.Len())
	C.rg_dict_index(&spec) // without it (no memory), lookups search the sorted dictionary
	freeData := done
	done = func() {
		C.rg_dict_free(&spec)
		freeData()
	}
	return spec, dict, done, nil
}

// ScatterSegments reads a column as ScatterColumn does (ScatterDictionary
// when dict is set), per rows at a time in row order: each segment is
// its own scan of the rows whose rowids lie in its range (DuckDB skips the
// other row groups), written at the rowid less the segment's first, and
// goes to put, which owns it. The host holds one segment of the column at
// a time instead of all of it: TPC-H SF100's lineitem columns are 4.8 GB
// each. A dictionary column's segments share one dictionary, found first
// over the whole column. An empty table gives one empty segment.
//
// It refuses what ScatterColumn refuses (ErrNotScattered) before it puts
// anything; the table changing between segments is an error.
func (a *Arrow) ScatterSegments(ctx context.Context, table, column string, want arrow.DataType, dict bool, per int64, put func(arrow.Array) error, ran func()) error {
	if ran != nil {
		defer ran()
	}
	if per <= 0 {
		return fmt.Errorf("duckarrow: segments of %d rows", per)
	}
	spec, made, ok := scatterSpecOf(want)
	if dict {
		spec, made, ok = C.rg_scatter{}, arrow.PrimitiveTypes.Int32, arrow.TypeEqual(want, arrow.BinaryTypes.String)
	}
	if !ok {
		return ErrNotScattered
	}
	if err := a.registerScatter(); err != nil {
		return err
	}
	rows, err := a.denseRows(ctx, table)
	if err != nil {
		return err
	}
	var strs *array.String
	if dict {
		var done func()
		if spec, strs, done, err = a.dictionarySpec(ctx, table, column); err != nil {
			return err
		}
		defer done()
	}
	for first := int64(0); first == 0 || first < rows; first += per {
		n := min(per, rows-first)
		from := fmt.Sprintf("%s WHERE rowid >= %d AND rowid < %d", table, first, first+n)
		arr, err := a.scatter(ctx, from, fmt.Sprintf("rowid - %d", first), column, made, spec, n)
		if err != nil {
			if first > 0 && errors.Is(err, ErrNotScattered) {
				// Segments were put: reading the column another way (what
				// ErrNotScattered asks for) would repeat them.
				return fmt.Errorf("duckarrow: rows %d to %d of %s could not be read by rowid after the rows before them were: %v", first, first+n, table, err)
			}
			return err
		}
		if dict {
			codes := arr
			arr = dictionaryArray(codes, strs)
			codes.Release()
		}
		if err := put(arr); err != nil {
			return err
		}
	}
	return nil
}

// strictlyIncreasing says whether a's strings are in byte order, each
// once.
func strictlyIncreasing(a *array.String) bool {
	for i := 1; i < a.Len(); i++ {
		if a.Value(i-1) >= a.Value(i) {
			return false
		}
	}
	return true
}

// sortedStrings is a new array of a's strings in byte order (a has no
// nulls, no repeats).
func sortedStrings(a *array.String) *array.String {
	vals := make([]string, a.Len())
	for i := range vals {
		vals[i] = a.Value(i)
	}
	slices.Sort(vals)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewStringArray()
}

// scatter runs the scan that writes rows values of column, each at the
// row's position (the expression at), into one array.
func (a *Arrow) scatter(ctx context.Context, from, at, column string, want arrow.DataType, spec C.rg_scatter, rows int64) (arrow.Array, error) {
	job, err := newScatterJob(spec, rows)
	if err != nil {
		return nil, err
	}
	defer job.close()
	q := fmt.Sprintf("SELECT CAST(coalesce(sum(%s(%d, %s, %s)), 0) AS BIGINT) FROM %s", scatterFunction, job.token(), at, column, from)
	written, err := a.queryInt64(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// The function refused (a rowid past the count, another type),
		// or the statement could not use it: the column is read the
		// other way, which reports a real problem with the table itself.
		return nil, errors.Join(ErrNotScattered, err)
	}
	if written != rows {
		return nil, fmt.Errorf("duckarrow: %s changed while its column %s was read (%d rows counted, %d read)", from, column, rows, written)
	}
	return job.array(want)
}

// scatterJob is one column being written by the scatter function: its
// buffers (memory maps, which C may hold: not the Go heap), its C
// description and its slot.
type scatterJob struct {
	data, valid offheap.Region
	s           *C.rg_scatter
	slot        int
}

// newScatterJob makes room for rows values as spec describes them and
// takes a slot; close gives everything back.
func newScatterJob(spec C.rg_scatter, rows int64) (*scatterJob, error) {
	j := &scatterJob{slot: -1}
	values := rows
	if spec.strings != 0 {
		values = rows + 1 // offsets
	}
	if err := j.data.Extend(int(values) * int(spec.out_width)); err != nil {
		return nil, err
	}
	// Whole 64-bit words: the function writes the bitmap a word at a time.
	if err := j.valid.Extend(int((rows + 63) / 64 * 8)); err != nil {
		j.close()
		return nil, err
	}
	j.s = (*C.rg_scatter)(C.calloc(1, C.size_t(unsafe.Sizeof(C.rg_scatter{}))))
	*j.s = spec
	j.s.rows = C.int64_t(rows)
	if spec.strings != 0 {
		// DuckDB's chunks hold up to 2,048 rows, fewer at a row group's
		// end: room for chunks of 1,024 rows and 1,024 more.
		j.s.max_chunks = C.int64_t(rows/1024 + 1024)
		j.s.chunks = (*C.rg_chunk)(C.calloc(C.size_t(j.s.max_chunks), C.size_t(unsafe.Sizeof(C.rg_chunk{}))))
		if j.s.chunks == nil {
			j.close()
			return nil, fmt.Errorf("duckarrow: no memory for %d string chunks", j.s.max_chunks)
		}
	}
	if len(j.data.B) > 0 { // strings' offsets: one even for no rows
		j.s.data = (*C.char)(unsafe.Pointer(&j.data.B[0]))
	}
	if rows > 0 {
		j.s.valid = (*C.uint64_t)(unsafe.Pointer(&j.valid.B[0]))
	}
	slot, err := scatterSlots.take(j.s)
	if err != nil {
		j.close()
		return nil, err
	}
	j.slot = slot
	return j, nil
}

// token is what the statement passes the function to write this column.
func (j *scatterJob) token() int64 { return int64(j.s.token) }

// array hands the written buffers to an array of type want. For strings
// it first turns the lengths into offsets and gathers the chunks' bytes.
func (j *scatterJob) array(want arrow.DataType) (arrow.Array, error) {
	rows := int(j.s.rows)
	nulls := int(j.s.nulls)
	var chars offheap.Region
	if j.s.strings != 0 {
		total := int64(C.rg_scatter_strings_finish(j.s, nil))
		if total == -2 {
			return nil, ErrStringsTooLong
		}
		if total < 0 {
			return nil, errors.Join(ErrNotScattered, fmt.Errorf("duckarrow: the strings of %d rows did not come as whole chunks", rows))
		}
		if err := chars.Extend(int(total)); err != nil {
			return nil, err
		}
		if total > 0 {
			C.rg_scatter_strings_finish(j.s, (*C.char)(unsafe.Pointer(&chars.B[0])))
		}
	}
	var validBuf *memory.Buffer
	if nulls > 0 {
		j.valid.B = j.valid.B[:(rows+7)/8]
		validBuf = j.valid.Buffer()
		defer validBuf.Release()
	}
	dataBuf := j.data.Buffer()
	defer dataBuf.Release()
	bufs := []*memory.Buffer{validBuf, dataBuf}
	if j.s.strings != 0 {
		charBuf := chars.Buffer()
		defer charBuf.Release()
		bufs = append(bufs, charBuf)
	}
	d := array.NewData(want, rows, bufs, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// close gives back the slot, the C description and what array did not
// take.
func (j *scatterJob) close() {
	if j.slot >= 0 {
		scatterSlots.give(j.slot)
		j.slot = -1
	}
	if j.s != nil {
		if j.s.strings != 0 {
			C.rg_scatter_strings_free(j.s)
		}
		C.free(unsafe.Pointer(j.s))
		j.s = nil
	}
	j.data.Free()
	j.valid.Free()
}

// scatterSpecOf is how ScatterColumn copies a column asked for as an
// array of type t, and the type of the array it makes: fixed-width values
// in the array's own layout; decimals sign-extended from DuckDB's 16, 32
// or 64 bits into Arrow's 128, or, for a precision of at most 18, into 64
// (Decimal64: the device's layout, half the memory, no narrowing later);
// strings (utf8) as lengths and chunks.
func scatterSpecOf(t arrow.DataType) (C.rg_scatter, arrow.DataType, bool) {
	var s C.rg_scatter
	if f, ok := fixedOfArrow(t); ok {
		s.type_id, s.in_width, s.out_width = C.int32_t(f.duck), C.int32_t(f.width), C.int32_t(f.width)
		return s, t, true
	}
	switch d := t.(type) {
	case *arrow.StringType:
		// Each row's length, then the bytes a chunk at a time (rg_copy_strings).
		s.type_id, s.in_width, s.out_width, s.strings = C.RG_VARCHAR, 16, 4, 1
		return s, t, true
	case *arrow.Decimal128Type:
		id := decimalStorage(d.Precision)
		s.decimal, s.type_id, s.in_width, s.out_width = 1, C.int32_t(id), C.int32_t(decimalStorageWidth(id)), 16
		if d.Precision <= 18 {
			s.out_width = 8
			return s, &arrow.Decimal64Type{Precision: d.Precision, Scale: d.Scale}, true
		}
		return s, t, true
	}
	return s, nil, false
}

// registerScatter registers rigel_scatter_column(token BIGINT, rowid
// BIGINT, value ANY) in the database's system catalog, visible to all its
// connections. A second registration fails (the name is taken) and is not
// an error: the function is the same. One at a time, so that a load's
// columns, read side by side, do not race to register it and miss it.
func (a *Arrow) registerScatter() error {
	registering.Lock()
	defer registering.Unlock()
	h, err := connHandle(a.conn)
	if err != nil {
		return err
	}
	f := bindings.CreateScalarFunction()
	defer bindings.DestroyScalarFunction(&f)
	bindings.ScalarFunctionSetName(f, scatterFunction)
	bigint := bindings.CreateLogicalType(bindings.TypeBigInt)
	defer bindings.DestroyLogicalType(&bigint)
	anyType := bindings.CreateLogicalType(bindings.TypeAny)
	defer bindings.DestroyLogicalType(&anyType)
	bindings.ScalarFunctionAddParameter(f, bigint)
	bindings.ScalarFunctionAddParameter(f, bigint)
	bindings.ScalarFunctionAddParameter(f, anyType)
	bindings.ScalarFunctionSetReturnType(f, bigint)
	bindings.ScalarFunctionSetVolatile(f)
	// Null values must reach the function (it records them as null).
	bindings.ScalarFunctionSetSpecialHandling(f)
	bindings.ScalarFunctionSetFunction(f, C.rg_scatter_callback())
	bindings.RegisterScalarFunction(bindings.Connection{Ptr: h}, f)
	return nil
}

var registering sync.Mutex

// denseRows is the table's row count when its rowids are 0 to that count
// less one, else ErrNotScattered.
func (a *Arrow) denseRows(ctx context.Context, table string) (int64, error) {
	// A column of the table named rowid hides DuckDB's row ids: its values
	// may repeat, and two rows would then write one place.
	shadowed, err := a.queryInt64(ctx, "SELECT count(*) FROM (DESCRIBE SELECT * FROM "+table+") WHERE lower(column_name) = 'rowid'")
	if err != nil || shadowed > 0 {
		return 0, errors.Join(ErrNotScattered, err)
	}
	rows, err := a.conn.QueryContext(ctx, "SELECT count(*), coalesce(max(rowid) + 1, 0) FROM "+table, nil)
	if err != nil {
		return 0, errors.Join(ErrNotScattered, err)
	}
	defer rows.Close()
	v := make([]driver.Value, 2)
	if err := rows.Next(v); err != nil {
		return 0, err
	}
	n, ok1 := v[0].(int64)
	end, ok2 := v[1].(int64)
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("duckarrow: counting %s gave %T and %T", table, v[0], v[1])
	}
	if n != end {
		return 0, ErrNotScattered
	}
	return n, nil
}

// queryInt64 is the one BIGINT a query returns.
func (a *Arrow) queryInt64(ctx context.Context, query string) (int64, error) {
	rows, err := a.conn.QueryContext(ctx, query, nil)
	if err != nil {
		if rows != nil {
			err = errors.Join(err, rows.Close())
		}
		return 0, err
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if err := rows.Next(v); err != nil {
		if err == io.EOF {
			return 0, fmt.Errorf("duckarrow: %q returned no row", query)
		}
		return 0, err
	}
	n, ok := v[0].(int64)
	if !ok {
		return 0, fmt.Errorf("duckarrow: %q returned %T", query, v[0])
	}
	return n, nil
}

// scatterSlots hands out the slots of rg_scatter_slots, one a column being
// read.
var scatterSlots slotTable

type slotTable struct {
	mu   sync.Mutex
	used [C.RG_SCATTER_SLOTS]bool
}

// take gives s a free slot and its token (scatter.go's rg_scatter).
func (t *slotTable) take(s *C.rg_scatter) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, u := range t.used {
		if !u {
			t.used[i] = true
			s.token = C.int64_t(rand.Int64N(1<<52)*int64(len(t.used)) + int64(i))
			C.rg_scatter_set(C.int(i), s)
			return i, nil
		}
	}
	return 0, fmt.Errorf("duckarrow: more than %d columns are being read at once", len(t.used))
}

func (t *slotTable) give(i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	C.rg_scatter_set(C.int(i), nil)
	t.used[i] = false
}

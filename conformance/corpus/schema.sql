-- The corpus database: small tables that hold every type the producer maps,
-- with NULLs in every nullable column, duplicates, empty strings, negative
-- numbers and the edge values of each integer width (HUGEINT: a 39-digit
-- value, not its maximum, so that sums over the column cannot overflow). Loaded into an
-- in-memory DuckDB by duckdb-bridge/corpus_test.go before the queries run.

-- w: one column per type (but the unsigned ones, in u, and INTERVAL, in sp). id is the only NOT NULL column (a unique key for
-- deterministic ORDER BY ... LIMIT); k and g are small grouping keys.
CREATE TABLE w (
    id   INTEGER NOT NULL,
    k    INTEGER,
    g    VARCHAR,
    ti   TINYINT,
    si   SMALLINT,
    i    INTEGER,
    bi   BIGINT,
    hi   HUGEINT,
    d1   DECIMAL(4,1),
    d2   DECIMAL(9,2),
    d4   DECIMAL(18,4),
    d10  DECIMAL(38,10),
    f    DOUBLE,
    r    REAL,
    s    VARCHAR,
    dt   DATE,
    ts   TIMESTAMP,
    b    BOOLEAN
);

INSERT INTO w VALUES
 (1, 1, 'a', 1, 10, 100, 1000, 10000, 1.5, 10.25, 100.1234, 1000.0123456789, 1.5, 1.25, 'apple', DATE '2024-01-15', TIMESTAMP '2024-01-15 10:30:00', true),
 (2, 1, 'a', -1, -10, -100, -1000, -10000, -1.5, -10.25, -100.1234, -1000.0123456789, -1.5, -1.25, 'banana', DATE '2024-02-29', TIMESTAMP '2024-02-29 23:59:59', false),
 (3, 2, 'b', 127, 32767, 2147483647, 9223372036854775807, 123456789012345678901234567890123456789, 999.9, 9999999.99, 99999999999999.9999, 1234567890123456789012345678.0123456789, 1e300, 3.4e38, 'cherry', DATE '1970-01-01', TIMESTAMP '1970-01-01 00:00:00', true),
 (4, 2, 'b', -128, -32768, -2147483648, -9223372036854775808, -123456789012345678901234567890123456789, -999.9, -9999999.99, -99999999999999.9999, -1234567890123456789012345678.0123456789, -1e300, -3.4e38, '', DATE '1900-03-01', TIMESTAMP '1900-03-01 12:00:00', false),
 (5, 3, 'c', 0, 0, 0, 0, 0, 0.0, 0.00, 0.0000, 0.0, 0.0, 0.0, 'Apple', DATE '2000-12-31', TIMESTAMP '2000-12-31 23:59:59.999999', true),
 (6, 3, 'c', 5, 5, 5, 5, 5, 5.5, 5.55, 5.5555, 5.5555555555, 5.5, 5.5, 'apple', DATE '2024-01-15', TIMESTAMP '2024-01-15 10:30:00', true),
 (7, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (8, 4, 'd', NULL, 7, NULL, 7, NULL, 7.0, NULL, 7.0000, NULL, 7.0, NULL, 'date', NULL, TIMESTAMP '2024-06-01 08:00:00', NULL),
 (9, 4, NULL, 9, NULL, 9, NULL, 9, NULL, 9.99, NULL, 9.9999999999, NULL, 9.5, NULL, DATE '2024-06-01', NULL, false),
 (10, NULL, 'e', 2, 20, 200, 2000, 20000, 2.0, 20.00, 200.0000, 2000.0, 2.0, 2.0, 'elder', DATE '2023-12-31', TIMESTAMP '2023-12-31 00:00:01', NULL),
 (11, 5, 'e', 2, 20, 200, 2000, 20000, 2.0, 20.00, 200.0000, 2000.0, 2.0, 2.0, 'elder', DATE '2023-12-31', TIMESTAMP '2023-12-31 00:00:01', true),
 (12, 5, 'f', -7, -70, -700, -7000, -70000, -7.7, -77.77, -777.7777, -7777.7777777777, -7.75, -7.75, 'fig  ', DATE '1999-07-04', TIMESTAMP '1999-07-04 04:07:00', false);

-- u: the unsigned integer widths (ids 1..12 as in w; 13 and 14 only here).
-- Substrait has no unsigned types: the producer widens each to a signed type
-- that holds all its values (duckdb-bridge/producer_unsigned.go). Row 3 holds
-- each width's maximum, row 13 the first value above the signed maximum of
-- the same width (128, 32768, 2^31, 2^63), row 14 another UBIGINT above 2^63.
-- They live apart from w so that a scan of w never depends on them.
CREATE TABLE u (
    id   INTEGER NOT NULL,
    uti  UTINYINT,
    usi  USMALLINT,
    ui   UINTEGER,
    ubi  UBIGINT
);

INSERT INTO u VALUES
 (1, 1, 10, 100, 1000),
 (2, 2, 20, 200, 2000),
 (3, 255, 65535, 4294967295, 18446744073709551615),
 (4, 0, 0, 0, 0),
 (5, 0, 0, 0, 0),
 (6, 5, 5, 5, 5),
 (7, NULL, NULL, NULL, NULL),
 (8, 7, NULL, 7, NULL),
 (9, NULL, 9, NULL, 9),
 (10, 2, 20, 200, 2000),
 (11, 2, 20, 200, 2000),
 (12, 70, 700, 7000, 70000),
 (13, 128, 32768, 2147483648, 9223372036854775808),
 (14, NULL, 40000, NULL, 12345678901234567890);

-- sp: INTERVAL values (same ids as w). Kept apart from w because rigel's
-- consumer cannot translate a scan whose schema holds an INTERVAL column yet
-- (see engine-failures.txt): in w it would take every query down with it.
CREATE TABLE sp (
    id   INTEGER NOT NULL,
    iv   INTERVAL
);

INSERT INTO sp VALUES
 (1, INTERVAL 1 DAY),
 (2, INTERVAL 2 HOUR),
 (3, INTERVAL 3 MONTH),
 (4, INTERVAL '-1 day'),
 (5, INTERVAL '1 year 2 months 3 days 04:05:06'),
 (6, INTERVAL 1 DAY),
 (7, NULL),
 (8, NULL),
 (9, INTERVAL 30 MINUTE),
 (10, INTERVAL 90 SECOND),
 (11, INTERVAL 90 SECOND),
 (12, INTERVAL '-2 hours');

-- dim: a dimension for joins. Its key k has NULLs, duplicates (k = 2 twice)
-- and keys with no match in w (k = 9), and w has keys with no match here
-- (k = 3, 4).
CREATE TABLE dim (
    k     INTEGER,
    name  VARCHAR,
    score DECIMAL(9,2),
    since DATE
);

INSERT INTO dim VALUES
 (1,    'one',     1.50,  DATE '2024-01-01'),
 (2,    'two',     -2.25, DATE '2023-06-30'),
 (2,    'two-bis', NULL,  DATE '2024-02-29'),
 (5,    'five',    5.00,  NULL),
 (9,    'nine',    9.99,  DATE '2020-01-01'),
 (NULL, 'nokey',   0.00,  DATE '2000-01-01'),
 (NULL, NULL,      NULL,  NULL);

-- ev: events for window functions and time arithmetic: per-group
-- sequences with ties and NULLs in the ordering key.
CREATE TABLE ev (
    grp  VARCHAR,
    seq  INTEGER,
    amt  DECIMAL(12,2),
    t_at TIMESTAMP,
    flag BOOLEAN
);

INSERT INTO ev VALUES
 ('x', 1,    10.00,  TIMESTAMP '2024-01-01 00:00:00', true),
 ('x', 2,    20.50,  TIMESTAMP '2024-01-02 06:00:00', false),
 ('x', 2,    -5.25,  TIMESTAMP '2024-01-02 06:00:00', NULL),
 ('x', 3,    NULL,   TIMESTAMP '2024-01-05 12:30:00', true),
 ('x', NULL, 7.00,   NULL,                            false),
 ('y', 1,    100.00, TIMESTAMP '2023-12-31 23:00:00', true),
 ('y', 5,    0.00,   TIMESTAMP '2024-02-29 00:00:00', true),
 (NULL, 1,   1.00,   TIMESTAMP '2024-03-01 00:00:00', NULL),
 (NULL, 2,   NULL,   NULL,                            NULL);

-- nothing: an empty table with w's key and a value column.
CREATE TABLE nothing (k INTEGER, v VARCHAR);

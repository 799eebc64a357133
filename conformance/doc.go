// Package conformance checks rigel end to end against DuckDB as the oracle:
// TPC-H queries (data from tpchgen-cli, identical to dbgen) run through the
// whole engine on each device and must equal DuckDB's answers exactly
// (floats to a relative tolerance).
package conformance

//go:build !duckdb_arrow

package duckguard

// rigel reads DuckDB's answers and tables as Arrow record batches through
// duckdb-go's Arrow interface (duckdb.NewArrowFromConn), which duckdb-go
// compiles only with its duckdb_arrow build tag; without it there is no
// way to reach DuckDB's Arrow export from Go. The undefined name below
// makes a build without the tag stop here, with the way out in its name:
//
//	go build -tags duckdb_arrow ...   (likewise go test, go vet, go run)
var _ = rigel_needs_the_build_tag_duckdb_arrow__build_with__go_build_tags_duckdb_arrow

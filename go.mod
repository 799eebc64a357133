module github.com/rigel-db/rigel

go 1.26

require (
	github.com/apache/arrow-go/v18 v18.8.0
	github.com/chzyer/readline v1.5.1
	github.com/creack/pty v1.1.24
	github.com/dlclark/regexp2 v1.12.0
	github.com/duckdb/duckdb-go/v2 v2.10503.1
	github.com/mattn/go-runewidth v0.0.20
	github.com/substrait-io/substrait v0.87.0
	github.com/substrait-io/substrait-go/v8 v8.1.1
	github.com/substrait-io/substrait-protobuf/go v0.85.0
	golang.org/x/text v0.41.0
	google.golang.org/grpc v1.83.2
	google.golang.org/protobuf v1.36.12
)

require (
	cloud.google.com/go v0.121.0 // indirect
	github.com/antlr4-go/antlr/v4 v4.13.1 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/cockroachdb/apd/v3 v3.2.1 // indirect
	github.com/creasty/defaults v1.8.0 // indirect
	github.com/duckdb/duckdb-go-bindings v0.10503.0 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/darwin-amd64 v0.10503.0 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/darwin-arm64 v0.10503.0 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/linux-amd64 v0.10503.0 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/linux-arm64 v0.10503.0 // indirect
	github.com/duckdb/duckdb-go-bindings/lib/windows-amd64 v0.10503.0 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/goccy/go-json v0.10.6 // indirect
	github.com/goccy/go-yaml v1.17.1 // indirect
	github.com/google/flatbuffers v25.12.19+incompatible // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/klauspost/cpuid/v2 v2.4.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.29 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/exp v0.0.0-20260112195511-716be5621a96 // indirect
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260526163538-3dc84a4a5aaa // indirect
)

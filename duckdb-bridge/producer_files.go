package duckdbbridge

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// parquetScans are DuckDB's names of its Parquet reader.
var parquetScans = map[string]bool{"read_parquet": true, "parquet_scan": true}

// parquetScan describes a read_parquet scan as a ReadRel over LocalFiles:
// one item per file (or glob) DuckDB lists, in Parquet format. The base
// schema is the files' columns as DuckDB read them, all nullable (Parquet
// columns may hold NULLs whatever the writer declared). Reader options that
// change the rows or add columns (hive partitioning, file name or row number
// columns, union by name) are refused. CSV scans are not produced: DuckDB
// 1.5.3's json_serialize_plan cannot serialize read_csv.
func parquetScan(n *duckNode) (*tableInfo, *pb.ReadRel_LocalFiles, error) {
	fd := n.FunctionData
	if fd == nil || len(fd.Files) == 0 {
		return nil, nil, fmt.Errorf("duckdb plan: %s without files", n.Name)
	}
	if len(fd.Names) != len(fd.Types) || len(fd.Names) == 0 || len(fd.Names) != len(n.Names) {
		return nil, nil, fmt.Errorf("duckdb plan: %s lists %d names, %d types and %d output names", n.Name, len(fd.Names), len(fd.Types), len(n.Names))
	}
	if fd.ParquetOptions != nil {
		var o struct {
			FileRowNumber bool `json:"file_row_number"`
			FileOptions   struct {
				Filename         bool `json:"filename"`
				HivePartitioning bool `json:"hive_partitioning"`
				UnionByName      bool `json:"union_by_name"`
			} `json:"file_options"`
		}
		if err := json.Unmarshal(*fd.ParquetOptions, &o); err != nil {
			return nil, nil, fmt.Errorf("duckdb plan: %s options: %v", n.Name, err)
		}
		switch {
		case o.FileRowNumber:
			return nil, nil, unsupported("read_parquet with file_row_number")
		case o.FileOptions.Filename:
			return nil, nil, unsupported("read_parquet with filename")
		case o.FileOptions.HivePartitioning:
			return nil, nil, unsupported("read_parquet with hive_partitioning")
		case o.FileOptions.UnionByName:
			return nil, nil, unsupported("read_parquet with union_by_name")
		}
	}
	t := &tableInfo{name: "read_parquet(" + strings.Join(fd.Files, ", ") + ")", names: fd.Names}
	for i, ty := range fd.Types {
		if !sameType(ty, n.ReturnedTypes[i]) {
			return nil, nil, fmt.Errorf("duckdb plan: %s column %s is %s in the files and %s in the scan", n.Name, fd.Names[i], ty, n.ReturnedTypes[i])
		}
		t.cols = append(t.cols, colType{duck: ty, nullable: true})
	}
	lf := &pb.ReadRel_LocalFiles{}
	for _, f := range fd.Files {
		item := &pb.ReadRel_LocalFiles_FileOrFiles{
			FileFormat: &pb.ReadRel_LocalFiles_FileOrFiles_Parquet{Parquet: &pb.ReadRel_LocalFiles_FileOrFiles_ParquetReadOptions{}},
		}
		u, err := fileURI(f)
		if err != nil {
			return nil, nil, err
		}
		if strings.ContainsAny(f, "*?[") {
			item.PathType = &pb.ReadRel_LocalFiles_FileOrFiles_UriPathGlob{UriPathGlob: u}
		} else {
			item.PathType = &pb.ReadRel_LocalFiles_FileOrFiles_UriFile{UriFile: u}
		}
		lf.Items = append(lf.Items, item)
	}
	return t, lf, nil
}

// fileURI turns a path DuckDB read into a URI: URIs (s3://...) stay as they
// are; local paths become absolute file:// URIs (relative to this process's
// working directory, as DuckDB resolved them).
func fileURI(path string) (string, error) {
	if strings.Contains(path, "://") {
		return path, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("duckdb plan: file %s: %v", path, err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

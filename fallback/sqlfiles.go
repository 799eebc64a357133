package fallback

import (
	"fmt"
	"strings"

	"github.com/rigel-db/rigel/internal/ipcfiles"
	"github.com/rigel-db/rigel/internal/sqltext"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/plan"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// localFiles writes a ReadRel of LocalFiles as DuckDB's file readers:
// Parquet through read_parquet (columns by name, as a Parquet file names
// them), delimiter-separated text through read_csv with the plan's
// delimiter, quote, escape, header lines and null value (columns by
// position, typed by the base schema). Other formats, byte ranges of a file
// and mixed formats are refused by name: there is no exact DuckDB reading
// of them. Arrow IPC files are read by rigel and given to DuckDB as a
// registered table (arrowipc.go).
func (w *Writer) localFiles(x *plan.LocalFileReadRel, outer *scope) (string, error) {
	items := x.ToProto().GetRead().GetLocalFiles().GetItems()
	if len(items) == 0 {
		return "", fmt.Errorf("fallback SQL: a LocalFiles read without files")
	}
	base := x.BaseSchema()
	if len(base.Names) != len(base.Struct.Types) {
		return "", fmt.Errorf("fallback SQL: LocalFiles read with a nested base schema")
	}
	var paths []string
	format := ""
	var text *proto.ReadRel_LocalFiles_FileOrFiles_DelimiterSeparatedTextReadOptions
	for i, it := range items {
		if it.Start != 0 || it.Length != 0 {
			return "", fmt.Errorf("fallback SQL: LocalFiles item %d reads a byte range of its file (start %d, length %d), which DuckDB's readers cannot", i, it.Start, it.Length)
		}
		p, err := localPath(it)
		if err != nil {
			return "", fmt.Errorf("fallback SQL: LocalFiles item %d: %w", i, err)
		}
		paths = append(paths, sqltext.String(p))
		f := ""
		switch ff := it.FileFormat.(type) {
		case *proto.ReadRel_LocalFiles_FileOrFiles_Parquet:
			f = "parquet"
		case *proto.ReadRel_LocalFiles_FileOrFiles_Extension:
			if ff.Extension.GetTypeUrl() != substrait.TextFileFormatURL {
				return "", fmt.Errorf("fallback SQL: LocalFiles item %d: file format extension %s is unknown to rigel", i, ff.Extension.GetTypeUrl())
			}
			t := &proto.ReadRel_LocalFiles_FileOrFiles_DelimiterSeparatedTextReadOptions{}
			if err := ff.Extension.UnmarshalTo(t); err != nil {
				return "", fmt.Errorf("fallback SQL: LocalFiles item %d: text options: %v", i, err)
			}
			f, text = "text", t
		case *proto.ReadRel_LocalFiles_FileOrFiles_Arrow:
			f = "arrow" // read by rigel (arrowipc.go): DuckDB has no built-in Arrow IPC reader
		case *proto.ReadRel_LocalFiles_FileOrFiles_Orc:
			return "", fmt.Errorf("fallback SQL: LocalFiles item %d: ORC files are not read: DuckDB has no ORC reader", i)
		case *proto.ReadRel_LocalFiles_FileOrFiles_Dwrf:
			return "", fmt.Errorf("fallback SQL: LocalFiles item %d: DWRF files are not read: DuckDB has no DWRF reader", i)
		default:
			return "", fmt.Errorf("fallback SQL: LocalFiles item %d names no file format", i)
		}
		if format != "" && f != format {
			return "", fmt.Errorf("fallback SQL: LocalFiles items of different formats (%s, %s) in one read", format, f)
		}
		format = f
	}
	if format == "arrow" {
		return w.arrowFiles(x, outer)
	}
	list := "[" + strings.Join(paths, ", ") + "]"
	a := w.alias()
	sc := &scope{cols: make([]string, len(base.Names)), outer: outer}
	var src string
	switch format {
	case "parquet":
		for i, n := range base.Names {
			t, err := sqlType(base.Struct.Types[i])
			if err != nil {
				return "", fmt.Errorf("column %s: %w", n, err)
			}
			sc.cols[i] = "CAST(" + a + "." + sqltext.Ident(n) + " AS " + t + ")"
		}
		src = "read_parquet(" + list + ") AS " + a
	case "text":
		// Every column is read as text and cast, so that the values are
		// parsed by the plan's types, not by DuckDB's guesses.
		cols := make([]string, len(base.Names))
		names := make([]string, len(base.Names))
		for i, n := range base.Names {
			t, err := sqlType(base.Struct.Types[i])
			if err != nil {
				return "", fmt.Errorf("column %s: %w", n, err)
			}
			cols[i] = fmt.Sprintf("'c%d': 'VARCHAR'", i)
			names[i] = fmt.Sprintf("'c%d'", i)
			sc.cols[i] = fmt.Sprintf("CAST(%s.c%d AS %s)", a, i, t)
		}
		opts := []string{"columns = {" + strings.Join(cols, ", ") + "}", "auto_detect = false", "header = false",
			fmt.Sprintf("skip = %d", text.HeaderLinesToSkip), "delim = " + sqltext.String(text.FieldDelimiter)}
		if text.Quote != "" {
			opts = append(opts, "quote = "+sqltext.String(text.Quote))
		}
		if text.Escape != "" {
			opts = append(opts, "escape = "+sqltext.String(text.Escape))
		}
		if text.MaxLineSize > 0 {
			opts = append(opts, fmt.Sprintf("max_line_size = %d", text.MaxLineSize))
		}
		if text.ValueTreatedAsNull != nil {
			opts = append(opts, "nullstr = "+sqltext.String(*text.ValueTreatedAsNull))
		} else {
			// Without value_treated_as_null no value is null: an empty
			// field is the empty string. (DuckDB 1.5.3 refuses an empty
			// nullstr list; force_not_null keeps every column from
			// matching its default null string, the empty field.)
			opts = append(opts, "force_not_null = ["+strings.Join(names, ", ")+"]")
		}
		src = "read_csv(" + list + ", " + strings.Join(opts, ", ") + ") AS " + a
	}
	return w.readBody(x, sc, src)
}

// localPath is the DuckDB path (or glob) of a LocalFiles item: the item's
// local path as ipcfiles resolves it (file:// URIs of this host become
// paths), a folder all the files in it.
func localPath(it *proto.ReadRel_LocalFiles_FileOrFiles) (string, error) {
	item, err := ipcfiles.ItemOf(it)
	if err != nil {
		return "", err
	}
	if item.Kind == ipcfiles.Folder {
		return strings.TrimSuffix(item.Path, "/") + "/*", nil
	}
	return item.Path, nil
}

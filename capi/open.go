package main

/*
#define RIGEL_BUILDING_LIBRARY
#include "rigel.h"
*/
import "C"

import (
	"context"
	"fmt"
	"os"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
)

// catalogSpec reads rigel_open's catalog argument: "" is an empty
// in-memory catalog, a folder is a Parquet folder, a file is a DuckDB file.
// The catalog is always writable (attached files stay read-only): hosts
// register their own tables next to the catalog's.
func catalogSpec(path string) (duckdbbridge.CatalogSpec, error) {
	spec := duckdbbridge.CatalogSpec{Writable: true}
	if path == "" {
		return spec, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return spec, fmt.Errorf("rigel_open: catalog %q: %w", path, err)
	}
	if st.IsDir() {
		spec.Parquet = []string{path}
	} else {
		spec.DB = path
	}
	return spec, nil
}

// open opens an engine; on error nothing is left open.
func open(catalog, mode string) (*engine, error) {
	spec, err := catalogSpec(catalog)
	if err != nil {
		return nil, err
	}
	if mode == "" {
		mode = "auto"
	}
	dev, reason, err := duckdbbridge.OpenDevice(mode)
	if err != nil {
		return nil, fmt.Errorf("rigel_open: device: %w", err)
	}
	db, id, err := duckdbbridge.OpenCatalog(context.Background(), spec)
	if err != nil {
		if dev != nil {
			dev.Close()
		}
		return nil, fmt.Errorf("rigel_open: %w", err)
	}
	return &engine{eng: duckdbbridge.NewEngine(db, id, dev, reason), db: db, dev: dev}, nil
}

//export rigel_open
func rigel_open(catalog, device *C.char) (h C.uintptr_t) {
	var rc C.int
	defer func() {
		if rc != 0 {
			h = 0
		}
	}()
	defer guard(nil, &rc)
	var path, mode string
	if catalog != nil {
		path = C.GoString(catalog)
	}
	if device != nil {
		mode = C.GoString(device)
	}
	e, err := open(path, mode)
	if err != nil {
		openErr.set(err.Error())
		return 0
	}
	openErr.set("")
	return register(e)
}

//export rigel_close
func rigel_close(h C.uintptr_t) {
	defer guard(nil, nil)
	if e := unregister(h); e != nil {
		e.unref() // the handle's reference; calls and streams keep theirs
	}
}

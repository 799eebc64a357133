# rigel: build, test, demo. `make setup` once on a fresh machine, then
# `make test` (CI) or `make demo`.
SHELL := /bin/bash
GO ?= go
GOFLAGS_RIGEL := -tags duckdb_arrow
TOOLS := $(CURDIR)/.tools
NVRTC_WHEEL_VERSION := 13.0.88
TPCHGEN_VERSION := 4.0.0
TPCHGEN := $(TOOLS)/bin/tpchgen-cli
NVRTC_LIB := $(TOOLS)/py/nvidia/cu13/lib/libnvrtc.so.13
export RIGEL_TPCHGEN := $(TPCHGEN)
export RIGEL_NVRTC := $(NVRTC_LIB)
DEMO_DB := data/tpch-sf1.duckdb

.PHONY: setup test build demo gpu-bundle clean

## setup: Go modules, the NVRTC wheel (compiles CUDA on a CPU for CI checks), tpchgen-cli.
setup: $(TPCHGEN) $(NVRTC_LIB)
	@$(GO) mod download
	@test -d $(TOOLS)/py/substrait_validator || python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --target $(TOOLS)/py substrait-validator==0.1.4
	@echo "setup: done (tools in .tools/)"

$(NVRTC_LIB):
	@echo "setup: installing nvidia-cuda-nvrtc==$(NVRTC_WHEEL_VERSION) into .tools/py"
	@python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target $(TOOLS)/py nvidia-cuda-nvrtc==$(NVRTC_WHEEL_VERSION)
	@test -f $(NVRTC_LIB) || { echo "setup: $(NVRTC_LIB) missing after install"; exit 1; }

$(TPCHGEN):
	@echo "setup: installing tpchgen-cli $(TPCHGEN_VERSION) into .tools/bin (cargo, a few minutes)"
	@cargo install -q tpchgen-cli --version $(TPCHGEN_VERSION) --locked --root $(TOOLS)

## test: every test that needs no GPU; GPU tests skip with a one-line notice.
test:
	$(GO) vet $(GOFLAGS_RIGEL) ./...
	$(GO) test $(GOFLAGS_RIGEL) -count=1 ./...

build: bin/rigel

bin/rigel: FORCE
	@mkdir -p bin
	$(GO) build $(GOFLAGS_RIGEL) -o bin/rigel ./cmd/rigel
FORCE:

## demo: TPC-H SF1 into a DuckDB file, then Q1 and Q6 through rigel next to DuckDB.
demo: bin/rigel $(TPCHGEN)
	@DEMO_DB=$(DEMO_DB) scripts/demo.sh

## gpu-bundle: test binaries, the CLI and tpchgen-cli for a GPU machine without Go.
gpu-bundle: $(TPCHGEN)
	@rm -rf bundle && mkdir -p bundle
	$(GO) test $(GOFLAGS_RIGEL) -ldflags="-s -w" -c -o bundle/cuda.test ./gpu/cuda
	$(GO) test $(GOFLAGS_RIGEL) -ldflags="-s -w" -c -o bundle/conformance.test ./conformance
	$(GO) build $(GOFLAGS_RIGEL) -ldflags="-s -w" -o bundle/rigel ./cmd/rigel
	cp $(TPCHGEN) bundle/tpchgen-cli
	cp scripts/gpu-run.sh bundle/run.sh
	xz -T2 -6 bundle/rigel bundle/conformance.test bundle/cuda.test bundle/tpchgen-cli
	@du -sh bundle

clean:
	rm -rf bin bundle

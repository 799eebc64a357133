# rigel: build, test, demo. `make setup` once on a fresh machine, then
# `make test` (CI) or `make demo`.
SHELL := /bin/bash
GO ?= go
TOOLS := $(CURDIR)/.tools
NVRTC_WHEEL_VERSION := 13.0.88
TPCHGEN_VERSION := 4.0.0
TPCHGEN := $(TOOLS)/bin/tpchgen-cli
NVRTC_LIB := $(TOOLS)/py/nvidia/cu13/lib/libnvrtc.so.13
# Clients nobody here wrote, for the Flight SQL server's tests.
PYARROW_VERSION := 26.0.1
TPCDS_DUCKDB_VERSION := 1.4.4
TPCDS_EXT_VERSION := 1.4.4.20260205
# TPC-DS SF1 and DuckDB's 99 query texts, for conformance's TestTPCDSHost:
# written by DuckDB 1.4.4's tpcds extension (scripts/tpcds-gen.py).
TPCDS := $(TOOLS)/tpcds
TPCDS_DB := $(TPCDS)/tpcds-sf1.duckdb
ADBC_VERSION := 1.13.0
PY_CLIENTS := $(TOOLS)/py/adbc_driver_flightsql
JDBC_VERSION := 18.3.0
JDBC_JAR := $(TOOLS)/jars/flight-sql-jdbc-driver-$(JDBC_VERSION).jar
# Substrait producers of other engines, for conformance/producers (the Go
# test pins the same versions). ibis-substrait 4.0.1 needs the substrait
# package from before 0.22 (it reads substrait.__substrait_version__).
PRODUCERS := $(TOOLS)/producers
DATAFUSION_VERSION := 55.0.0
IBIS_SUBSTRAIT_VERSION := 4.0.1
IBIS_PINS := ibis-framework==9.5.0 substrait==0.21.0
ISTHMUS_VERSION := 0.89.1
DATAFUSION := $(PRODUCERS)/datafusion/datafusion-$(DATAFUSION_VERSION).dist-info
IBIS := $(PRODUCERS)/ibis/ibis_substrait-$(IBIS_SUBSTRAIT_VERSION).dist-info
ISTHMUS := $(PRODUCERS)/isthmus/classes/IsthmusTPCH.class
export RIGEL_TPCHGEN := $(TPCHGEN)
export RIGEL_NVRTC := $(NVRTC_LIB)
export RIGEL_TPCDS_DIR := $(TPCDS)
DEMO_DB := data/tpch-sf1.duckdb

.PHONY: setup test build capi demo prebuilt gpu-bundle gpu-bundle-corpus gpu-bundle-tpcds bundle-common clean plans

## setup: Go modules, the NVRTC wheel (compiles CUDA on a CPU for CI checks), tpchgen-cli,
## the Flight SQL clients the server is tested with (pyarrow + ADBC, the JDBC driver), the
## other engines' Substrait producers, and TPC-DS SF1 with its 99 queries.
setup: $(TPCHGEN) $(NVRTC_LIB) $(PY_CLIENTS) $(JDBC_JAR) $(DATAFUSION) $(IBIS) $(ISTHMUS) $(TPCDS_DB)
	@$(GO) mod download
	@test -d $(TOOLS)/py/substrait_validator || python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --target $(TOOLS)/py substrait-validator==0.1.4
	@echo "setup: done (tools in .tools/)"

$(NVRTC_LIB):
	@echo "setup: installing nvidia-cuda-nvrtc==$(NVRTC_WHEEL_VERSION) into .tools/py"
	@python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target $(TOOLS)/py nvidia-cuda-nvrtc==$(NVRTC_WHEEL_VERSION)
	@test -f $(NVRTC_LIB) || { echo "setup: $(NVRTC_LIB) missing after install"; exit 1; }

$(TPCDS_DB): scripts/tpcds-gen.py
	@echo "setup: writing TPC-DS SF1 and its 99 queries into .tools/tpcds (duckdb==$(TPCDS_DUCKDB_VERSION) and its tpcds extension)"
	@rm -rf $(TPCDS) && mkdir -p $(TPCDS)
	@python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --target $(TPCDS)/py duckdb==$(TPCDS_DUCKDB_VERSION) duckdb-ext-tpcds==$(TPCDS_EXT_VERSION)
	@PYTHONPATH=$(TPCDS)/py python3 scripts/tpcds-gen.py 1 $(TPCDS_DB) $(TPCDS)/queries

$(PY_CLIENTS):
	@echo "setup: installing pyarrow==$(PYARROW_VERSION) and adbc-driver-flightsql==$(ADBC_VERSION) into .tools/py"
	@python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --target $(TOOLS)/py pyarrow==$(PYARROW_VERSION) adbc-driver-flightsql==$(ADBC_VERSION) adbc-driver-manager==$(ADBC_VERSION)

$(JDBC_JAR):
	@echo "setup: fetching org.apache.arrow:flight-sql-jdbc-driver:$(JDBC_VERSION) from Maven Central into .tools/jars"
	@mvn -q dependency:copy -Dartifact=org.apache.arrow:flight-sql-jdbc-driver:$(JDBC_VERSION) -DoutputDirectory=$(TOOLS)/jars
	@test -f $(JDBC_JAR) || { echo "setup: $(JDBC_JAR) missing after mvn"; exit 1; }

# DataFusion without its dependencies: pyarrow and typing-extensions come
# from .tools/py ($(PY_CLIENTS)), which saves 170 MB of a second pyarrow.
$(DATAFUSION): $(PY_CLIENTS)
	@echo "setup: installing datafusion==$(DATAFUSION_VERSION) into .tools/producers/datafusion"
	@python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target $(PRODUCERS)/datafusion datafusion==$(DATAFUSION_VERSION) cloudpickle==3.1.2

$(IBIS):
	@echo "setup: installing ibis-substrait==$(IBIS_SUBSTRAIT_VERSION) into .tools/producers/ibis"
	@python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --target $(PRODUCERS)/ibis ibis-substrait==$(IBIS_SUBSTRAIT_VERSION) $(IBIS_PINS)

$(ISTHMUS): conformance/producers/isthmus/pom.xml conformance/producers/isthmus/IsthmusTPCH.java
	@echo "setup: fetching io.substrait:isthmus:$(ISTHMUS_VERSION) from Maven Central into .tools/producers/isthmus"
	@rm -rf $(PRODUCERS)/isthmus && mkdir -p $(PRODUCERS)/isthmus/classes
	@mvn -q -f conformance/producers/isthmus/pom.xml dependency:copy-dependencies -Disthmus.version=$(ISTHMUS_VERSION) -DoutputDirectory=$(PRODUCERS)/isthmus/lib
	@javac -nowarn -cp '$(PRODUCERS)/isthmus/lib/*' -d $(PRODUCERS)/isthmus/classes conformance/producers/isthmus/IsthmusTPCH.java

$(TPCHGEN):
	@echo "setup: installing tpchgen-cli $(TPCHGEN_VERSION) into .tools/bin (cargo, a few minutes)"
	@cargo install -q tpchgen-cli --version $(TPCHGEN_VERSION) --locked --root $(TOOLS)

## test: every test that needs no GPU; GPU tests skip with a one-line notice.
test:
	$(GO) vet ./...
	$(GO) build -o /dev/null ./examples/...
	$(GO) test -count=1 ./...
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeLoadTranslate$$' -fuzztime 30s ./translate/
	$(GO) test -run '^$$' -fuzz '^FuzzMutatedPlanTranslate$$' -fuzztime 30s ./translate/
	$(GO) test -run '^$$' -fuzz '^FuzzMutatedPlanSQL$$' -fuzztime 30s ./fallback/

## plans: run the Substrait producers (make setup) on the TPC-H queries and
## replace the committed copies under conformance/plans/<producer>-<version>-tpch.
plans: $(DATAFUSION) $(IBIS) $(ISTHMUS)
	RIGEL_WRITE_PLANS=1 $(GO) test -count=1 -run 'TestProducers$$' ./conformance/producers

build: bin/rigel

## capi: the C ABI as a shared library (header: capi/rigel.h).
capi: bin/librigel.so

bin/librigel.so: FORCE
	@mkdir -p bin
	$(GO) build -buildmode=c-shared -o bin/librigel.so ./capi
	@rm -f bin/librigel.h  # cgo's own header; capi/rigel.h is the documented one

bin/rigel: FORCE
	@mkdir -p bin
	$(GO) build -o bin/rigel ./cmd/rigel
FORCE:

## demo: TPC-H SF1 into a DuckDB file, then Q1 and Q6 through rigel next to DuckDB.
demo: bin/rigel $(TPCHGEN)
	@DEMO_DB=$(DEMO_DB) scripts/demo.sh

## prebuilt: compile the hand-written kernels' built-in CUBINs (gpu/cuda/prebuilt.go) after a
## change to gpu/cuda/kernels/, then check them.
prebuilt: $(NVRTC_LIB)
	RIGEL_WRITE_PREBUILT=1 RIGEL_NVRTC=$(NVRTC_LIB) $(GO) test -count=1 -run TestPrebuiltModulesAreCurrent ./gpu/cuda
	$(GO) test -count=1 -run TestPrebuiltModulesAreCurrent ./gpu/cuda

## gpu-bundle: test binaries, the CLI and tpchgen-cli for a GPU machine without Go.
## gpu-bundle-corpus: the same folder with the producer corpus's test binary
## instead of the device and TPC-H tests (run.sh corpus bench): both do not
## fit one device call's 64 MiB.
gpu-bundle: $(TPCHGEN)
	@rm -rf bundle && mkdir -p bundle
	$(GO) test -ldflags="-s -w" -c -o bundle/cuda.test ./gpu/cuda
	$(GO) test -ldflags="-s -w" -c -o bundle/conformance.test ./conformance
	$(MAKE) bundle-common

gpu-bundle-corpus: $(TPCHGEN)
	@rm -rf bundle && mkdir -p bundle
	$(GO) test -ldflags="-s -w" -c -o bundle/duckdb-bridge.test ./duckdb-bridge
	$(MAKE) bundle-common

## gpu-bundle-tpcds: the CLI, scripts/tpcds-gen.py and the wheels it runs on (DuckDB 1.4.4's
## Python package and its tpcds extension, for Python 3.12 as the GPU machine has it), for
## run.sh tpcds: the 99 TPC-DS queries at SF1 through rigel, first run and hot.
gpu-bundle-tpcds: $(TPCHGEN)
	@rm -rf bundle && mkdir -p bundle/wheels
	python3 -m pip download -q --disable-pip-version-check --no-deps -d bundle/wheels --python-version 3.12 \
		--only-binary=:all: --platform manylinux_2_28_x86_64 duckdb==$(TPCDS_DUCKDB_VERSION) duckdb-ext-tpcds==$(TPCDS_EXT_VERSION)
	cp scripts/tpcds-gen.py bundle/
	$(MAKE) bundle-common

bundle-common:
	$(GO) build -ldflags="-s -w" -o bundle/rigel ./cmd/rigel
	cp $(TPCHGEN) bundle/tpchgen-cli
	cp scripts/gpu-run.sh bundle/run.sh
	xz -T2 -6 bundle/rigel $(wildcard bundle/*.test) bundle/tpchgen-cli
	@du -sh bundle

clean:
	rm -rf bin bundle

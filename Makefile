# Thin wrapper over CMake. `make` builds build/deltac; `make test` installs
# what the tests need (scripts/bootstrap.sh), builds, and runs the suite,
# including an ASan+UBSan build of the unit tests. `make install PREFIX=DIR`
# installs the libraries, headers, deltac, docs, deltac.pc and the CMake
# package. Warnings are errors here (and so in CI), not in a plain cmake build.
JOBS ?= 2
BUILD ?= build
ASAN_BUILD ?= build-asan
DEMO_PORT ?= 8080
PREFIX ?= /usr/local

.PHONY: all build deps test test-unit asan install conformance bench fuzz demo clean

all: build

deps:
	bash scripts/bootstrap.sh

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDELTAC_WERROR=ON >/dev/null
	cmake --build $(BUILD) -j$(JOBS)

asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DDELTAC_SANITIZE=ON -DDELTAC_WERROR=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j$(JOBS)

test: deps build asan
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -L 'unit|fuzz' -j$(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit -j$(JOBS)

conformance: build
	python3 ../shared/parquet/check.py --deltac $(BUILD)/deltac -j $(JOBS)

bench: build
	bash scripts/bootstrap.sh --bench
	bash bench/run.sh $(BUILD)/deltac

fuzz: deps
	bash fuzz/run.sh

# Writes build/demo-table (or reuses it) and serves it with the web page until Ctrl-C.
demo: deps build
	$(BUILD)/deltac demo --dir $(BUILD)/demo-table --port $(DEMO_PORT)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz

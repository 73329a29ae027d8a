# A thin layer over CMake. `make demo` and `make test` set up what is missing first.
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOROYA_WERROR=ON

.PHONY: all deps build build-asan demo test test-fast test-asan test-valgrind test-install fuzz clean web web-serve

all: build

deps:
	@bash scripts/deps.sh

# Only what building and rendering need (the demo): no test, browser or web toolchain.
deps-build:
	@bash scripts/deps.sh --build

build:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

build-asan:
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DOROYA_WERROR=ON -DOROYA_SANITIZE=ON
	cmake --build $(BUILD_ASAN) -j $(JOBS)

# The main job: the rendered demo (bouncing ball with squash and stretch, step/linear/cubic
# balls, the skinned cylinder, slerp vs sterp rods) into out/demo.gif and out/demo.png.
demo: deps-build build
	./$(BUILD)/oroya render
	@echo "demo: wrote out/demo.gif and out/demo.png"

# Every test: the normal build, the ASan+UBSan build, valgrind memcheck, and the
# installed-package check.
test: deps
	$(MAKE) test-fast test-asan test-valgrind test-install

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS)

test-valgrind: build
	bash tests/valgrind/run_valgrind.sh $(BUILD)

test-install: build
	bash tests/install/check_install.sh $(BUILD)

# libFuzzer targets (clang 14): each runs FUZZ_SECONDS (default 60) on top of its seeds.
fuzz: deps
	bash tests/fuzz/run.sh $(or $(FUZZ_SECONDS),60)

# The browser build (docs/web.md): liboroya + web/oroya_web.c to WebAssembly with Debian's
# emscripten, into web/build/; `make web-serve` serves web/ on http://localhost:$(WEB_PORT)/.
WEB_PORT ?= 8000
web:
	bash web/build.sh

web-serve: web
	@echo "web-serve: viewer http://localhost:$(WEB_PORT)/  race http://localhost:$(WEB_PORT)/race/"
	cd web && python3 -m http.server $(WEB_PORT) --bind 127.0.0.1

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) out

# plugin-host: build, test, run and install.
#
#   make            build libPluginABI.so, plugin-host and the demo plugins
#   make run        build, then run: build/bin/plugin-host --dir plugins/
#   make test       build, then run every test (unit and integration), against a build of the
#                   host compiled file by file (HOST_BUILD=whole: the whole-module one)
#   make install    install into $(DESTDIR)$(PREFIX), with example systemd units in
#                   lib/systemd/system/plugin-host.service and .socket; the demo plugins
#                   go in with plugin-host install
#   make plugin PLUGIN_SOURCES=DIR PLUGIN_OUT=DIR [PLUGIN_LINKS="Domain ..."]
#                   build one plugin from DIR/*.swift and DIR/manifest.json
#   make bench      run the benchmarks in Benchmarks/ and print their figures
#   make simulate [SEQUENCES=100000] [SEED=N]
#                   run seeded random fault sequences against the supervisor's state machine
#   make mutants [MUTANT=ID] [SEED=N]
#                   plant each bug of Tests/Mutants/planted-bugs.txt; the simulator must catch it
#   make mutants-check
#                   check that every planted bug still applies to the sources (make test runs it)
#   make diagram    redraw the supervisor's state diagram in docs/architecture.md
#   make abi-check  compare PluginABI's public interface with the published ABI 2 baseline
#   make fuzz [FUZZ_SECONDS=600]
#                   fuzz the manifest and ELF reader with libFuzzer and AddressSanitizer
#
# The build directory is laid out like an install tree: build/bin, build/lib,
# build/lib/swift (module interfaces). The demo plugins go to plugins/, the directory
# `make run` loads; drop more .so files there.

SWIFTC   ?= swiftc
SWIFT    ?= swift
OBJCOPY  ?= objcopy
BUILD    ?= build
PLUGINS  ?= plugins
PREFIX   ?= /usr/local
DESTDIR  ?=
OPTIMIZE ?= -O

BIN     := $(BUILD)/bin
LIB     := $(BUILD)/lib
MODULES := $(LIB)/swift
ABI     := $(LIB)/libPluginABI.so
HOST    := $(BIN)/plugin-host

MANIFEST_SECTION := .plugin_host_manifest
SWIFTFLAGS := -swift-version 6 -warnings-as-errors $(OPTIMIZE) -g
# The ABI is compiled as a whole module, so generics are specialised across files.
WMO        := -wmo
# How the host is compiled:
#   whole        as one module, so the optimizer specialises generics and inlines across
#                files: what make, make run, make install and make bench build. It starts a
#                third faster than a build file by file, and takes a minute or two to compile.
#   incremental  file by file, on every processor, recompiling only the files a change
#                touches (seconds after a change to one file): what make test builds and
#                runs every test against, unless HOST_BUILD is given.
# Both are -O, from the same sources, and land in build/bin/plugin-host; each keeps its own
# files in build/host/MODE/, so switching back and forth costs a copy (docs/performance.md, "The test loop").
TEST_HOST_BUILD := $(or $(HOST_BUILD),incremental)
HOST_BUILD ?= whole
PROCESSORS := $(shell nproc 2>/dev/null || echo 2)
# The host and the ABI are one package: the ABI's host-only operations are `package`, out of
# plugins' reach (plugins are compiled without it, against the public interface).
PACKAGE    := -package-name plugin_host

ABI_SOURCES  := $(sort $(wildcard Sources/PluginABI/*.swift))
HOST_SOURCES := $(sort $(shell find Sources/PluginHost -name '*.swift'))
DEMO_PLUGINS := $(PLUGINS)/libPersistence.so $(PLUGINS)/libDomain.so $(PLUGINS)/libApplication.so

.PHONY: FORCE all run test test-prerequisites install uninstall plugin plugin-tests fixtures fuzz fuzzer fuzz-smoke bench simulate mutants mutants-check kills diagram abi-check clean
.DELETE_ON_ERROR:

# One line per thing built (`  SWIFTC   build/bin/plugin-host`); V=1 shows the full commands.
# A step that takes long (a whole-module compile) says how long it has taken so far, each
# second on a terminal: `$(call long,SWIFTC,TARGET) COMMAND`.
ifeq ($(V),1)
Q :=
announce = @true
long =
else
Q := @
announce = @printf '  %-8s %s\n' '$(1)' '$(2)'
long = bash Support/build/with-progress.sh "$$(printf '  %-8s %s' '$(1)' '$(2)')"
endif

# The build directory is an install tree, so plugins can be developed beside these sources
# against it (PLUGIN_HOST_PREFIX=build): its plugin directory is the demo's, and it holds the
# SwiftPM package of the build tool plugin and the pkg-config file.
TOOLS       := Support/swiftpm/PluginHostTools
TOOLS_FILES := $(TOOLS)/Package.swift $(TOOLS)/Plugins/EmbedPluginManifest/EmbedPluginManifest.swift
TREE        := $(LIB)/plugin-host/plugins $(BUILD)/share/plugin-host/PluginHostTools/Package.swift $(LIB)/pkgconfig/plugin-abi.pc

all: $(HOST) $(DEMO_PLUGINS) $(TREE)

$(LIB)/plugin-host/plugins:
	@mkdir -p $(dir $@)
	$(Q)ln -sfn $(abspath $(PLUGINS)) $@

$(BUILD)/share/plugin-host/PluginHostTools/Package.swift: $(TOOLS_FILES)
	@rm -rf $(BUILD)/share/plugin-host/PluginHostTools
	@mkdir -p $(BUILD)/share/plugin-host
	$(Q)cp -R $(TOOLS) $(BUILD)/share/plugin-host/

$(LIB)/pkgconfig/plugin-abi.pc:
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' "$$PLUGIN_ABI_PC" > $@

# One shared PluginABI for the host and every plugin: built once, with library evolution
# and a textual interface, and linked dynamically everywhere (see docs/writing-plugins.md).
$(ABI): $(ABI_SOURCES)
	@mkdir -p $(LIB) $(MODULES)
	$(call announce,SWIFTC,$@)
	$(Q)$(SWIFTC) $(SWIFTFLAGS) $(WMO) $(PACKAGE) -parse-as-library -emit-library -enable-library-evolution \
	    -module-name PluginABI \
	    -emit-module-path $(MODULES)/PluginABI.swiftmodule \
	    -emit-module-interface-path $(MODULES)/PluginABI.swiftinterface \
	    -Xlinker -soname=libPluginABI.so \
	    -o $@ $(ABI_SOURCES)

# build/bin/plugin-host is a copy of the build HOST_BUILD names, replaced (never rewritten in
# place, so a running host keeps its file) only when it differs.
HOST_FLAGS := -emit-executable $(SWIFTFLAGS) $(PACKAGE) -parse-as-library -module-name PluginHost \
              -I $(MODULES) -L $(LIB) -lPluginABI -Xlinker -rpath -Xlinker '$$ORIGIN/../lib'
$(HOST): $(BUILD)/host/$(HOST_BUILD)/plugin-host FORCE
	@mkdir -p $(BIN)
	$(Q)cmp -s $< $@ || { cp $< $@.new && mv -f $@.new $@; }

$(BUILD)/host/whole/plugin-host: $(HOST_SOURCES) $(ABI)
	@mkdir -p $(dir $@)
	$(Q)$(call long,SWIFTC,$(HOST)) $(SWIFTC) $(HOST_FLAGS) -wmo -num-threads $(PROCESSORS) \
	    -emit-module-path $(dir $@)PluginHost.swiftmodule -o $@ $(HOST_SOURCES)

# The driver finds what changed from the records it keeps beside the objects.
$(BUILD)/host/incremental/plugin-host: $(HOST_SOURCES) $(ABI)
	@mkdir -p $(dir $@)objects
	$(Q)Support/build/output-file-map.sh $(dir $@)objects $(HOST_SOURCES) > $(dir $@)output-file-map.json
	$(Q)$(call long,SWIFTC,$(HOST) (file by file)) $(SWIFTC) $(HOST_FLAGS) -incremental -enable-batch-mode -j $(PROCESSORS) \
	    -output-file-map $(dir $@)output-file-map.json \
	    -emit-module-path $(dir $@)PluginHost.swiftmodule -o $@ $(HOST_SOURCES)

FORCE:

# build-plugin NAME, SOURCE-DIR, OUT-DIR, MODULE-DIR, LINKS[, SOURCES[, MODULE-SEARCH[, FLAGS]]]
# Compiles SOURCES (default: SOURCE-DIR/*.swift) into OUT-DIR/libNAME.so against the shared
# PluginABI (and the plugins named in LINKS; modules are looked up in MODULE-SEARCH first,
# then in build/lib/swift), with the extra swiftc FLAGS, writes NAME's module interface to MODULE-DIR,
# and stores SOURCE-DIR/manifest.json in the library's manifest section. RUNPATH: $ORIGIN
# for the plugins it links, $ORIGIN/../.. for libPluginABI.so in an install tree.
define build-plugin
	@test -f $(2)/manifest.json || { echo "$(2)/manifest.json: missing; every plugin needs a manifest" >&2; exit 1; }
	@test -n "$(or $(6),$(wildcard $(2)/*.swift))" || { echo "$(2): no Swift sources" >&2; exit 1; }
	@mkdir -p $(3) $(4)
	$(call announce,PLUGIN,$(3)/lib$(1).so)
	$(Q)$(SWIFTC) $(SWIFTFLAGS) $(8) -parse-as-library -emit-library -enable-library-evolution \
	    -module-name $(1) \
	    -emit-module-path $(4)/$(1).swiftmodule \
	    -emit-module-interface-path $(4)/$(1).swiftinterface \
	    $(addprefix -I ,$(7)) -I $(MODULES) -I $(4) -L $(LIB) -L $(3) -L $(PLUGINS) -lPluginABI $(addprefix -l,$(5)) \
	    -Xlinker -soname=lib$(1).so -Xlinker -rpath -Xlinker '$$ORIGIN:$$ORIGIN/../..' \
	    -o $(3)/lib$(1).so.unpackaged $(or $(6),$(sort $(wildcard $(2)/*.swift)))
	$(Q)$(OBJCOPY) --add-section $(MANIFEST_SECTION)=$(2)/manifest.json \
	    --set-section-flags $(MANIFEST_SECTION)=noload,readonly \
	    $(3)/lib$(1).so.unpackaged $(3)/lib$(1).so
	@rm -f $(3)/lib$(1).so.unpackaged
	@chmod 755 $(3)/lib$(1).so
endef

# The demo plugin directory: the host refuses one writable by group or others.
$(PLUGINS)/libPersistence.so: $(wildcard Plugins/Persistence/*) $(ABI)
	@install -d -m 755 $(PLUGINS)
	$(call build-plugin,Persistence,Plugins/Persistence,$(PLUGINS),$(MODULES),)

$(PLUGINS)/libDomain.so: $(wildcard Plugins/Domain/*) $(PLUGINS)/libPersistence.so
	$(call build-plugin,Domain,Plugins/Domain,$(PLUGINS),$(MODULES),Persistence)

$(PLUGINS)/libApplication.so: $(wildcard Plugins/Application/*) $(PLUGINS)/libDomain.so
	$(call build-plugin,Application,Plugins/Application,$(PLUGINS),$(MODULES),Domain)

# Any one plugin, for plugin authors and the integration tests.
PLUGIN_SOURCES ?=
PLUGIN_OUT     ?=
PLUGIN_NAME    ?= $(notdir $(patsubst %/,%,$(PLUGIN_SOURCES)))
PLUGIN_LINKS   ?=
plugin: $(ABI) $(DEMO_PLUGINS)
	@test -n "$(PLUGIN_SOURCES)" -a -n "$(PLUGIN_OUT)" || { echo "usage: make plugin PLUGIN_SOURCES=DIR PLUGIN_OUT=DIR [PLUGIN_LINKS=...]" >&2; exit 64; }
	$(call build-plugin,$(PLUGIN_NAME),$(PLUGIN_SOURCES),$(PLUGIN_OUT),$(PLUGIN_OUT)/modules,$(PLUGIN_LINKS))

# The fixture plugins of the integration tests, each Tests/Fixtures/NAME into
# $(FIXTURES_OUT)/libNAME.so. FIXTURE_LINKS_NAME lists the plugins a fixture links. A
# fixture directory with a manifest and no Swift source gets Tests/Fixtures/RecordingComponent.swift;
# every fixture gets Tests/Fixtures/FixtureLog.swift.
# Fixtures are compiled without optimization (-Onone), which halves their build: they are
# test inputs, and what a test checks of them does not depend on the optimizer.
# FIXTURE_MODULES_NAME names a directory searched first for modules: Legacy is compiled
# against the interface of ABI 2.0 as first published. FIXTURE_SOURCES_NAME and
# FIXTURE_FLAGS_NAME build a fixture from another's sources with other flags: TickerNext is
# the next build of Ticker.
FIXTURES_OUT ?= $(BUILD)/fixtures
FIXTURE_NAMES := $(notdir $(patsubst %/,%,$(wildcard Tests/Fixtures/*/)))
FIXTURE_LINKS_Sneaky   := Persistence
FIXTURE_LINKS_Impostor := Persistence
FIXTURE_LINKS_Ripener  := Domain Persistence
FIXTURE_LINKS_Hammer   := Domain Persistence
FIXTURE_MODULES_Legacy := Tests/Baselines/PluginABI-2.0
FIXTURE_SOURCES_TickerNext := Tests/Fixtures/Ticker/Ticker.swift
FIXTURE_FLAGS_TickerNext := -D NEXT_BUILD
fixtures: $(addprefix $(FIXTURES_OUT)/lib,$(addsuffix .so,$(FIXTURE_NAMES)))

.SECONDEXPANSION:
$(FIXTURES_OUT)/lib%.so: Tests/Fixtures/%/* $$(FIXTURE_SOURCES_$$*) Tests/Fixtures/RecordingComponent.swift Tests/Fixtures/FixtureLog.swift \
                         $(ABI) $(DEMO_PLUGINS)
	$(call build-plugin,$*,Tests/Fixtures/$*,$(FIXTURES_OUT),$(FIXTURES_OUT)/modules,$(FIXTURE_LINKS_$*),$(or $(FIXTURE_SOURCES_$*),$(wildcard Tests/Fixtures/$*/*.swift),Tests/Fixtures/RecordingComponent.swift) Tests/Fixtures/FixtureLog.swift,$(FIXTURE_MODULES_$*),-Onone $(FIXTURE_FLAGS_$*))

run: all
	$(call announce,RUN,$(HOST) --dir $(PLUGINS)/)
	$(Q)$(HOST) --dir $(PLUGINS)/

# The demo plugins' own tests, Plugins/NAME/Tests/*.swift: each a program that bootstraps
# the plugin's component with BootstrapHarness against stand-ins, as a plugin author's
# tests do (see `plugin-host new`).
PLUGIN_TESTS := $(BUILD)/plugin-tests
$(PLUGIN_TESTS)/%Tests: Plugins/%/Tests/*.swift $(DEMO_PLUGINS)
	@mkdir -p $(PLUGIN_TESTS)
	$(call announce,SWIFTC,$@)
	$(Q)$(SWIFTC) -swift-version 6 -warnings-as-errors -parse-as-library -module-name $*Tests \
	    -I $(MODULES) -L $(LIB) -L $(PLUGINS) -lPluginABI -lPersistence -lDomain -lApplication \
	    -Xlinker -rpath -Xlinker $(abspath $(LIB)) -Xlinker -rpath -Xlinker $(abspath $(PLUGINS)) \
	    -o $@ $(sort $(wildcard Plugins/$*/Tests/*.swift))

plugin-tests: $(PLUGIN_TESTS)/DomainTests $(PLUGIN_TESTS)/ApplicationTests
	@for test in $^; do ./$$test || exit 1; done

# The manifest reader's fuzz target: the harness, compiled with the host's sources that read
# plugin files (and a static PluginABI, for its JSON value type), under libFuzzer and ASan.
FUZZ         := $(BUILD)/fuzz
FUZZER       := $(FUZZ)/manifest-fuzzer
FUZZ_SECONDS ?= 600
FUZZ_FLAGS   := -swift-version 6 -O -g -sanitize=fuzzer,address -parse-as-library -package-name plugin_host
FUZZ_SOURCES := Tests/Fuzz/ManifestFuzzer.swift $(wildcard Sources/PluginHost/Shared/Manifest/*.swift) Sources/PluginHost/Shared/Basics/String+Text.swift Sources/PluginHost/Shared/Basics/HostVersion.swift \
                $(wildcard Sources/PluginHost/Shared/JSON/*.swift) \
                $(addprefix Sources/PluginHost/Shared/System/,SystemError.swift SystemCall.swift ReadOnlyFile.swift FileStatus.swift)
$(FUZZER): $(FUZZ_SOURCES) $(ABI_SOURCES)
	@mkdir -p $(FUZZ)
	$(SWIFTC) $(FUZZ_FLAGS) -wmo -module-name PluginABI -emit-module -emit-module-path $(FUZZ)/PluginABI.swiftmodule \
	    -emit-object -o $(FUZZ)/PluginABI.o $(ABI_SOURCES)
	$(SWIFTC) $(FUZZ_FLAGS) -emit-executable -wmo -num-threads $(PROCESSORS) -module-name ManifestFuzz -I $(FUZZ) \
	    -emit-module-path $(FUZZ)/ManifestFuzz.swiftmodule -o $@ $(FUZZ_SOURCES) -Xlinker $(FUZZ)/PluginABI.o

# The fuzzer alone, built (make test builds it while the suites run).
fuzzer: $(FUZZER)

# Runs the fuzzer for FUZZ_SECONDS on a copy of the seed corpus; new inputs it finds stay
# in build/fuzz/corpus, a crashing input is written to build/fuzz/crash-*.
fuzz: $(FUZZER)
	@mkdir -p $(FUZZ)/corpus
	cp Tests/Fuzz/corpus/* $(FUZZ)/corpus/
	$(FUZZER) -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=5 -dict=Tests/Fuzz/manifest.dict \
	    -artifact_prefix=$(FUZZ)/ -print_final_stats=1 $(FUZZ)/corpus

# The benchmarks: each prints its figures (see docs/performance.md).
MICRO := $(BUILD)/bench/micro
$(BUILD)/bench/Shapes.swift: Benchmarks/Micro/shapes.py
	@mkdir -p $(dir $@)
	python3 Benchmarks/Micro/shapes.py $@

$(MICRO): Benchmarks/Micro/*.swift $(BUILD)/bench/Shapes.swift $(filter-out Sources/PluginHost/Commands/CLI/PluginHostCommand.swift,$(HOST_SOURCES)) $(ABI)
	@mkdir -p $(dir $@)
	$(SWIFTC) -swift-version 6 -O -wmo $(PACKAGE) -parse-as-library -module-name MicroBenchmarks \
	    -I $(MODULES) -L $(LIB) -lPluginABI -Xlinker -rpath -Xlinker '$$ORIGIN/../lib' \
	    -o $@ Benchmarks/Micro/*.swift $(BUILD)/bench/Shapes.swift $(filter-out Sources/PluginHost/Commands/CLI/PluginHostCommand.swift,$(HOST_SOURCES))

# The start-up benchmark's loaders: the honest floor (a C loader linked with the ABI), the
# contained floor (the same, forked from a waiting parent, lstat of every file first), and
# the naive Swift loop; and its plugin, the project `plugin-host new Stamp` writes.
BENCH_LOADERS := $(BUILD)/bench/floor $(BUILD)/bench/floor-contained $(BUILD)/bench/naive-loader $(BUILD)/bench/peakrss \
                 $(BUILD)/bench/libStamp.so
BENCH_PLUGIN := $(BUILD)/bench/new/Stamp
$(BENCH_PLUGIN)/manifest.json: $(HOST) $(ABI) Sources/PluginHost/Commands/Authoring/PluginTemplate.swift
	@rm -rf $(BENCH_PLUGIN)
	$(call announce,NEW,$(BENCH_PLUGIN))
	$(Q)$(HOST) new Stamp --into $(BUILD)/bench/new > /dev/null
$(BUILD)/bench/libStamp.so: $(BENCH_PLUGIN)/manifest.json
	$(call build-plugin,Stamp,$(BENCH_PLUGIN),$(BUILD)/bench,$(BUILD)/bench/modules,,$(BENCH_PLUGIN)/Sources/Stamp/StampBootstrapping.swift)
$(BUILD)/bench/floor: Benchmarks/floor.c $(ABI)
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $< -L $(LIB) -Wl,--no-as-needed -lPluginABI -Wl,-rpath,'$$ORIGIN/../lib'
$(BUILD)/bench/floor-contained: Benchmarks/floor.c $(ABI)
	@mkdir -p $(dir $@)
	$(CC) -O2 -DCONTAINED -o $@ $< -L $(LIB) -Wl,--no-as-needed -lPluginABI -Wl,-rpath,'$$ORIGIN/../lib'
$(BUILD)/bench/naive-loader: Benchmarks/Naive/NaiveLoader.swift $(ABI)
	@mkdir -p $(dir $@)
	$(SWIFTC) -swift-version 6 -O $(PACKAGE) -parse-as-library -module-name NaiveLoader \
	    -I $(MODULES) -L $(LIB) -lPluginABI -Xlinker -rpath -Xlinker '$$ORIGIN/../lib' -o $@ $<
$(BUILD)/bench/peakrss: Benchmarks/peakrss.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<

bench: all $(MICRO) $(BENCH_LOADERS)
	$(MICRO)
	python3 Benchmarks/lifecycle.py
	python3 Benchmarks/generations.py
	python3 Benchmarks/upgrades.py
	python3 Benchmarks/host_upgrades.py
	python3 Benchmarks/record.py
	python3 Benchmarks/control.py
	python3 Benchmarks/manifest_section.py
	python3 Benchmarks/startup.py
	python3 Benchmarks/supervisor.py

# The supervisor's state machine under seeded random fault sequences (Tests/PluginHostTests/
# Simulation/), compiled with the host's own sources; the last line reads
# "N sequences, M events, K invariant violations". SEQUENCES= how many, SEED= the first,
# JOBS= how many threads (default: every processor).
SIMULATOR   := $(BUILD)/simulate/simulate
SEQUENCES   ?= 100000
SEED        ?=
JOBS        ?=
SIMULATION_SOURCES := $(sort $(wildcard Tests/PluginHostTests/Simulation/*.swift)) $(sort $(wildcard Tests/Simulate/*.swift))
SIMULATOR_FLAGS := -swift-version 6 -O -wmo $(PACKAGE) -D STANDALONE_SIMULATOR -module-name Simulate \
                   -I $(abspath $(MODULES)) -L $(abspath $(LIB)) -lPluginABI -Xlinker -rpath -Xlinker $(abspath $(LIB))
$(SIMULATOR): $(SIMULATION_SOURCES) $(filter-out Sources/PluginHost/Commands/CLI/PluginHostCommand.swift,$(HOST_SOURCES)) $(ABI)
	@mkdir -p $(dir $@)
	$(Q)$(call long,SWIFTC,$@) $(SWIFTC) $(SIMULATOR_FLAGS) -o $@ $(SIMULATION_SOURCES) $(filter-out Sources/PluginHost/Commands/CLI/PluginHostCommand.swift,$(HOST_SOURCES))

simulate: $(SIMULATOR)
	@$(SIMULATOR) $(if $(JOBS),--jobs $(JOBS)) $(SEQUENCES) $(SEED)

# SIGKILL of the supervisor at KILLS random moments (default 100) across upgrades, trials,
# rollbacks and the record's writes, through the real binary (Tests/IntegrationTests/
# SupervisorKillTests.swift); KILL_SEED= repeats a run. `make test` kills it 4 times.
kills: all
	@mkdir -p $(BUILD)/tmp/state
	@env TMPDIR=$(abspath $(BUILD)/tmp) XDG_STATE_HOME=$(abspath $(BUILD)/tmp/state) PLUGIN_HOST_KILLS=$(or $(KILLS),100) \
	    $(if $(KILL_SEED),PLUGIN_HOST_KILL_SEED=$(KILL_SEED)) $(SWIFT) test --filter SupervisorKillTests

# The planted bugs of Tests/Mutants/planted-bugs.txt, each in a copy of the sources, against
# the simulator's default run; the last line reads "K/M planted bugs caught". MUTANT= one (or
# several, with commas), SEED= the first sequence's.
mutants: $(ABI)
	@python3 Tests/Mutants/run.py --swiftc "$(SWIFTC)" --flags "$(SIMULATOR_FLAGS)" --build $(BUILD)/mutants \
	    --sequences $(SEQUENCES) $(if $(SEED),--seed $(SEED)) $(if $(MUTANT),--only $(MUTANT))

# Whether every planted bug still applies exactly once to the sources as they are, in a
# second, without building anything: `make test` runs it, so the list cannot drift from the code.
mutants-check:
	@python3 Tests/Mutants/run.py --check

# The state diagram of docs/architecture.md, drawn from the transitions the simulator visits
# (a test checks that the document holds what the machine draws).
diagram: $(SIMULATOR)
	@$(SIMULATOR) --diagram > $(BUILD)/simulate/diagram.md
	@python3 Tests/Simulate/replace-diagram.py docs/architecture.md $(BUILD)/simulate/diagram.md

# The short run that `make test` includes: the seeds and a short mutation around them, some
# 200,000 inputs or more; the long search is make fuzz's.
fuzz-smoke:
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=5

# Unit tests need nothing but SwiftPM; the integration tests run the binaries built here
# and build the fixture plugins with `make fixtures` into build/fixtures, where they are
# kept from one run to the next.
# SwiftPM and the Swift driver leave a TemporaryDirectory.* behind in $$TMPDIR at every
# build and test run; they go to build/tmp, which `make clean` removes, instead of piling up
# in /tmp.
TOOL_TMPDIR := $(abspath $(BUILD))/tmp

# Tests/run-all.sh prints a line per step, the failures in full and "N passed, M failed";
# everything else goes to build/test.log (V=1 shows it as it runs).
# PluginABI's public interface against the baseline of ABI 2 as it was published: additions
# pass; anything library evolution forbids fails, naming the declaration (`make test` runs it).
ABI_BASELINE := Tests/Baselines/PluginABI-2.0
abi-check: $(ABI)
	$(Q)Support/abi/check-abi.sh $(ABI_BASELINE) $(MODULES) PluginABI

# The metrics are checked with the Prometheus project's own parser (its Python client),
# installed into the build directory from PyPI unless Python already has it.
PROMETHEUS_CLIENT := $(BUILD)/python/.installed

# The host is built as TEST_HOST_BUILD says (incremental, unless HOST_BUILD is given), and the
# makes the tests run inherit it. run-all.sh builds test-prerequisites first.
test:
	@HOST_BUILD=$(TEST_HOST_BUILD) bash Tests/run-all.sh "$(MAKE)" "$(SWIFT)" "$(TOOL_TMPDIR)"

test-prerequisites: all $(PROMETHEUS_CLIENT)

$(PROMETHEUS_CLIENT):
	$(call announce,PIP,prometheus_client)
	$(Q)mkdir -p $(BUILD)/python
	$(Q)python3 -c 'import prometheus_client' 2>/dev/null \
		|| python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target $(BUILD)/python prometheus_client
	$(Q)touch $@

# plugin-abi.pc: `pkg-config --cflags --libs plugin-abi` gives the swiftc flags to build a
# plugin against this install tree; ${pcfiledir} keeps it right when the tree moves.
define PLUGIN_ABI_PC
prefix=$${pcfiledir}/../..
libdir=$${prefix}/lib
plugindir=$${libdir}/plugin-host/plugins

Name: plugin-abi
Description: The shared plugin ABI of plugin-host, for building plugins with swiftc
Version: $(VERSION)
Cflags: -I$${libdir}/swift
Libs: -L$${libdir} -L$${plugindir} -lPluginABI
endef
export PLUGIN_ABI_PC
VERSION := 0.2.0

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/swift $(DESTDIR)$(PREFIX)/lib/plugin-host/plugins
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	printf '%s\n' "$$PLUGIN_ABI_PC" > $(DESTDIR)$(PREFIX)/lib/pkgconfig/plugin-abi.pc
	install -m 755 $(HOST) $(DESTDIR)$(PREFIX)/bin/plugin-host
	install -m 755 $(ABI) $(DESTDIR)$(PREFIX)/lib/libPluginABI.so
	install -m 644 $(MODULES)/PluginABI.swiftinterface $(DESTDIR)$(PREFIX)/lib/swift/
	# The demo plugins as any plugin is installed: checked, with their interfaces, each renamed in.
	for plugin in $(DEMO_PLUGINS); do \
	    name=$$(basename $$plugin .so); name=$${name#lib}; \
	    $(DESTDIR)$(PREFIX)/bin/plugin-host install $$plugin --interface $(MODULES)/$$name.swiftinterface || exit 1; \
	done
	install -d $(DESTDIR)$(PREFIX)/share/plugin-host/PluginHostTools/Plugins/EmbedPluginManifest
	install -m 644 $(TOOLS)/Package.swift $(DESTDIR)$(PREFIX)/share/plugin-host/PluginHostTools/
	install -m 644 $(TOOLS)/Plugins/EmbedPluginManifest/EmbedPluginManifest.swift \
	    $(DESTDIR)$(PREFIX)/share/plugin-host/PluginHostTools/Plugins/EmbedPluginManifest/
	install -d $(DESTDIR)$(PREFIX)/share/doc/plugin-host
	install -m 644 README.md $(wildcard docs/*.md) $(DESTDIR)$(PREFIX)/share/doc/plugin-host/
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system
	for unit in plugin-host.service plugin-host.socket; do \
	    sed 's|@PREFIX@|$(PREFIX)|g' Support/systemd/$$unit.in > $(DESTDIR)$(PREFIX)/lib/systemd/system/$$unit && \
	    chmod 644 $(DESTDIR)$(PREFIX)/lib/systemd/system/$$unit || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/plugin-host $(DESTDIR)$(PREFIX)/lib/libPluginABI.so $(DESTDIR)$(PREFIX)/lib/pkgconfig/plugin-abi.pc
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/swift/,PluginABI.swiftinterface Persistence.swiftinterface Domain.swiftinterface Application.swiftinterface)
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/plugin-host $(DESTDIR)$(PREFIX)/share/plugin-host/PluginHostTools
	rm -f $(DESTDIR)$(PREFIX)/lib/systemd/system/plugin-host.service $(DESTDIR)$(PREFIX)/lib/systemd/system/plugin-host.socket
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/plugin-host/plugins/,$(notdir $(DEMO_PLUGINS)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/plugin-host/plugins/.api/,Persistence@*.swiftinterface Domain@*.swiftinterface Application@*.swiftinterface)
	-rmdir $(DESTDIR)$(PREFIX)/lib/plugin-host/plugins/.api 2>/dev/null

clean:
	rm -rf $(BUILD) $(PLUGINS) .build

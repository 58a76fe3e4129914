extension PluginTemplate {
    /// The plugins the project links: those it requires and theirs, whose types it may use
    /// (what Domain returns can be a type of Persistence).
    private var linked: [String] { links.isEmpty ? requires.map(\.name) : links }

    /// `Package.swift`: `swift build` makes `libNAME.so` with its manifest embedded by the
    /// installed build tool plugin, `swift test` runs the tests, and an editor's completion
    /// sees PluginABI and the plugins it requires.
    var packageManifest: String {
        let links = linked.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            // swift-tools-version: 6.0
            // The \(name) plugin of plugin-host, built against the host installed in PLUGIN_HOST_PREFIX.
            //
            //   swift build              .build/debug/lib\(name).so, its manifest.json embedded
            //   swift test               the tests in Tests/\(name)Tests
            //   swift build -c release   then install it, checked, with its module interface (docs/writing-plugins.md):
            //       \(prefix)/bin/plugin-host install .build/release/lib\(name).so
            import PackageDescription

            /// The install tree of the host: PLUGIN_HOST_PREFIX, else the one that wrote this project.
            let prefix = Context.environment["PLUGIN_HOST_PREFIX"] ?? "\(prefix)"
            let plugins = prefix + "/lib/plugin-host/plugins"
            /// The plugins \(name) requires, and theirs, whose types it may use: linking them loads them
            /// first, and `plugin-host check` accepts a link its manifest declares. Never link an
            /// optional plugin: the dynamic loader would then require it.
            let links: [String] = [\(links)]

            let package = Package(
                name: "\(name)",
                products: [.library(name: "\(name)", type: .dynamic, targets: ["\(name)"])],
                dependencies: [.package(path: prefix + "/share/plugin-host/PluginHostTools")],
                targets: [
                    .target(
                        name: "\(name)",
                        swiftSettings: [
                            // Library evolution and a module interface: plugins built later against this one
                            // keep working when it changes compatibly.
                            .unsafeFlags(["-I", prefix + "/lib/swift", "-enable-library-evolution", "-emit-module-interface"])
                        ],
                        linkerSettings: [
                            .unsafeFlags([
                                "-L", prefix + "/lib", "-L", plugins, "-Xlinker", "-soname=lib\(name).so",
                                // Installed, it finds the plugins it links beside it and libPluginABI.so two levels up.
                                "-Xlinker", "-rpath=$ORIGIN:$ORIGIN/../..",
                            ]),
                            .linkedLibrary("PluginABI"),
                        ] + links.map { .linkedLibrary($0) },
                        plugins: [.plugin(name: "EmbedPluginManifest", package: "PluginHostTools")]
                    ),
                    .testTarget(
                        name: "\(name)Tests",
                        dependencies: ["\(name)"],
                        swiftSettings: [.unsafeFlags(["-I", prefix + "/lib/swift"])],
                        linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath=" + prefix + "/lib", "-Xlinker", "-rpath=" + plugins])]
                    ),
                ]
            )

            """
    }

    /// The Makefile: the same plugin built and tested with `swiftc` and `objcopy`, for builds
    /// without SwiftPM.
    var makefile: String {
        """
        # Builds lib\(name).so against the plugin-host installed in PLUGIN_HOST_PREFIX, without SwiftPM
        # (`swift build` builds the same plugin from Package.swift).
        #
        #   make            build build/lib\(name).so
        #   make test       build and run the tests in Tests/\(name)Tests
        #   make install    plugin-host install: lib\(name).so into the host's plugin directory and
        #                   its module interface beside the host's, checked, each renamed in

        PLUGIN_HOST_PREFIX ?= \(prefix)
        PLUGINS_DIR        ?= $(PLUGIN_HOST_PREFIX)/lib/plugin-host/plugins
        MODULES_DIR        ?= $(PLUGIN_HOST_PREFIX)/lib/swift
        PLUGIN_HOST        ?= $(PLUGIN_HOST_PREFIX)/bin/plugin-host
        SWIFTC             ?= swiftc
        OBJCOPY            ?= objcopy
        NAME               := \(name)
        # The plugins this one requires, and theirs, whose types it may use (what Domain returns
        # can be a type of Persistence): linking them loads them first, and check accepts them.
        # Never link an optional plugin: the dynamic loader would then require it.
        LINKS              := \(linked.joined(separator: " "))
        OUT                := build

        ABI_FLAGS := $(shell PKG_CONFIG_PATH=$(PLUGIN_HOST_PREFIX)/lib/pkgconfig pkg-config --cflags --libs plugin-abi)
        SOURCES   := $(wildcard Sources/$(NAME)/*.swift)
        TESTS     := $(wildcard Tests/$(NAME)Tests/*.swift)

        .PHONY: all test install clean
        .DELETE_ON_ERROR:
        all: $(OUT)/lib$(NAME).so

        # After compiling, check-api compares the public API with the build of $(NAME) installed
        # last in $(PLUGINS_DIR), which plugins built against it use: within the same major
        # version, a break fails, and leaves no build behind (neither the one before nor the one refused).
        $(OUT)/lib$(NAME).so: $(SOURCES) manifest.json $(wildcard $(MODULES_DIR)/$(NAME).swiftinterface)
        \t@mkdir -p $(OUT)
        \t$(SWIFTC) -swift-version 6 -O -parse-as-library -emit-library -enable-library-evolution \\
        \t    -module-name $(NAME) -emit-module-path $(OUT)/$(NAME).swiftmodule -emit-module-interface-path $(OUT)/$(NAME).swiftinterface \\
        \t    $(ABI_FLAGS) $(addprefix -l,$(LINKS)) \\
        \t    -Xlinker -soname=lib$(NAME).so -Xlinker -rpath -Xlinker '$$ORIGIN:$$ORIGIN/../..' \\
        \t    -o $@.unpackaged $(SOURCES) || { rm -f $@.unpackaged $@; exit 1; }
        \t$(PLUGIN_HOST) check-api manifest.json --interface $(OUT)/$(NAME).swiftinterface --dir $(PLUGINS_DIR) \\
        \t    || { rm -f $@.unpackaged $@; exit 1; }
        \t$(OBJCOPY) --add-section .plugin_host_manifest=manifest.json \\
        \t    --set-section-flags .plugin_host_manifest=noload,readonly $@.unpackaged $@
        \trm -f $@.unpackaged
        \tchmod 755 $@

        # The tests use Swift Testing; its entry point (the one SwiftPM's test runner calls) runs
        # them, against the library built above.
        test: $(OUT)/lib$(NAME).so $(TESTS)
        \tprintf 'import Testing\\n@main struct Runner { static func main() async { await Testing.__swiftPMEntryPoint() as Never } }\\n' \\
        \t    > $(OUT)/TestRunner.swift
        \t$(SWIFTC) -swift-version 6 -parse-as-library -module-name $(NAME)Tests -I $(OUT) $(ABI_FLAGS) \\
        \t    -L $(OUT) -l$(NAME) $(addprefix -l,$(LINKS)) -Xlinker -rpath -Xlinker $(abspath $(OUT)) \\
        \t    -Xlinker -rpath -Xlinker $(PLUGIN_HOST_PREFIX)/lib -Xlinker -rpath -Xlinker $(PLUGINS_DIR) \\
        \t    -o $(OUT)/$(NAME)Tests $(TESTS) $(OUT)/TestRunner.swift
        \t$(OUT)/$(NAME)Tests

        install: $(OUT)/lib$(NAME).so
        \t$(PLUGIN_HOST) install $(OUT)/lib$(NAME).so --interface $(OUT)/$(NAME).swiftinterface --dir $(PLUGINS_DIR)

        clean:
        \trm -rf $(OUT)

        """
    }

    /// `.gitignore`: what either build writes.
    var gitignore: String {
        """
        /.build/
        /build/
        /.swiftpm/
        Package.resolved

        """
    }
}

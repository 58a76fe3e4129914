/// `plugin-host new NAME [--requires A,B] [--into DIR]`: writes a plugin project that
/// builds against the installed host with one `make` and loads unchanged.
struct NewPluginCommand {
    let options: NewPluginOptions
    /// The install tree of this host, written into the project's Makefile.
    let installPrefix: String?

    func run() -> ExitStatus {
        let name = options.name
        let directory = (options.parent.hasSuffix("/") ? options.parent : options.parent + "/") + name
        let files = PluginTemplate(name: name, requires: options.requires, prefix: installPrefix ?? "/usr/local").files
        do {
            try makeDirectory(directory)
            try makeDirectory(directory + "/Tests")
            for (path, contents) in files {
                try writeNewFile(directory + "/" + path, contents: contents)
            }
        } catch {
            Console.direct.write("plugin-host: error: cannot write the plugin project: \(error)\n", to: .error)
            return .failure
        }
        Console.direct.write(
            "Created plugin \(name) in \(directory):\n"
                + files.map { "  \($0.path)\n" }.joined()
                + "Build it with: make -C \(directory)\n"
                + "Test it with:  make -C \(directory) test\n"
                + "Install it:    make -C \(directory) install   (into \(installPrefix ?? "/usr/local")/lib/plugin-host/plugins)\n", to: .output)
        return .success
    }
}

/// The files of a new plugin project.
struct PluginTemplate {
    let name: String
    let requires: [String]
    let prefix: String

    var files: [(path: String, contents: String)] {
        [("manifest.json", manifest), ("\(name)Bootstrapping.swift", source), ("Tests/\(name)Tests.swift", tests), ("Makefile", makefile)]
    }

    var manifest: String {
        let requirements = requires.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            {
              "name": "\(name)",
              "version": "0.1.0",
              "abi": \(HelpText.abiVersion),
              "requires": [\(requirements)]
            }

            """
    }

    var source: String {
        let lookups = requires.isEmpty
            ? "        // Obtain the components of the plugins you require (list them in manifest.json):\n"
                + "        //     let domain = try bootstrapped.component(DomainBootstrapping.self)\n"
            : requires.map { required in
                "        // To use \(required)'s types: `import \(required)`, add \(required) to LINKS in the Makefile, then\n"
                    + "        //     let \(required.lowercasedFirst) = try bootstrapped.component(\(required)Bootstrapping.self)\n"
            }.joined()
        return """
            import PluginABI
            import Synchronization

            /// The component of the \(name) plugin.
            public final class \(name)Bootstrapping: Bootstrapping {
                private let greeting = Mutex<String?>(nil)

                public init() {}

                /// The greeting set up while bootstrapping.
                public var message: String? { greeting.withLock { $0 } }

                public func bootstrap(_ bootstrapped: Bootstrapped) throws {
            \(lookups)        let text = try bootstrapped.settings.string("greeting") ?? "\(name) is ready"
                    greeting.withLock { $0 = text }
                    print("\\(bootstrapped.pluginName ?? "\(name)"): \\(text)")
                }

                public func shutdown() async throws {}
            }

            @c(plugin_host_bootstrapping)
            public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
                PluginEntryPoint.export(\(name)Bootstrapping())
            }

            """
    }

    var tests: String {
        """
        import PluginABI

        /// Unit tests of the component, without the host: BootstrapHarness bootstraps it
        /// against stand-ins for the plugins it requires. `make test` builds and runs them.
        @main
        struct \(name)Tests {
            static func main() async throws {
                let chain = try await BootstrapHarness()
                    .bootstrap(\(name)Bootstrapping(), as: "\(name)", settings: ["greeting": "hello"])
                let component = try chain.component(\(name)Bootstrapping.self)
                precondition(component.message == "hello", "the greeting setting was not applied")
                print("\(name)Tests: passed")
            }
        }

        """
    }

    var makefile: String {
        """
        # Builds lib\(name).so against the plugin-host installed in PLUGIN_HOST_PREFIX.
        #
        #   make            build lib\(name).so
        #   make test       build and run the unit tests in Tests/
        #   make install    copy lib\(name).so into the host's plugin directory

        PLUGIN_HOST_PREFIX ?= \(prefix)
        PLUGINS_DIR        ?= $(PLUGIN_HOST_PREFIX)/lib/plugin-host/plugins
        SWIFTC             ?= swiftc
        OBJCOPY            ?= objcopy
        NAME               := \(name)
        # Plugins whose Swift types this one imports; linking them makes them load first.
        LINKS              :=

        ABI_FLAGS := $(shell PKG_CONFIG_PATH=$(PLUGIN_HOST_PREFIX)/lib/pkgconfig pkg-config --cflags --libs plugin-abi)
        SOURCES   := $(wildcard *.swift)

        .PHONY: all test install clean
        all: lib$(NAME).so

        lib$(NAME).so: $(SOURCES) manifest.json
        \t$(SWIFTC) -swift-version 6 -O -parse-as-library -emit-library -enable-library-evolution \\
        \t    -module-name $(NAME) -emit-module-interface-path $(NAME).swiftinterface \\
        \t    $(ABI_FLAGS) $(addprefix -l,$(LINKS)) \\
        \t    -Xlinker -soname=lib$(NAME).so -Xlinker -rpath -Xlinker '$$ORIGIN:$$ORIGIN/../..' \\
        \t    -o $@.unpackaged $(SOURCES)
        \t$(OBJCOPY) --add-section .plugin_host_manifest=manifest.json \\
        \t    --set-section-flags .plugin_host_manifest=noload,readonly $@.unpackaged $@
        \trm -f $@.unpackaged
        \tchmod 755 $@

        test: $(SOURCES) Tests/*.swift
        \t$(SWIFTC) -swift-version 6 -parse-as-library -module-name $(NAME)Tests $(ABI_FLAGS) $(addprefix -l,$(LINKS)) \\
        \t    -Xlinker -rpath -Xlinker $(PLUGIN_HOST_PREFIX)/lib -o $(NAME)-tests $(SOURCES) Tests/*.swift
        \t./$(NAME)-tests

        install: lib$(NAME).so
        \tinstall -m 755 lib$(NAME).so $(PLUGINS_DIR)/

        clean:
        \trm -f lib$(NAME).so lib$(NAME).so.unpackaged $(NAME).swiftinterface $(NAME)-tests

        """
    }
}

extension String {
    /// The string with its first character lowercased: `Domain` → `domain`.
    var lowercasedFirst: String {
        guard let first else { return self }
        return first.lowercased() + dropFirst()
    }
}

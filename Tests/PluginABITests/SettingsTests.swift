import PluginABI
import Testing

@Suite("Settings: a plugin's configuration")
struct SettingsTests {
    let settings = Settings(
        ["directory": "/var/lib", "verbose": true, "retries": 3, "ratio": 0.5, "nothing": nil],
        for: "Persistence")

    @Test("typed accessors return the stored value")
    func typedValues() throws {
        #expect(try settings.string("directory") == "/var/lib")
        #expect(try settings.bool("verbose") == true)
        #expect(try settings.integer("retries") == 3)
        #expect(try settings.number("ratio") == 0.5)
    }

    @Test("a missing or null key is nil")
    func missingIsNil() throws {
        #expect(try settings.string("absent") == nil)
        #expect(try settings.string("nothing") == nil)
    }

    @Test("a value of another type is an error naming the plugin, the key and both types")
    func mismatch() throws {
        let error = try #require(throws: SettingsError.self) { try settings.string("retries") }
        #expect(error.key == "retries")
        #expect(error.expected == "string")
        #expect(error.found == "number")
        #expect(error.description.hasPrefix("setting \"retries\" of plugin Persistence must be a string, but the configuration holds a number"))
        #expect(throws: SettingsError.self) { try settings.integer("ratio") }
    }
}

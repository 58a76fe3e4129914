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

    @Test("a value of another type is an error naming the plugin, the key, the type expected and the value found")
    func mismatch() throws {
        let error = try #require(throws: SettingsError.self) { try settings.string("retries") }
        #expect(error.key == "retries")
        #expect(error.expected == "string")
        #expect(error.found == "the number 3")
        #expect(error.description.hasPrefix("setting \"retries\" of plugin Persistence must be a string, but the configuration holds the number 3"))
        let fraction = try #require(throws: SettingsError.self) { try settings.integer("ratio") }
        #expect(fraction.description.hasPrefix("setting \"ratio\" of plugin Persistence must be a whole number, but the configuration holds the fractional number 0.5"))
        let text = try #require(throws: SettingsError.self) { try settings.bool("directory") }
        #expect(text.found == "the string \"/var/lib\"")
    }

    @Test("the settings remember which keys the component asked for; the host names the others")
    func keysRead() throws {
        let fresh = Settings(["intervalMS": 200, "verbose": true], for: "Ticker")
        _ = try fresh.integer("intervalMs")
        _ = try fresh.bool("verbose")
        #expect(fresh.keysNotRead == ["intervalMS"])
        #expect(fresh.keysAskedButAbsent == ["intervalMs"])
        _ = fresh.values
        #expect(fresh.keysNotRead.isEmpty, "reading every value reads every key")
    }
}

// The fuzz target of the manifest reader: `make fuzz` builds it with libFuzzer and
// AddressSanitizer together with the host's Manifest, JSON and file sources, and runs it
// on Tests/Fuzz/corpus. Every input must give a manifest or an error; a crash, a hang or a
// sanitizer report is a bug.

/// libFuzzer's entry point: reads `data` as a whole plugin file, then as manifest JSON.
@c(LLVMFuzzerTestOneInput)
public func fuzzManifestReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let manifest = try? ManifestReader.manifest(in: MemorySource(bytes: bytes)) {
        precondition(PluginManifest.problem(withName: manifest.name) == nil, "accepted a bad name")
        precondition(SemanticVersion(manifest.version.description) == manifest.version, "version does not round-trip")
        precondition(!manifest.requires.contains(manifest.name), "accepted a self-requirement")
    }
    _ = try? PluginManifest(json: bytes)
    return 0
}

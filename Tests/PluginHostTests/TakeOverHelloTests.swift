import Testing

@testable import PluginHost

/// The first message of a host upgrade's channel: what the host before hands the new host.
@Suite("The hello a new host reads from the host before")
struct TakeOverHelloTests {
    @Test("it reads back as written: the sockets, systemd's socket, and each held build with its identity and its held file's")
    func readsBack() throws {
        let build = FileIdentity(device: 2049, inode: 77, size: 188_416, modificationNanoseconds: 1_795_600_000_000_000_001, changeNanoseconds: 1_795_600_000_000_000_002)
        let copy = FileIdentity(device: 2050, inode: UInt64(Int64.max) + 5, size: 188_416, modificationNanoseconds: 3, changeNanoseconds: 4)
        let plugin = PublishedPlugin(name: "Keeper", file: "/srv/plugins/libKeeper.so", version: "1.2.0", identity: build, requires: ["Persistence"])
        var hello = TakeOverHello(
            hostBefore: 4242, generationBefore: 7, firstGeneration: 8, running: ["Keeper"],
            sockets: [TakeOverHello.Socket(name: "keeper", address: "/run/keeper.sock", createdFile: "/run/keeper.sock")],
            control: "/run/plugin-host/control.sock", metrics: nil, notifySocket: "/run/systemd/notify", watchdogMicroseconds: 30_000_000)
        hello.held = [TakeOverHello.HeldBuild(plugin, buildIdentity: build, heldIdentity: copy, fromCopy: true)]

        let sent = try JSONParser.parse(Array(JSONCoding.document(hello).rendered().utf8))
        let read = try JSONCoding.decode(TakeOverHello.self, from: sent)
        #expect(read == hello)
        #expect(read.held.first?.published == plugin)
        #expect(read.held.first?.heldIdentity == copy)
        #expect(read.plan == NewHostPlan(generationBefore: 7, firstGeneration: 8, running: ["Keeper"]))
    }
}

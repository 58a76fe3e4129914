/// The channel between the two ends of a host upgrade (``HostUpgrade``): a socket pair of
/// whole messages (``DescriptorChannel``), whose one end the host before keeps and whose
/// other end the new host finds at descriptor 3, as `PLUGIN_HOST_TAKE_OVER=3` says. The first
/// message, the host before's, is the ``TakeOverHello`` with the sockets; then each message
/// is a tag byte and its body: `W` and a word as JSON (``HostWord``), or `H` and a hand-off
/// package with its descriptors.
struct HostChannel {
    /// The variable that tells a plugin-host it is a new host, and where its channel is.
    static let variable = "PLUGIN_HOST_TAKE_OVER"
    /// The descriptor the new host finds its end at.
    static let newHostDescriptor: Int32 = 3

    let channel: DescriptorChannel

    /// Says `word` to the other end; a hand-off goes with ``handOver(_:)``.
    func tell(_ word: HostWord) -> Bool {
        let name: String = switch word {
        case .drain: "drain"
        case .serves: "serves"
        case .trialPassed: "trialPassed"
        case .stop: "stop"
        case .handedOver: "handedOver"
        }
        return channel.send(Array("W".utf8) + Array(JSONOutput.object([("word", .string(name))]).rendered().utf8), descriptors: [])
    }

    /// Sends what a generation handed over, with copies of its descriptors: the sender keeps its own.
    func handOver(_ package: HandOffPackage) -> Bool {
        channel.send(Array("H".utf8) + package.bytes, descriptors: package.descriptors)
    }

    /// What the other end said since the last look, without waiting: words, and hand-off
    /// packages (`handedOver`, with the package); `closed` when the other end is gone.
    func receive() -> (words: [(HostWord, HandOffPackage?)], closed: Bool) {
        var words: [(HostWord, HandOffPackage?)] = []
        while true {
            guard channel.hasNews else { return (words, false) }
            guard let (bytes, descriptors) = channel.receive(waitingUpTo: nil), let tag = bytes.first else { return (words, true) }
            let body = Array(bytes.dropFirst())
            if tag == UInt8(ascii: "H") {
                let package = HandOffPackage(bytes: body, descriptors: descriptors)
                words.append((.handedOver(package.labels.map(\.description)), package))
                continue
            }
            for descriptor in descriptors { FileDescriptor(rawValue: descriptor).close() }
            guard tag == UInt8(ascii: "W"), let value = try? JSONParser.parse(body), case .object(let members) = value,
                let name = members["word"]?.text
            else { continue }
            switch name {
            case "drain": words.append((.drain, nil))
            case "serves": words.append((.serves, nil))
            case "trialPassed": words.append((.trialPassed, nil))
            case "stop": words.append((.stop, nil))
            default: continue
            }
        }
    }

    var descriptor: FileDescriptor { FileDescriptor(rawValue: channel.descriptor) }
}

/// What the host before hands the new host as it starts it: its first message on the
/// channel. Its descriptors, in order: the sockets, then the control socket and the metrics
/// endpoint when there are, then the files of the builds it holds.
struct TakeOverHello: Codable, Equatable, Sendable {
    /// A build the host before holds open (``HeldBuilds``): the plugin's build, and the
    /// identity of the held file when it was held (the record's copy has its own). An
    /// identity is five decimal numbers as text: JSON's numbers are read as doubles, which
    /// cannot hold a time in nanoseconds exactly.
    struct HeldBuild: Codable, Equatable, Sendable {
        var name: String
        var file: String
        var version: String
        var requires: [String]
        var build: [String]
        var held: [String]
        var fromCopy: Bool

        init(_ build: PublishedPlugin, buildIdentity: FileIdentity, heldIdentity: FileIdentity, fromCopy: Bool) {
            name = build.name
            file = build.file
            version = build.version
            requires = build.requires
            self.build = Self.numbers(of: buildIdentity)
            held = Self.numbers(of: heldIdentity)
            self.fromCopy = fromCopy
        }

        var published: PublishedPlugin? {
            Self.identity(build).map { PublishedPlugin(name: name, file: file, version: version, identity: $0, requires: requires) }
        }

        var heldIdentity: FileIdentity? { Self.identity(held) }

        private static func numbers(of identity: FileIdentity) -> [String] {
            [String(identity.device), String(identity.inode), String(identity.size), String(identity.modificationNanoseconds), String(identity.changeNanoseconds)]
        }

        private static func identity(_ numbers: [String]) -> FileIdentity? {
            guard numbers.count == 5, let device = UInt64(numbers[0]), let inode = UInt64(numbers[1]), let size = Int64(numbers[2]),
                let modified = Int64(numbers[3]), let changed = Int64(numbers[4])
            else { return nil }
            return FileIdentity(device: device, inode: inode, size: size, modificationNanoseconds: modified, changeNanoseconds: changed)
        }
    }

    struct Socket: Codable, Equatable, Sendable {
        var name: String
        var address: String
        /// The Unix socket file the host created, which the host that ends for good removes.
        var createdFile: String?
    }

    var hostBefore: Int32
    var generationBefore: Int
    var firstGeneration: Int
    var running: [String]
    var sockets: [Socket]
    /// The control socket's path, when there is one.
    var control: String?
    var metrics: Socket?
    /// systemd's notification socket and watchdog, which the host before read and removed
    /// from its environment.
    var notifySocket: String?
    var watchdogMicroseconds: Int64?
    /// The builds it holds, whose files follow the sockets' descriptors.
    var held: [HeldBuild] = []

    var plan: NewHostPlan { NewHostPlan(generationBefore: generationBefore, firstGeneration: firstGeneration, running: running) }
}

/// The new host, as the host before sees it: its process and its channel.
struct NewHost {
    let process: ProcessID
    let link: HostChannel

    /// Starts the file at `path` with `arguments` as the new host, its end of a new channel at
    /// descriptor 3 and no other descriptor but the standard ones, no signal blocked, and
    /// sends it `hello` with `descriptors`.
    static func start(_ path: String, arguments: [String], hello: TakeOverHello, descriptors: [Int32]) throws(SystemError) -> NewHost {
        let (ours, theirs) = try DescriptorChannel.pair()
        defer { theirs.close() }
        var environment = Process.environment
        environment[HostChannel.variable] = String(HostChannel.newHostDescriptor)
        let process: ProcessID
        do {
            process = try SpawnedProgram.start(path, arguments: arguments, environment: environment,
                                               passing: theirs.descriptor, as: HostChannel.newHostDescriptor)
        } catch {
            ours.close()
            throw error
        }
        let link = HostChannel(channel: ours)
        let bytes = Array(JSONCoding.document(hello).rendered().utf8)
        _ = ours.send(bytes, descriptors: descriptors)
        return NewHost(process: process, link: link)
    }
}

/// The host before, as a new host sees it: the channel it was started with, and what it said first.
struct HostBefore {
    let link: HostChannel
    let hello: TakeOverHello
    /// The descriptors that came with the hello, in its order.
    let descriptors: [Int32]

    /// Reads the hello on the channel at `descriptor`, waiting up to `limit` for it.
    ///
    /// - Throws: ``TakeOverError`` when none came or it cannot be read.
    static func connect(descriptor: Int32, waitingUpTo limit: Duration) throws(TakeOverError) -> HostBefore {
        FileDescriptor(rawValue: descriptor).closedOnExec()
        let channel = DescriptorChannel(descriptor: descriptor)
        guard let (bytes, descriptors) = channel.receive(waitingUpTo: limit) else {
            throw TakeOverError("the host before sent nothing on descriptor \(descriptor) within \(TextFormat.seconds(limit))")
        }
        guard let value = try? JSONParser.parse(bytes), let hello = try? JSONCoding.decode(TakeOverHello.self, from: value) else {
            for descriptor in descriptors { FileDescriptor(rawValue: descriptor).close() }
            throw TakeOverError("the host before's first message is not a hello this host reads (another supervision protocol?)")
        }
        let expected = hello.sockets.count + (hello.control == nil ? 0 : 1) + (hello.metrics == nil ? 0 : 1) + hello.held.count
        guard descriptors.count == expected else {
            for descriptor in descriptors { FileDescriptor(rawValue: descriptor).close() }
            throw TakeOverError("the host before passed \(descriptors.count) sockets where its hello names \(expected)")
        }
        return HostBefore(link: HostChannel(channel: channel), hello: hello, descriptors: descriptors)
    }
}

/// Why a new host cannot take over from the host that started it.
struct TakeOverError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

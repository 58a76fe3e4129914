import PluginABI

/// What a worker's plugins hand the next generation, as one message of a
/// ``DescriptorChannel``: a JSON list of the items (plugin, name, kind), the descriptors
/// handed over, and one unlinked file that holds every item's bytes. The supervisor reads
/// the list, for what it says, and passes the message on as it came; it never reads the
/// bytes.
///
/// ```json
/// {"items": [{"plugin": "Echo", "name": "counter", "kind": "bytes", "offset": 0, "length": 8},
///            {"plugin": "Echo", "name": "connection-3", "kind": "descriptor", "index": 0}],
///  "bytesIn": 1}
/// ```
///
/// `index` and `bytesIn` are positions among the message's descriptors.
struct HandOffPackage: Sendable {
    /// One item, as the list names it.
    struct Label: Equatable, Sendable, CustomStringConvertible {
        let plugin: String
        let name: String
        let isDescriptor: Bool

        var description: String { "\(plugin)/\(name)" }
    }

    /// The message: the list, and the descriptors it names.
    let bytes: [UInt8]
    let descriptors: [Int32]

    /// An empty package: nothing handed over.
    static let empty = HandOffPackage(bytes: Array(#"{"items": []}"#.utf8), descriptors: [])

    /// The list's entries.
    private var entries: [[String: Setting]] {
        guard case .object(let document)? = try? JSONParser.parse(bytes), case .array(let entries)? = document["items"] else { return [] }
        return entries.compactMap { if case .object(let fields) = $0 { fields } else { nil } }
    }

    /// What the list names, or nothing when it is not a list of items.
    var labels: [Label] {
        entries.compactMap { fields in
            guard case .string(let plugin)? = fields["plugin"], case .string(let name)? = fields["name"], case .string(let kind)? = fields["kind"]
            else { return nil }
            return Label(plugin: plugin, name: name, isDescriptor: kind == "descriptor")
        }
    }

    /// Closes every descriptor it carries: nobody takes them.
    func close() {
        for descriptor in descriptors { FileDescriptor(rawValue: descriptor).close() }
    }

    // MARK: In a worker

    /// Packs what each plugin handed over, within the bounds of ``HandedOver``.
    ///
    /// - Returns: The package, and what it left out, in words, for the host's output.
    static func pack(_ handed: [(plugin: String, handedOver: HandedOver)]) -> (HandOffPackage, [String]) {
        var entries: [JSONOutput] = []
        var descriptors: [Int32] = []
        var state: [UInt8] = []
        var dropped: [String] = []
        for (plugin, handedOver) in handed {
            var count = 0
            var bytesOfPlugin = 0
            for (name, item) in handedOver.items {
                count += 1
                switch item {
                case .bytes(let bytes):
                    guard count <= HandedOver.maximumItems, bytesOfPlugin + bytes.count <= HandedOver.maximumBytes else {
                        dropped.append("\(plugin)'s \(name) (\(bytes.count) bytes)")
                        continue
                    }
                    bytesOfPlugin += bytes.count
                    entries.append(.object([
                        ("plugin", .string(plugin)), ("name", .string(name)), ("kind", .string("bytes")),
                        ("offset", .number(Double(state.count))), ("length", .number(Double(bytes.count))),
                    ]))
                    state += bytes
                case .descriptor(let descriptor):
                    guard count <= HandedOver.maximumItems, descriptors.count < DescriptorChannel.maximumDescriptors - 1,
                        FileDescriptor(rawValue: descriptor).isOpen
                    else {
                        dropped.append("\(plugin)'s \(name) (a descriptor)")
                        FileDescriptor(rawValue: descriptor).close()
                        continue
                    }
                    entries.append(.object([
                        ("plugin", .string(plugin)), ("name", .string(name)), ("kind", .string("descriptor")),
                        ("index", .number(Double(descriptors.count))),
                    ]))
                    descriptors.append(descriptor)
                }
            }
        }
        // The bytes' file comes last; a list too long for one message drops everything.
        let file = state.isEmpty ? nil : AnonymousFile.holding(state)?.rawValue
        if !state.isEmpty, file == nil { dropped.append("the bytes handed over (no temporary file could hold them)") }
        if let file { descriptors.append(file) }
        let document = JSONOutput.object([
            ("items", .array(entries)), ("bytesIn", file == nil ? .null : .number(Double(descriptors.count - 1))),
        ])
        let list = Array(document.rendered().utf8)
        guard list.count <= DescriptorChannel.maximumBytes else {
            dropped.append("everything: the list of \(entries.count) items is too long")
            for descriptor in descriptors { FileDescriptor(rawValue: descriptor).close() }
            return (.empty, dropped)
        }
        return (HandOffPackage(bytes: list, descriptors: descriptors), dropped)
    }

    /// What each plugin was handed over, by plugin name: the bytes read from the package's
    /// file (which is closed), the descriptors as they came.
    func unpack() -> [String: HandedOver] {
        var file: Int32 = -1
        var used = Set<Int>()
        if case .object(let document)? = try? JSONParser.parse(bytes), case .number(let index)? = document["bytesIn"],
            let position = Int(exactly: index), descriptors.indices.contains(position) {
            file = descriptors[position]
            used.insert(position)
        }
        defer { if file >= 0 { FileDescriptor(rawValue: file).close() } }
        var items: [String: [(name: String, item: HandedOver.Item)]] = [:]
        for fields in entries {
            guard case .string(let plugin)? = fields["plugin"], case .string(let name)? = fields["name"], case .string(let kind)? = fields["kind"]
            else { continue }
            if kind == "descriptor", case .number(let index)? = fields["index"], let position = Int(exactly: index),
                descriptors.indices.contains(position), used.insert(position).inserted {
                items[plugin, default: []].append((name, .descriptor(descriptors[position])))
            } else if kind == "bytes", file >= 0, case .number(let offset)? = fields["offset"], case .number(let length)? = fields["length"],
                let offset = Int(exactly: offset), let length = Int(exactly: length), length >= 0, length <= HandedOver.maximumBytes {
                if let bytes = AnonymousFile.read(FileDescriptor(rawValue: file), at: offset, length: length) {
                    items[plugin, default: []].append((name, .bytes(bytes)))
                }
            }
        }
        // A descriptor the list does not name is nobody's.
        for position in descriptors.indices where !used.contains(position) { FileDescriptor(rawValue: descriptors[position]).close() }
        return items.mapValues { HandedOver(items: $0) }
    }
}

/// An error raised by ``Bootstrapped`` itself: a component asked for something it cannot
/// see, or the chain was asked to hold two plugins of one name.
public struct BootstrappingError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. New codes may be added; switch over them with a `default` case.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case componentNotFound
            case duplicatePlugin
            case socketNotFound
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// `component(_:)` found no visible component of the requested type.
        public static let componentNotFound = Code(.componentNotFound)
        /// A plugin of the same name is already in the chain.
        public static let duplicatePlugin = Code(.duplicatePlugin)
        /// `listeningSocket(named:)` found no socket of that name.
        public static let socketNotFound = Code(.socketNotFound)

        public var description: String {
            switch value {
            case .componentNotFound: "expected component not found"
            case .duplicatePlugin: "duplicate plugin"
            case .socketNotFound: "socket not found"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// The plugin that asked, or `nil` when the host asked the whole chain.
    public let requestingPlugin: String?
    /// The requested type as Swift prints it, such as `Persistence.PersistenceBootstrapping`.
    public let requestedType: String?
    /// The plugins whose components the requester could see, in bootstrap order.
    public let visiblePlugins: [String]
    /// A sentence saying what to do about it.
    public let advice: String

    init(
        code: Code,
        requestingPlugin: String?,
        requestedType: String? = nil,
        visiblePlugins: [String] = [],
        advice: String
    ) {
        self.code = code
        self.requestingPlugin = requestingPlugin
        self.requestedType = requestedType
        self.visiblePlugins = visiblePlugins
        self.advice = advice
    }

    public var description: String {
        let asker = requestingPlugin.map { "plugin \($0)" } ?? "the host"
        switch code {
        case .componentNotFound:
            let seen = visiblePlugins.isEmpty
                ? "it can see no components" : "it can see only \(visiblePlugins.joined(separator: ", "))"
            return "expected component not found: \(asker) asked for \(requestedType ?? "?"), but \(seen); \(advice)"
        default:
            return "\(code): \(advice)"
        }
    }
}

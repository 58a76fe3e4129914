/// What the host proved about builds, kept on disk so that it outlives the process that
/// proved it: the builds left out, each with why. The supervisor reads it when it starts,
/// and the machine leaves those builds out of every generation as if it had just proved
/// them bad; whenever what is left out changes, the machine says what to keep
/// (``SupervisionAction/keepRecord(_:)``) and the driver writes it.
struct BuildRecord: Equatable, Sendable {
    /// A build left out: its plugin, its file and version as they were, its contents (by
    /// identity: the same device, inode, size and modification time), and why.
    struct LeftOut: Equatable, Sendable {
        let name: String
        /// An absolute path once kept on disk.
        var file: String
        let version: String
        let identity: FileIdentity
        let reason: String
    }

    /// The builds left out, the newest last.
    var leftOut: [LeftOut] = []

    /// How many builds left out the record keeps of each plugin: the newest. A build stays
    /// left out until its file changes, so an older one is a file long replaced.
    static let leftOutPerPlugin = 8
}

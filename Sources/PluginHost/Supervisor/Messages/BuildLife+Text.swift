/// A build's life in an operator's words, as `history` shows it.
extension BuildLife {
    /// `on trial`, `permanent`, `kept`, `left out`.
    var verdict: String {
        switch self {
        case .onTrial: "on trial"
        case .permanent: "permanent"
        case .kept: "kept"
        case .leftOut: "left out"
        }
    }

}

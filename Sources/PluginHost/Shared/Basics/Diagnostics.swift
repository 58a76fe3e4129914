/// Notes, warnings and problems as every command prints them on standard error, one line
/// each: `plugin-host: note: ...`, `plugin-host: warning: ...`, `plugin-host: error: ...`.
enum Diagnostics {
    static func text(notes: [String] = [], warnings: [String] = [], problems: [Problem] = []) -> String {
        notes.map { "plugin-host: note: \($0)\n" }.joined()
            + warnings.map { "plugin-host: warning: \($0)\n" }.joined()
            + problems.map { "plugin-host: error: \($0.message)\n" }.joined()
    }
}

/// The fully qualified name of a type as a person would write it, such as
/// `Persistence.PersistenceBootstrapping`.
///
/// `String(reflecting:)` names private and local types with an
/// `(unknown context at $55d0c2b1c0a8)` part that differs from run to run; it is left out.
///
/// - Parameter type: Any type.
/// - Returns: Its name, qualified by module and enclosing types.
package func readableName(of type: Any.Type) -> String {
    var name = String(reflecting: type)
    let marker = "(unknown context at $"
    while let start = name.firstRange(of: marker) {
        guard let close = name[start.upperBound...].firstIndex(of: ")") else { break }
        var end = name.index(after: close)
        if end < name.endIndex, name[end] == "." { end = name.index(after: end) }
        name.removeSubrange(start.lowerBound..<end)
    }
    return name
}

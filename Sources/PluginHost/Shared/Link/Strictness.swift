/// How much a generation's start may leave out and still serve: the machine decides it for
/// each generation it starts (``GenerationPlan/strictness``, by the table below), and the
/// worker follows it (``WorkerPlan/strictness``) and picks nothing itself.
///
/// | generation | bad file | graph problem or failure at load or bootstrap | plugin that does not get ready |
/// | --- | --- | --- | --- |
/// | the first, plain | refuses the start | refuses the start | ends the host |
/// | the first, `--watch` | not added, the rest runs | refuses the start | ends the host |
/// | the first, `--keep-going` | a problem, the rest runs | the plugin and those that require it are left out | ends the host |
/// | an upgrade's, an operator's restart | not added | not added, the rest goes on | ends the generation |
/// | a restart's, a restore's | not added | not added, the rest goes on | left out, the rest serves |
struct Strictness: Equatable, Sendable {
    /// What a graph problem, or a plugin that fails to load or bootstrap, costs the others.
    enum Tolerance: Equatable, Sendable {
        /// Any graph problem refuses every plugin; the first failure stops the rest.
        case allOrNothing
        /// A plugin with a graph problem is left out with those that require it; the first
        /// failure stops the rest: the start of a host that watches, which treats a bad file
        /// as a later scan does.
        case leaveBadFilesOut
        /// A plugin with a graph problem, or that fails, is left out with those that require
        /// it; the others run.
        case leaveFailuresOut
    }

    var admission: Tolerance
    /// Whether a file that is no plugin, or a plugin refused by the graph, is "not added" (said
    /// once, the rest runs, as a later scan would) rather than a problem of the start.
    var badFilesNotAdded: Bool
    /// Whether the generation goes on from a host that served before: an unreadable plugin
    /// directory is a warning in force instead of refusing it, and a plugin that fails is not
    /// added, as a rescan could not add it, instead of failing the start.
    var goesOnFromServing: Bool
    /// Whether a plugin that does not get ready is left out while the others serve (a
    /// generation that heals the host), instead of ending the generation.
    var leavesUnreadyOut: Bool
}

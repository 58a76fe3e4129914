#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// Fault sequences that once found a bug, shrunk, each kept by the seed that found it: the
/// simulator runs them before its random sequences (so a planted bug that only such a rare
/// sequence reaches is caught by every run), and `make test` replays each by name.
enum Regressions {
    struct Sequence: Sendable, CustomStringConvertible {
        /// What the bug it found did wrong, as the machine's promise reads.
        let promise: String
        let seed: UInt64
        let operations: [FaultOperation]

        var description: String { "seed \(seed): \(promise)" }
    }

    private static let persistence = 0, domain = 1, echo = 2, ticker = 3

    static let all: [Sequence] = [
        Sequence(
            promise: "the record's writes stall once the oldest unfinished request has waited 5 s, however many newer ones the next write covers",
            seed: 6_001_065_944,
            operations: [
                .advance(milliseconds: 100), .advanceToNextDeadline, .freezeState(seconds: 10), .advanceToNextDeadline, .advance(milliseconds: 1000),
                .rewriteInPlace(plugin: domain, with: .hangsInLoad), .advance(milliseconds: 1000), .advanceToNextDeadline,
                .kill(.current, .killedInShortCall), .replace(plugin: domain, with: .good),
            ]),
        Sequence(
            promise: "history names as permanent the build that serves once an operator's restart forgives it",
            seed: 273_338_788,
            operations: [
                .advance(milliseconds: 100), .replace(plugin: ticker, with: .good), .signal(.hangUp, to: .hostThenService),
                .replace(plugin: ticker, with: .failsToLoad), .advance(milliseconds: 6690), .ask(.rollbackOne), .crash(.newest, inPlugin: domain),
                .advance(milliseconds: 306), .ask(.restartLeftOut),
            ]),
        Sequence(
            promise: "a first generation whose services ran and that ended unasked while stopping them served: it ends as a serving one does, not as one that failed before it was ready",
            seed: 802_959_383,
            operations: [
                .advance(milliseconds: 5000), .remove(plugin: echo), .kill(.current, .killedInShortCall), .advanceToNextDeadline, .killSupervisor,
                .advanceToNextDeadline, .advance(milliseconds: 5), .kill(.current, .underscoreExit),
            ]),
        Sequence(
            promise: "a trial that passes while its plugin last served another build passes behind it: the build that served last stays permanent",
            seed: 165_894,
            operations: [
                .replace(plugin: ticker, with: .good), .advance(milliseconds: 1000), .rewriteInPlace(plugin: ticker, with: .crashesInBootstrap),
                .advance(milliseconds: 1000), .rewriteInPlace(plugin: persistence, with: .junk),
            ]),
        Sequence(
            promise: "an accepted trial whose plugin last served another build passes behind it",
            seed: 165_894,
            operations: [
                .signal(.hangUp, to: .hostThenService), .replace(plugin: ticker, with: .good), .advance(milliseconds: 1000),
                .rewriteInPlace(plugin: ticker, with: .crashesInBootstrap), .signal(.hangUp, to: .hostThenService), .advance(milliseconds: 1000),
                .replace(plugin: persistence, with: .good), .rewriteInPlace(plugin: persistence, with: .junk), .advance(milliseconds: 7824),
                .ask(.acceptOne),
            ]),
        Sequence(
            promise: "once its report is out and its services run, the first generation serves: a crash then is a restart",
            seed: 1806,
            operations: [.ask(.rollbackOne), .advance(milliseconds: 5), .rewriteInPlace(plugin: echo, with: .good)]),
        Sequence(
            promise: "a candidate waiting for the generation before to stop is judged again by what that generation ran at its end",
            seed: 5_000_839_699,
            operations: [
                .advance(milliseconds: 100), .kill(.newest, .exitCall), .replace(plugin: persistence, with: .junk),
                .advance(milliseconds: 29548), .suspend(.current), .rewriteInPlace(plugin: ticker, with: .good),
                .advance(milliseconds: 5000), .ask(.restart), .replace(plugin: persistence, with: .good), .advance(milliseconds: 1000),
            ]),
        Sequence(
            promise: "a serving generation ended for overrunning while a candidate loads is a failure, not a hand-over",
            seed: 9_000_471_931,
            operations: [
                .advance(milliseconds: 100), .advance(milliseconds: 5000), .kill(.current, .exitCall), .advance(milliseconds: 5000),
                .advance(milliseconds: 100), .advance(milliseconds: 5), .hang(.newest), .ask(.reload), .advanceToNextDeadline,
                .replace(plugin: domain, with: .good), .advance(milliseconds: 39105), .kill(.current, .crashNamingPlugin),
            ]),
        Sequence(
            promise: "a build on trial whose file is written in place: the trial goes on with the build the restart loads",
            seed: 20_867_976,
            operations: [
                .replace(plugin: echo, with: .good), .advance(milliseconds: 250), .rewriteInPlace(plugin: echo, with: .good),
                .advance(milliseconds: 1), .refuseNextFork, .advance(milliseconds: 1000), .ask(.rollback),
                .replace(plugin: echo, with: .crashesInBootstrap),
            ]),
        Sequence(
            promise: "an operator's rollback names the build on trial the restart loaded",
            seed: 21_672_734,
            operations: [
                .replace(plugin: domain, with: .good), .advance(milliseconds: 250), .rewriteInPlace(plugin: domain, with: .good),
                .advance(milliseconds: 100), .refuseNextFork, .replace(plugin: domain, with: .good), .ask(.rollback),
            ]),
        Sequence(
            promise: "after a rollback whose generation failed, a new trial's line says the build it replaces can come back",
            seed: 9_000_307_642,
            operations: [
                .replace(plugin: persistence, with: .good), .advance(milliseconds: 5000), .unhealthy(plugin: persistence),
                .environmentBreaks(plugin: domain, build: .failsToLoad), .advanceToNextDeadline,
                .environmentBreaks(plugin: domain, build: .good), .replace(plugin: persistence, with: .good), .ask(.restartLeftOut),
            ]),
        Sequence(
            promise: "a rollback whose generation could not start leaves the serving generation as it was, holds included: the build it was to bring back is let go",
            seed: 918_295,
            operations: [
                .advance(milliseconds: 5000), .replace(plugin: echo, with: .good), .killSupervisor, .advanceToNextDeadline,
                .advanceToNextDeadline, .advanceToNextDeadline, .refuseNextFork, .ask(.rollbackOne),
            ]),
        Sequence(
            promise: "a trial that goes on with the build a restart loaded in place of its own leaves that build's life as it was: a kept build stays kept",
            seed: 18_490_717,
            operations: [
                .replace(plugin: domain, with: .good), .advance(milliseconds: 100), .hang(.newest), .advanceToNextDeadline,
                .advance(milliseconds: 100), .rewriteInPlace(plugin: echo, with: .good), .advance(milliseconds: 5000), .ask(.rollbackTo),
                .advance(milliseconds: 100), .ask(.restartLeftOut), .advance(milliseconds: 100), .kill(.oldest, .crashNamingPlugin),
                .replace(plugin: echo, with: .good),
            ]),
        Sequence(
            promise: "a restart an operator starts sooner than its backoff counts within the window that ends when it starts: the limit forgets no restart a later window holds",
            seed: 17_495_763,
            operations: [
                .advance(milliseconds: 100), .rewriteInPlace(plugin: persistence, with: .good), .advance(milliseconds: 1000),
                .advance(milliseconds: 2504), .crash(.oldest, inPlugin: echo), .rewriteInPlace(plugin: echo, with: .good),
                .advance(milliseconds: 1), .kill(.oldest, .killedInShortCall), .ask(.follow), .advance(milliseconds: 16346),
                .advance(milliseconds: 100), .advanceToNextDeadline, .replace(plugin: echo, with: .good), .signal(.hangUp, to: .hostThenService),
                .advanceToNextDeadline, .advanceToNextDeadline, .advanceToNextDeadline, .kill(.newest, .crashNamingPlugin),
                .ask(.rollback), .advance(milliseconds: 5), .ask(.restartBrokenOnDisk),
            ]),
        Sequence(
            promise: "a trial that passed while the build that served last was left out makes its own build permanent; forgiving the other later leaves it kept (the world judged the trial as things were when forgiven)",
            seed: 22_645_103,
            operations: [
                .advance(milliseconds: 100), .replace(plugin: ticker, with: .good), .advanceToNextDeadline, .replace(plugin: persistence, with: .good),
                .advance(milliseconds: 5000), .rewriteInPlace(plugin: persistence, with: .crashesInBootstrap), .advance(milliseconds: 100),
                .replace(plugin: echo, with: .good), .kill(.newest, .crashNamingPlugin), .advanceToNextDeadline, .hang(.newest),
                .advance(milliseconds: 38925), .ask(.restartLeftOut),
            ]),
        Sequence(
            promise: "a serving generation ended for a plugin that hung while being added, as an upgrade's took over, is a failure: its culprit is left out, and the new one serves on",
            seed: 43_180_476,
            operations: [
                .advance(milliseconds: 100), .kill(.current, .killedInShortCall), .signal(.hangUp, to: .hostThenService), .advanceToNextDeadline,
                .remove(plugin: echo), .ask(.restartLeftOut), .advance(milliseconds: 22670), .signal(.hangUp, to: .hostThenService),
                .advanceToNextDeadline, .rewriteInPlace(plugin: domain, with: .good), .advance(milliseconds: 20), .replace(plugin: echo, with: .good),
                .hang(.oldest), .advanceToNextDeadline, .advanceToNextDeadline, .replace(plugin: echo, with: .good),
            ]),
    ]
}

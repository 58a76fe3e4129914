/// The machine-readable report printed by `--json`:
///
/// ```json
/// {"plugins":[{"name","version","file","requires":[...],"status","milliseconds",...}],
///  "errors":[{"code","plugin","file","message"}]}
/// ```
///
/// `plugins` is in bootstrap order; `milliseconds` is load plus bootstrap time, also given
/// apart as `loadMilliseconds` and `bootstrapMilliseconds`; `startedMilliseconds` and
/// `finishedMilliseconds` say when the bootstrap started and finished, and
/// `loadStartedMilliseconds` when loading started, from the start of the host (`null` when
/// it did not happen); `reason` says why a plugin failed or did not run (`null` otherwise).
enum JSONReport {
    static func document(of report: RunReport) -> JSONOutput {
        .object([
            ("plugins", .array(report.plugins.map(plugin))),
            ("errors", .array(report.problems.map(error))),
            ("notAdded", .array(report.notAdded.map(error))),
            ("warnings", .array((report.warnings + report.settingsWarnings).map(JSONOutput.string))),
            ("notes", .array(report.notes.map(JSONOutput.string))),
            ("generation", .number(Double(report.generation))),
            ("leftOut", .array(report.leftOut.map { plugin in
                .object([("name", .string(plugin.name)), ("file", .string(plugin.file)), ("reason", .string(plugin.reason))])
            })),
        ])
    }

    private static func plugin(_ outcome: PluginOutcome) -> JSONOutput {
        let manifest = outcome.candidate.manifest
        return .object([
            ("name", .string(manifest.name)),
            ("version", .string(manifest.version.description)),
            ("abi", .number(Double(manifest.abi))),
            ("file", .string(outcome.candidate.file)),
            ("requires", .array(manifest.requires.map(JSONOutput.string))),
            ("optional", .array(manifest.optional.map(JSONOutput.string))),
            ("shadowed", .array(outcome.candidate.shadowed.map(JSONOutput.string))),
            ("status", .string(outcome.status.rawValue)),
            ("milliseconds", .number(rounded(outcome.totalDuration))),
            ("loadMilliseconds", .number(rounded(outcome.loadDuration))),
            ("bootstrapMilliseconds", .number(rounded(outcome.bootstrapDuration))),
            ("loadStartedMilliseconds", outcome.loadStarted.map { .number(rounded($0)) } ?? .null),
            ("startedMilliseconds", outcome.bootstrapStarted.map { .number(rounded($0)) } ?? .null),
            ("finishedMilliseconds", outcome.bootstrapFinished.map { .number(rounded($0)) } ?? .null),
            ("reason", outcome.reason.map(JSONOutput.string) ?? .null),
        ])
    }

    private static func error(_ problem: Problem) -> JSONOutput {
        .object([
            ("code", .string(problem.code.rawValue)),
            ("plugin", problem.plugin.map(JSONOutput.string) ?? .null),
            ("file", problem.file.map(JSONOutput.string) ?? .null),
            ("message", .string(problem.message)),
        ])
    }

    private static func rounded(_ duration: Duration) -> Double {
        (duration.milliseconds * 1000).rounded() / 1000
    }
}
